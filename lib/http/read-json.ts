import type { z } from "zod";
import { AppError } from "@/lib/errors";
import { preReadBodies } from "@/lib/process-channels.mjs";
import { SMALL_BODY_BYTES, acquireBodyBytes } from "./body-budget";
import { jsonNestsDeeper, MAX_JSON_DEPTH } from "./json-depth.mjs";

export { jsonNestsDeeper, MAX_JSON_DEPTH };

const DEFAULT_JSON_LIMIT_BYTES = 1024 * 1024;
/**
 * Minimum average rate, after a grace period, for a body holding a share of the body budget; slower
 * is a 408, so a trickling client cannot keep other large bodies waiting until Node's request
 * timeout.
 */
const MIN_BODY_BYTES_PER_S = 1024 * 1024;
const SLOW_BODY_GRACE_MS = 5_000;

const tooLarge = (limit: number) =>
  new AppError("payload_too_large", `Request body exceeds ${Math.round(limit / 1024)} KiB`, {
    wireCode: "payload_too_large",
  });

export interface RawBody {
  chunks: Uint8Array[];
  size: number;
  /** Gives the body's share of the process-wide budget back (after parsing); idempotent. */
  release: () => void;
}

/**
 * Reads the body with a hard byte cap, whatever Content-Length claims. A body above
 * SMALL_BODY_BYTES first takes its size from the body budget (503 if its turn does not come).
 */
export async function readBody(req: Request, limit: number): Promise<RawBody> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const whole = preReadBodies.get()?.get(req);
  if (whole) {
    if (whole.byteLength > limit) throw tooLarge(limit);
    return { chunks: [whole], size: whole.byteLength, release: () => {} };
  }
  let held = 0;
  let size = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let tooSlow = false;
  let watchdog: NodeJS.Timeout | undefined;
  const releases: (() => void)[] = [];
  const release = () => {
    clearInterval(watchdog);
    releases.splice(0).forEach((r) => r());
  };
  const grow = async (bytes: number) => {
    releases.push(await acquireBodyBytes(bytes - held));
    held = bytes;
    // A body holding a share of the budget must keep arriving, or a client trickling bytes would
    // keep every other large body waiting.
    if (!watchdog) {
      const since = Date.now();
      watchdog = setInterval(() => {
        const owed = (MIN_BODY_BYTES_PER_S * (Date.now() - since - SLOW_BODY_GRACE_MS)) / 1000;
        if (size < owed) {
          tooSlow = true;
          clearInterval(watchdog);
          void reader?.cancel().catch(() => {});
        }
      }, 1000);
      watchdog.unref();
    }
  };
  try {
    if (Number.isFinite(declared) && declared > SMALL_BODY_BYTES) await grow(declared);
    const chunks: Uint8Array[] = [];
    if (req.body) {
      reader = req.body.getReader();
      for (;;) {
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch {
          // The client closed the connection mid-body: its fault, not ours (no one hears this 400).
          throw new AppError("invalid_request", "The connection closed before the request body ended", {
            wireCode: "incomplete_body",
          });
        }
        const { done, value } = next;
        if (tooSlow) {
          throw new AppError(
            "request_timeout",
            `The request body arrived slower than ${MIN_BODY_BYTES_PER_S / 1024} KiB/s`,
            { wireCode: "body_too_slow" },
          );
        }
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          await reader.cancel();
          throw tooLarge(limit);
        }
        // A body without Content-Length takes its share as it grows, doubling (at most the limit).
        if (size > SMALL_BODY_BYTES && size > held) await grow(Math.min(limit, Math.max(size, held * 2, 1024 * 1024)));
        chunks.push(value);
      }
    }
    clearInterval(watchdog);
    return { chunks, size, release };
  } catch (err) {
    release();
    throw err;
  }
}

async function readCapped(req: Request, limit: number): Promise<string> {
  const body = await readBody(req, limit);
  try {
    return Buffer.concat(body.chunks).toString("utf8");
  } finally {
    body.release();
  }
}

/**
 * Malformed JSON → 400 `invalid_json`; schema errors are ZodErrors the wrapper maps to 400 with
 * `param`; too large → 413. With `optional`, an empty body parses as `{}`.
 */
export async function readJson<S extends z.ZodType>(
  req: Request,
  schema: S,
  opts: { limitBytes?: number; optional?: boolean } = {},
): Promise<z.infer<S>> {
  const text = await readCapped(req, opts.limitBytes ?? DEFAULT_JSON_LIMIT_BYTES);
  return schema.parse(parseJsonObject(text, opts.optional));
}

/**
 * Malformed JSON or a non-object → 400 `invalid_json`; deeper than MAX_JSON_DEPTH → 400
 * `json_too_deep`, checked before parsing; with `optional`, empty text is `{}`.
 */
export function parseJsonObject(text: string, optional = false): Record<string, unknown> {
  if (jsonNestsDeeper(text, MAX_JSON_DEPTH)) {
    throw new AppError(
      "invalid_request",
      `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`,
      { wireCode: "json_too_deep" },
    );
  }
  const opts = { optional };
  let value: unknown;
  if (text.trim() === "") {
    if (!opts.optional)
      throw new AppError("invalid_request", "Request body must be a JSON object", { wireCode: "invalid_json" });
    value = {};
  } else {
    try {
      value = JSON.parse(text);
    } catch {
      throw new AppError("invalid_request", "Request body is not valid JSON", { wireCode: "invalid_json" });
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new AppError("invalid_request", "Request body must be a JSON object", { wireCode: "invalid_json" });
  }
  return value as Record<string, unknown>;
}

/** The URL's query parameters, the first value of each. */
export function queryParams(req: Request): Record<string, string> {
  const obj: Record<string, string> = {};
  for (const [k, v] of new URL(req.url).searchParams) if (!(k in obj)) obj[k] = v;
  return obj;
}

/** Parses URL query parameters (first value of each) against a schema. */
export function readQuery<S extends z.ZodType>(req: Request, schema: S): z.infer<S> {
  return schema.parse(queryParams(req));
}
