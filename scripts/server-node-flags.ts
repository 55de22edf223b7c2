/**
 * V8 heap flags of the production server (`npm start`; the benchmark starts `next start` with the
 * same ones). Under load V8 otherwise lets the old generation grow to about four times what
 * survives a full GC (measured: ~80 MiB live, RSS 480 MiB and still rising after 30 s at 32
 * connections). Growing it by 30 % instead, with 24 MiB semi-spaces so a request's short-lived
 * objects mostly die young, kept RSS at 288 MiB for 7 % less throughput (bench/results/exp-heap-*).
 * No hard heap limit: a large request (images, uploads) must never crash the server.
 */
export const SERVER_NODE_FLAGS = ["--heap-growing-percent=30", "--max-semi-space-size=24"];

/**
 * Environment of the production server process. glibc gives each thread that mallocs its own
 * arena (libuv's pool, V8's GC helpers), and their fragmentation kept RSS creeping up by ~7 MiB a
 * minute under steady load; two arenas kept it flat (1.7 MiB/min over 60 s, peak 279 MiB).
 */
export const SERVER_ENV: Record<string, string> = { MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072" };
