import type { z } from "zod";
import { AppError } from "@/lib/errors";

export const DEFAULT_JSON_LIMIT_BYTES = 1024 * 1024;

const tooLarge = (limit: number) =>
  new AppError("payload_too_large", `Request body exceeds ${Math.round(limit / 1024)} KiB`, { wireCode: "payload_too_large" });

/** Reads the body with a hard byte cap, whatever Content-Length claims. */
async function readCapped(req: Request, limit: number): Promise<string> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch {
      // The client closed the connection mid-body: its fault, not ours (no one hears this 400).
      throw new AppError("invalid_request", "The connection closed before the request body ended", { wireCode: "incomplete_body" });
    }
    const { done, value } = next;
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Parses a JSON body against a zod schema. Malformed JSON → 400 `invalid_json`; schema errors are
 * ZodErrors the route wrapper maps to 400 with `param`; too large → 413.
 * With `optional`, an empty body parses as `{}`.
 */
export async function readJson<S extends z.ZodType>(
  req: Request,
  schema: S,
  opts: { limitBytes?: number; optional?: boolean } = {},
): Promise<z.infer<S>> {
  const text = await readCapped(req, opts.limitBytes ?? DEFAULT_JSON_LIMIT_BYTES);
  let value: unknown;
  if (text.trim() === "") {
    if (!opts.optional) throw new AppError("invalid_request", "Request body must be a JSON object", { wireCode: "invalid_json" });
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
  return schema.parse(value);
}

/** Parses URL query parameters (first value of each) against a schema. */
export function readQuery<S extends z.ZodType>(req: Request, schema: S): z.infer<S> {
  const params = new URL(req.url).searchParams;
  const obj: Record<string, string> = {};
  for (const [k, v] of params) if (!(k in obj)) obj[k] = v;
  return schema.parse(obj);
}
