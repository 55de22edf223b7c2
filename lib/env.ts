import { z } from "zod";
import { DatabaseEnv, parseEnvWith } from "@/db/env";

/**
 * The only reader of process.env besides db/env.ts (which holds the database's variables so `db/`
 * needs no `lib/`). Parsed once at import; a bad value throws at boot naming the variable (CONTRACT
 * 2).
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
   * Reverse proxies that append to X-Forwarded-For. 0 uses the socket address; with N the client is
   * the Nth address from the right, and entries further left are the client's to forge.
   */
  TRUST_PROXY: intWithDefault(0, 0, 10),
  /** Lifetime of POST /v1/sdk/token's JWTs (CONTRACT 5.2); tests shorten it to watch the widget renew. */
  SDK_TOKEN_TTL_S: intWithDefault(300, 2, 86_400),
  /** Window of the panel's sign-in throttle (failures per email and client address, per email, per client address). */
  LOGIN_THROTTLE_WINDOW_S: intWithDefault(900, 1, 86_400),
  // Read by the production server (scripts/server/main.mjs) too; validated here so `npm start` fails at boot.
  WEB_CONCURRENCY: intWithDefault(1, 1, 64),
  // Prometheus scrape port (GET /metrics), bound on HOST's address; 0 turns metrics off. Read by
  // the server script too (lib/observability/metrics/serve.mjs, same rule).
  METRICS_PORT: intWithDefault(9464, 0, 65535),
  FAST_LANE: z.preprocess(emptyAsUndefined, z.enum(["0", "1"]).default("1")),
  LOG_LEVEL: z.preprocess(
    emptyAsUndefined,
    z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  ),
  /** A request taking at least this long is logged at `info`; the others only at `debug` (5xx always). */
  LOG_SLOW_REQUEST_MS: intWithDefault(1000, 1, 3_600_000),
  LOCAL_MODELS: z.preprocess(emptyAsUndefined, z.enum(["0", "1"]).default("1")),
  MAX_UPLOAD_MB: intWithDefault(50, 1, 1024),
  /** Uploaded documents' bytes, one file each; default `<DATA_DIR>/knowledge`. Split web/worker hosts must share it. */
  KNOWLEDGE_STORAGE_DIR: optionalString,
  /**
   * Indexing jobs (pg-boss): a job idle for KNOWLEDGE_JOB_EXPIRE_S is failed by maintenance and
   * retried KNOWLEDGE_JOB_RETRIES times with backoff, then the document is `failed`.
   */
  KNOWLEDGE_JOB_EXPIRE_S: intWithDefault(120, 1, 3600),
  KNOWLEDGE_JOB_RETRIES: intWithDefault(3, 0, 20),
  KNOWLEDGE_JOB_RETRY_DELAY_S: intWithDefault(5, 0, 3600),
  /** A live worker keeps its job from expiring (a heartbeat) for at most this long; then the attempt is abandoned. */
  KNOWLEDGE_JOB_MAX_S: intWithDefault(1800, 10, 86_400),
  JOBS_MAINTENANCE_S: intWithDefault(30, 1, 3600),
  JOBS_IDLE_CHECK_S: intWithDefault(5, 1, 3600),
  /** Idle poll interval of a job worker; a fallback, since producers wake workers in every process. */
  JOBS_POLL_S: intWithDefault(2, 1, 3600),
  /** Documents one process indexes at once; 0 leaves indexing to other processes (`npm run worker`). */
  KNOWLEDGE_WORKER_CONCURRENCY: intWithDefault(2, 0, 32),
  /**
   * Inbound webhooks: accepted events per minute per endpoint (the endpoint's own limit wins),
   * rotated-secret grace, and `webhook-event` job expiry, retries (then `dead`) and per-process
   * concurrency.
   */
  WEBHOOK_RATE_LIMIT_PER_MINUTE: intWithDefault(600, 1, 1_000_000),
  WEBHOOK_SECRET_GRACE_S: intWithDefault(86_400, 0, 30 * 86_400),
  WEBHOOK_JOB_EXPIRE_S: intWithDefault(120, 1, 3600),
  WEBHOOK_JOB_RETRIES: intWithDefault(3, 0, 20),
  WEBHOOK_JOB_RETRY_DELAY_S: intWithDefault(5, 0, 3600),
  WEBHOOK_JOB_MAX_S: intWithDefault(600, 10, 86_400),
  /** 0: this process accepts events but leaves their processing to other processes (`npm run worker`). */
  WEBHOOK_WORKER_CONCURRENCY: intWithDefault(4, 0, 64),
  /** Set by scripts/server/main.mjs, not by hand: the built jobs thread. Unset: no jobs thread. */
  COCKPIT_JOBS_THREAD_FILE: optionalString,
  /** Upstream HTTP: connect timeout, time to first byte (response headers), idle gap between stream chunks. */
  UPSTREAM_CONNECT_TIMEOUT_MS: intWithDefault(10_000, 1, 600_000),
  UPSTREAM_FIRST_BYTE_TIMEOUT_MS: intWithDefault(120_000, 1, 3_600_000),
  UPSTREAM_IDLE_TIMEOUT_MS: intWithDefault(300_000, 1, 3_600_000),
  /** Retries per upstream id on 429, 5xx and connection errors, before any byte reached the client. */
  UPSTREAM_RETRIES: intWithDefault(2, 0, 10),
  UPSTREAM_RETRY_BASE_MS: intWithDefault(200, 0, 60_000),
  /**
   * Python sandbox pool. A process is killed on timeout, RSS or CPU beyond its allowance (so a
   * leftover thread dies), and is replaced near SANDBOX_MAX_CALLS or SANDBOX_MAX_AGE_S by a
   * successor booted in the background. SANDBOX_MAX_CALLS=1 means a fresh process for every call.
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
  /** Python's heap (WebAssembly memory) per process: a larger allocation is a clean MemoryError. */
  SANDBOX_WASM_MAX_MB: intWithDefault(512, 64, 4096),
  SANDBOX_STDOUT_MAX_BYTES: intWithDefault(65_536, 0, 16 * 1024 * 1024),
  SANDBOX_RESULT_MAX_BYTES: intWithDefault(1024 * 1024, 1024, 64 * 1024 * 1024),
  /** Uid/gid the sandbox processes run as when the server runs as root; -1 keeps the server's. */
  SANDBOX_UID: intWithDefault(65534, -1, 2 ** 31 - 1),
  SANDBOX_GID: intWithDefault(65534, -1, 2 ** 31 - 1),
  /**
   * Knowledge parser: one child per file, at most PARSE_CONCURRENCY. A child is SIGKILLed on
   * timeout, on RSS past PARSE_MEMORY_MB + 256 (buffers and wasm live outside the V8 heap cap), or
   * a reply past PARSE_MAX_OUTPUT_MB.
   */
  PARSE_TIMEOUT_MS: intWithDefault(60_000, 100, 3_600_000),
  PARSE_MEMORY_MB: intWithDefault(512, 64, 16_384),
  PARSE_CONCURRENCY: intWithDefault(2, 1, 64),
  PARSE_MAX_OUTPUT_MB: intWithDefault(32, 1, 1024),
  /** Vision model that describes images for models that do not take them; unset: OCR text, size and type only. */
  VISION_MODEL: optionalString,
  /** Chunks one process's retrieval caches hold in all; least recently searched companies are dropped beyond it. */
  KNOWLEDGE_CACHE_CHUNKS: intWithDefault(400_000, 1_000, 100_000_000),
  /** `<group>:<model>` of a group with an OpenAI-compatible `/embeddings`; unset: the offline default. */
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
  /** O₮ billed per CPU-second of company tools' Python, as the host counts it; 0 bills nothing. */
  TOOL_CPU_OT_PER_S: z.preprocess(emptyAsUndefined, z.coerce.number().min(0).max(1_000_000).default(0)),
  // OpenTelemetry traces (lib/observability/tracing; start.mjs reads them before the app loads).
  /** OTLP/HTTP collector base URL (`/v1/traces` is appended); unset: tracing off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_EXPORTER_OTLP_PROTOCOL: z.preprocess(
    emptyAsUndefined,
    z.enum(["http/protobuf", "http/json"]).default("http/protobuf"),
  ),
  OTEL_SERVICE_NAME: z.preprocess(emptyAsUndefined, z.string().default("cockpit-gateway")),
  /** Prompts and answers in the upstream spans (`gen_ai.input.messages`, `gen_ai.output.messages`). */
  OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: z.preprocess(
    (v) => (typeof v === "string" && v !== "" ? v.toLowerCase() : undefined),
    z
      .enum(["true", "false"])
      .default("false")
      .transform((v) => v === "true"),
  ),
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
