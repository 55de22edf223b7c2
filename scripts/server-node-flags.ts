/**
 * V8 flags of the production server. Heap: without the first two the old generation grows far past
 * what survives a full GC. Smaller growth steps, and semi-spaces large enough that a call's
 * short-lived objects die young but no larger (each MiB of semi-space is resident), keep RSS down;
 * no hard heap limit, so a large request never crashes the server. Sweeping on the main thread:
 * with a concurrent sweeper, Node 20's C++ heap (cppgc) re-posts its sweep task until that thread
 * is done, one event-loop wake-up (an eventfd write) each, hundreds a second on a busy
 * 2-core host; without it the server spends less CPU per call. Numbers in docs/benchmarks.md.
 */
export const SERVER_NODE_FLAGS = ["--heap-growing-percent=30", "--max-semi-space-size=12", "--no-concurrent-sweeping"];

// Two glibc malloc arenas: per-thread arenas fragmented and let RSS creep up under steady load.
export const SERVER_ENV: Record<string, string> = { MALLOC_ARENA_MAX: "2", MALLOC_MMAP_THRESHOLD_: "131072" };
