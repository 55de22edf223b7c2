import "server-only";
import Redis from "ioredis";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { withinDeadline } from "./deadline";

/** Longest a rate-limit command waits for Redis; a blackholed Redis would otherwise hold every call until TCP gives up. */
const REDIS_COMMAND_TIMEOUT_MS = 250;
/**
 * ioredis's own timeout, behind the deadline above (its timer would fire before the reply that a
 * busy process has not read yet) and alone for the sign-in throttle, which can afford it.
 */
const REDIS_COMMAND_BACKSTOP_MS = 1_000;
/** While the circuit is open and the connection looks alive, how often a probe tries Redis. */
const REDIS_PROBE_EVERY_MS = 250;
/** Cap of the reconnect backoff: Redis is back in use at most about this long after it returns. */
const RECONNECT_MAX_MS = 500;
/** A circuit that trips again within this long of closing counts as flapping. */
const FLAP_WINDOW_MS = 30_000;
/** Longest a flapping circuit is held open before the next probe may close it. */
const MAX_HOLD_MS = 30_000;

/** `closed`: Redis counts. `open`: Redis is away, PostgreSQL counts. `connecting`: no answer yet since start. */
type CircuitState = "connecting" | "closed" | "open";

/**
 * The rate limits' Redis client behind a breaker: any loss, error or timeout opens it and callers
 * use PostgreSQL. A probe running the limiter's own Lua script (a Redis that answers PING but
 * refuses scripts stays open) closes it. One log line per change of store, never one per call.
 */
export class RedisCircuit {
  readonly client: Redis;
  private state: CircuitState = "connecting";
  private readonly probeLimiter: RateLimiterRedis;
  private probing = false;
  /** A silent connection is being replaced: its `close` has not come yet. */
  private replacing = false;
  private probeTimer: NodeJS.Timeout | undefined;
  private closedAt = 0;
  /** How long the circuit stays open at least, doubled each time it flaps. */
  private holdMs = 0;
  private openedAt = 0;
  private readonly settled: Promise<void>;
  private settle!: () => void;

  constructor(url: string) {
    this.client = new Redis(url, {
      // Without a connection a command fails at once instead of queueing behind the reconnect.
      enableOfflineQueue: false,
      commandTimeout: REDIS_COMMAND_BACKSTOP_MS,
      connectTimeout: 1_000,
      // How long a connection being replaced may take to close (FIN) before it is destroyed: a
      // silent peer never answers the FIN, and the reconnect waits for the close.
      disconnectTimeout: REDIS_COMMAND_TIMEOUT_MS,
      // A command cut by a lost connection fails now (the caller falls back), and is not resent on
      // reconnect: its caller has already been counted in PostgreSQL.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(attempt * 50, RECONNECT_MAX_MS),
    });
    this.probeLimiter = new RateLimiterRedis({
      storeClient: this.client,
      keyPrefix: "rl-probe",
      points: 1_000_000_000,
      duration: 1,
    });
    this.settled = new Promise((resolve) => (this.settle = resolve));
    // Without an `error` listener ioredis prints every reconnect failure as "[ioredis] Unhandled
    // error event" on stderr. The state change is logged once, in trip().
    this.client.on("error", (err: Error) => this.trip(err));
    this.client.on("close", () => {
      this.replacing = false;
      this.trip(new Error("Redis connection closed"));
    });
    this.client.on("ready", () => void this.probe());
    // At start, calls wait for the first connection at most one command timeout.
    setTimeout(() => this.settle(), REDIS_COMMAND_TIMEOUT_MS).unref();
  }

  /** Whether the next command should go to Redis. Waits (≤ one command timeout) only for the first connection. */
  async useRedis(): Promise<boolean> {
    if (this.state === "connecting") await this.settled;
    return this.state === "closed";
  }

  /** A Redis command of the rate limits, failed when Redis has not answered within its deadline. */
  run<T>(command: Promise<T>): Promise<T> {
    return withinDeadline(command, REDIS_COMMAND_TIMEOUT_MS, "Redis command timed out");
  }

  get status(): "up" | "down" {
    return this.state === "closed" ? "up" : "down";
  }

  /** A command failed or timed out, or the connection was lost: PostgreSQL counts until a probe succeeds. */
  trip(err: unknown): void {
    if (this.state === "open") {
      log.debug({ err }, "rate-limit Redis still unavailable");
      return;
    }
    const now = Date.now();
    // A circuit that flaps (closes, then trips again soon) is held open longer each time, so a
    // Redis that answers probes but fails under load costs a few log lines a minute, not a stream.
    if (this.closedAt && now - this.closedAt < FLAP_WINDOW_MS)
      this.holdMs = Math.min(MAX_HOLD_MS, Math.max(REDIS_PROBE_EVERY_MS, this.holdMs * 2));
    else this.holdMs = 0;
    this.state = "open";
    this.openedAt = now;
    this.settle();
    log.warn(
      { event: "rate_limit_store", redis: "down", store: "postgres", err },
      "Redis unavailable: rate limits are counted in PostgreSQL until it answers again",
    );
    this.probeTimer ??= setInterval(() => void this.probe(), REDIS_PROBE_EVERY_MS);
    this.probeTimer.unref();
  }

  private close(): void {
    if (this.state === "closed") return;
    const was = this.state;
    this.state = "closed";
    this.closedAt = Date.now();
    this.settle();
    clearInterval(this.probeTimer);
    this.probeTimer = undefined;
    const fields = { event: "rate_limit_store", redis: "up", store: "redis" };
    if (was === "open")
      log.warn(
        { ...fields, downMs: this.closedAt - this.openedAt },
        "Redis answers again: rate limits are counted in Redis",
      );
    else log.info(fields, "Redis connected: rate limits are counted in Redis");
  }

  /** The half-open step: one real command; success closes the circuit, failure keeps it open. */
  private async probe(): Promise<void> {
    if (this.probing || this.state === "closed" || this.client.status !== "ready") return;
    if (this.state === "open" && Date.now() - this.openedAt < this.holdMs) return;
    this.probing = true;
    try {
      await this.run(this.probeLimiter.consume("probe", 1));
      this.close();
    } catch (err) {
      this.trip(err);
      // A connection that stays silent is replaced: whatever broke it (a partition, a NAT that
      // forgot it) a fresh one either connects or fails, and its `ready` probes again.
      if (this.client.status === "ready" && !this.replacing) {
        this.replacing = true;
        this.client.disconnect(true);
      }
    } finally {
      this.probing = false;
    }
  }
}

// On globalThis: a bundler may load this module once per route bundle, and the circuit (with its
// connection and its log lines) is per process.
const holder = globalThis as { __cockpitRedisCircuit?: RedisCircuit };

/** The process's circuit, created on first use; undefined when REDIS_URL is unset. */
export function redisCircuit(): RedisCircuit | undefined {
  if (!env.REDIS_URL) return undefined;
  return (holder.__cockpitRedisCircuit ??= new RedisCircuit(env.REDIS_URL));
}

/** For readiness: `up` while Redis counts, `down` while PostgreSQL does (calls still limited), `off` without REDIS_URL. */
export function redisState(): "up" | "down" | "off" {
  return redisCircuit()?.status ?? "off";
}

/** redisState() without opening a connection: undefined while this process has not used Redis. */
export function redisStateIfUsed(): "up" | "down" | "off" | undefined {
  if (!env.REDIS_URL) return "off";
  return holder.__cockpitRedisCircuit?.status;
}
