import { z } from "zod";
import { DatabaseEnv, parseEnvWith } from "@/db/env";

/**
 * The only reader of process.env besides db/env.ts. Parsed once at import; a bad value throws at
 * boot with a message naming the variable (CONTRACT 2). The database's variables (DATABASE_URL,
 * DATA_DIR, EMBEDDED_PG_PORT) are declared in db/env.ts, so `db/` reads them without `lib/`.
 */
const emptyAsUndefined = (v: unknown) => (v === "" ? undefined : v);
const optionalString = z.preprocess(emptyAsUndefined, z.string().optional());
const optionalUrl = z.preprocess(emptyAsUndefined, z.url().optional());
const intWithDefault = (def: number, min: number, max: number) =>
  z.preprocess(emptyAsUndefined, z.coerce.number().int().min(min).max(max).default(def));

const ServerEnv = DatabaseEnv.extend({
  NODE_ENV: z.preprocess(emptyAsUndefined, z.enum(["development", "production", "test"]).default("development")),
  REDIS_URL: optionalUrl,
  AUTH_SECRET: z.preprocess(emptyAsUndefined, z.string().min(32, "must be at least 32 characters").optional()),
  PORT: intWithDefault(3000, 1, 65535),
  // Read by the production server (scripts/server/main.mjs) too. Loopback by default: containers
  // and hosts without a reverse proxy in front set 0.0.0.0.
  HOST: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[A-Za-z0-9.:-]+$/, "must be a host name or an IP address")
      .default("127.0.0.1"),
  ),
  /**
   * How many reverse proxies in front of the server append to X-Forwarded-For; 0 (default) trusts
   * none and takes the client address from the socket. With N, the client is the Nth address from
   * the right (what the outermost trusted proxy saw); entries further left are the client's to forge.
   */
  TRUST_PROXY: intWithDefault(0, 0, 10),
  /**
   * Lifetime of the JWTs from POST /v1/sdk/token (CONTRACT 5.2: 300 s). Tests shorten it to watch
   * the widget renew its token.
   */
  SDK_TOKEN_TTL_S: intWithDefault(300, 2, 86_400),
  /** Window of the panel's sign-in throttle (failures per email and client address, per email, per client address). */
  LOGIN_THROTTLE_WINDOW_S: intWithDefault(900, 1, 86_400),
  // Read by the production server (scripts/server/main.mjs) too; validated here so `npm start` fails at boot.
  WEB_CONCURRENCY: intWithDefault(1, 1, 64),
  FAST_LANE: z.preprocess(emptyAsUndefined, z.enum(["0", "1"]).default("1")),
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
  LOCAL_MODELS: z.preprocess(emptyAsUndefined, z.enum(["0", "1"]).default("1")),
  MAX_UPLOAD_MB: intWithDefault(50, 1, 1024),
  /** Where uploaded documents' bytes are kept (one file per document); default `<DATA_DIR>/knowledge`. Split web/worker hosts share it. */
  KNOWLEDGE_STORAGE_DIR: optionalString,
  /**
   * Durable indexing jobs (pg-boss, schema `pgboss`): a job without progress for
   * KNOWLEDGE_JOB_EXPIRE_S is failed by pg-boss's maintenance (every JOBS_MAINTENANCE_S) and
   * retried, KNOWLEDGE_JOB_RETRIES times with backoff from KNOWLEDGE_JOB_RETRY_DELAY_S, then the
   * document is `failed`. A process without jobs checks for work every JOBS_IDLE_CHECK_S.
   */
  KNOWLEDGE_JOB_EXPIRE_S: intWithDefault(120, 1, 3600),
  KNOWLEDGE_JOB_RETRIES: intWithDefault(3, 0, 20),
  KNOWLEDGE_JOB_RETRY_DELAY_S: intWithDefault(5, 0, 3600),
  /** A live worker keeps its job from expiring (a heartbeat) for at most this long; then the attempt is abandoned. */
  KNOWLEDGE_JOB_MAX_S: intWithDefault(1800, 10, 86_400),
  JOBS_MAINTENANCE_S: intWithDefault(30, 1, 3600),
  JOBS_IDLE_CHECK_S: intWithDefault(5, 1, 3600),
  /** How often an idle job worker asks for work when no producer wakes it (a fallback: producers wake workers in every process). */
  JOBS_POLL_S: intWithDefault(2, 1, 3600),
  /** Documents one worker process indexes at once. */
  KNOWLEDGE_WORKER_CONCURRENCY: intWithDefault(2, 1, 32),
  /**
   * Inbound webhooks (lib/webhooks): accepted events per minute per endpoint (an endpoint's own
   * `rate_limit_per_minute` wins), how long a rotated-out secret keeps working, and the
   * `webhook-event` jobs: expiry without progress, retries on upstream failures with backoff from
   * WEBHOOK_JOB_RETRY_DELAY_S (then the event is `dead`), and events one process works on at once.
   */
  WEBHOOK_RATE_LIMIT_PER_MINUTE: intWithDefault(600, 1, 1_000_000),
  WEBHOOK_SECRET_GRACE_S: intWithDefault(86_400, 0, 30 * 86_400),
  WEBHOOK_JOB_EXPIRE_S: intWithDefault(120, 1, 3600),
  WEBHOOK_JOB_RETRIES: intWithDefault(3, 0, 20),
  WEBHOOK_JOB_RETRY_DELAY_S: intWithDefault(5, 0, 3600),
  WEBHOOK_JOB_MAX_S: intWithDefault(600, 10, 86_400),
  /** 0: this process accepts events but leaves their processing to other processes (`npm run worker`). */
  WEBHOOK_WORKER_CONCURRENCY: intWithDefault(4, 0, 64),
  /**
   * Set by the production server (scripts/server/main.mjs), not by hand: the built jobs thread
   * (lib/jobs/jobs-thread.ts). Unset (`next dev`, `npm run worker`, JOBS_THREAD=0): no jobs thread.
   */
  COCKPIT_JOBS_THREAD_FILE: optionalString,
  /** Upstream HTTP: connect timeout, time to first byte (response headers), idle gap between stream chunks. */
  UPSTREAM_CONNECT_TIMEOUT_MS: intWithDefault(10_000, 1, 600_000),
  UPSTREAM_FIRST_BYTE_TIMEOUT_MS: intWithDefault(120_000, 1, 3_600_000),
  UPSTREAM_IDLE_TIMEOUT_MS: intWithDefault(300_000, 1, 3_600_000),
  /** Retries per upstream id on 429, 5xx and connection errors, before any byte reached the client. */
  UPSTREAM_RETRIES: intWithDefault(2, 0, 10),
  UPSTREAM_RETRY_BASE_MS: intWithDefault(200, 0, 60_000),
  /**
   * Slug of the vision-capable model that describes images for models that do not take them
   * (lib/runs/stages/multimodal.ts); billed to the company like any call. Unset: OCR text and the
   * image's size and type only, no model call.
   */
  /**
   * The Python sandbox (lib/sandbox): at most SANDBOX_POOL_SIZE Deno processes; after the first tool
   * call SANDBOX_PREWARM clean ones are kept booted. A call waits up to SANDBOX_QUEUE_TIMEOUT_MS for
   * a process, runs up to SANDBOX_TIMEOUT_MS (then SIGKILL); a process is killed at once for RSS
   * over SANDBOX_MAX_RSS_MB or for more than SANDBOX_IDLE_CPU_MS + 200 ms of CPU beyond its allowance
   * (one thread while in a call, none while idle; an account draining at 5 % of wall time, read from
   * /proc ticks of 10 ms), which a timer or thread left running fills within a second however often
   * its company calls. At about SANDBOX_MAX_CALLS calls (80 to 100 %, per process) or
   * SANDBOX_MAX_AGE_S it hands over: a successor for the same company boots in the background (from
   * 90 % of the limit, at most max(1, SANDBOX_PREWARM) boots at a time, beyond SANDBOX_POOL_SIZE
   * while it boots) and the old process serves its company until the successor is ready. Past 4 ×
   * its call limit or SANDBOX_MAX_AGE_S + 60 s the company's calls wait for the successor, so under
   * a sustained burst a process lives max(limit, boot time) and at most 4 × the limit.
   * SANDBOX_MAX_CALLS=1 stays strict: a fresh process for every call.
   */
  SANDBOX_POOL_SIZE: intWithDefault(4, 1, 64),
  SANDBOX_PREWARM: intWithDefault(1, 0, 64),
  SANDBOX_TIMEOUT_MS: intWithDefault(10_000, 100, 600_000),
  SANDBOX_QUEUE_TIMEOUT_MS: intWithDefault(30_000, 0, 600_000),
  SANDBOX_BOOT_TIMEOUT_MS: intWithDefault(60_000, 1_000, 600_000),
  SANDBOX_MAX_CALLS: intWithDefault(100, 1, 1_000_000),
  SANDBOX_MAX_AGE_S: intWithDefault(600, 1, 86_400),
  SANDBOX_MAX_RSS_MB: intWithDefault(400, 64, 65_536),
  SANDBOX_IDLE_CPU_MS: intWithDefault(50, 0, 60_000),
  /** cpu cgroup quota of each sandbox process in % of one core, where the host allows (root); 0: none. */
  SANDBOX_CPU_QUOTA_PERCENT: intWithDefault(100, 0, 6400),
  /** Python's heap (WebAssembly memory) per process; 512 MiB keeps a 3 GB allocation a clean MemoryError. */
  SANDBOX_WASM_MAX_MB: intWithDefault(512, 64, 4096),
  SANDBOX_STDOUT_MAX_BYTES: intWithDefault(65_536, 0, 16 * 1024 * 1024),
  SANDBOX_RESULT_MAX_BYTES: intWithDefault(1024 * 1024, 1024, 64 * 1024 * 1024),
  /** Uid/gid the sandbox processes run as when the server runs as root; -1 keeps the server's. */
  SANDBOX_UID: intWithDefault(65534, -1, 2 ** 31 - 1),
  SANDBOX_GID: intWithDefault(65534, -1, 2 ** 31 - 1),
  /**
   * The knowledge parser (lib/knowledge/parse): one child process per file, at most PARSE_CONCURRENCY
   * at once. A child is SIGKILLed after PARSE_TIMEOUT_MS, when its RSS passes PARSE_MEMORY_MB + 256
   * (its V8 heap is capped at PARSE_MEMORY_MB; buffers and wasm live outside it), or when its reply
   * passes PARSE_MAX_OUTPUT_MB.
   */
  PARSE_TIMEOUT_MS: intWithDefault(60_000, 100, 3_600_000),
  PARSE_MEMORY_MB: intWithDefault(512, 64, 16_384),
  PARSE_CONCURRENCY: intWithDefault(2, 1, 64),
  PARSE_MAX_OUTPUT_MB: intWithDefault(32, 1, 1024),
  VISION_MODEL: optionalString,
  /**
   * Knowledge embeddings (lib/knowledge/embeddings.ts): `<group>:<model>` of a provider group with an
   * OpenAI-compatible `/embeddings` (`openai:text-embedding-3-small`); unset: the offline default.
   */
  /**
   * Chunks the retrieval caches of one process hold in all (lib/knowledge/search-cache.ts, ~4 KB
   * each with the offline embedding); least recently searched companies are dropped beyond it.
   */
  KNOWLEDGE_CACHE_CHUNKS: intWithDefault(400_000, 1_000, 100_000_000),
  EMBEDDING_MODEL: z.preprocess(
    emptyAsUndefined,
    z
      .string()
      .regex(/^[a-z0-9_-]+:.+$/, "must be <group>:<model>")
      .optional(),
  ),
  /** O₮ per million input tokens billed for EMBEDDING_MODEL's calls; unset: its list price (lib/knowledge/embed/pricing.ts). */
  EMBEDDING_PRICE_PER_M: z.preprocess(emptyAsUndefined, z.coerce.number().min(0).max(1_000_000).optional()),
  /** Tool rounds a run may take (model → tools → model …) before its last model call is made without tools. */
  TOOL_MAX_STEPS: intWithDefault(8, 1, 64),
  /** Tool calls executed per model reply; the rest get an error result without running. */
  TOOL_MAX_CALLS_PER_ROUND: intWithDefault(8, 1, 128),
  /** Tool calls executed per run; past it the calls get an error result and the next model call offers no tools. */
  TOOL_MAX_CALLS_PER_RUN: intWithDefault(32, 1, 1024),
  /** O₮ billed per CPU-second of company tools' Python (measured by the host); 0 bills nothing. */
  TOOL_CPU_OT_PER_S: z.preprocess(emptyAsUndefined, z.coerce.number().min(0).max(1_000_000).default(0)),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalUrl,
  OPENROUTER_API_KEY: optionalString,
  OPENROUTER_BASE_URL: optionalUrl,
  GEMINI_API_KEY: optionalString,
  GEMINI_BASE_URL: optionalUrl,
  ANTHROPIC_API_KEY: optionalString,
  ANTHROPIC_BASE_URL: optionalUrl,
});

export type ServerEnv = z.infer<typeof ServerEnv>;

export const env: ServerEnv = parseEnvWith(ServerEnv, process.env);

/** Provider variables are looked up by group name (`<GROUP>_API_KEY`), so groups added later need no code here. */
export function providerVar(name: string): string | undefined {
  const value = process.env[name];
  return value === "" ? undefined : value;
}
