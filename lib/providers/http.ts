import "server-only";
import { Agent, errors as undiciErrors, type Dispatcher } from "undici";
import { env } from "@/lib/env";
import { log } from "@/lib/log";
import { UpstreamError } from "./types";

/** One keep-alive undici pool per process for every upstream. Timeouts: connect, first byte, idle gap in the body. */
let agent: Agent | undefined;
function dispatcher(): Agent {
  agent ??= new Agent({
    connect: { timeout: env.UPSTREAM_CONNECT_TIMEOUT_MS },
    headersTimeout: env.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
    bodyTimeout: env.UPSTREAM_IDLE_TIMEOUT_MS,
    keepAliveTimeout: 30_000,
    connections: 256,
  });
  return agent;
}

export interface UpstreamResponse {
  status: number;
  body: Dispatcher.ResponseData["body"];
}

/**
 * Strips anything secret-looking the provider might echo, and bounds the length.
 * @internal
 */
export function sanitizeUpstreamMessage(message: string, secrets: (string | undefined)[]): string {
  let out = message;
  for (const s of secrets) if (s && s.length >= 8) out = out.split(s).join("[redacted]");
  return out.replace(/\s+/g, " ").trim().slice(0, 500);
}

async function errorMessage(res: UpstreamResponse): Promise<string> {
  const text = await res.body.text().catch(() => "");
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof json.error === "string") return json.error;
    if (typeof json.error?.message === "string") return json.error.message;
    if (typeof json.message === "string") return json.message;
  } catch {
    // not JSON
  }
  return text || "no body";
}

const RETRYABLE_STATUS = (s: number) => s === 429 || s >= 500;

/**
 * Retry-After as delay-seconds or an HTTP date (RFC 9110 10.2.3), in ms; null when absent or unreadable.
 * @internal
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return null;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // An HTTP date names its weekday and month; anything else ("-5") is not one.
  const at = /[a-z]{3}/i.test(v) ? Date.parse(v) : Number.NaN;
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** A failure to open the connection: the provider never saw the request. */
function neverConnected(err: unknown): boolean {
  if (err instanceof undiciErrors.ConnectTimeoutError) return true;
  const code =
    (err as { code?: unknown; cause?: { code?: unknown } }).code ?? (err as { cause?: { code?: unknown } }).cause?.code;
  return (
    code === "ECONNREFUSED" ||
    code === "ENOTFOUND" ||
    code === "EAI_AGAIN" ||
    code === "EHOSTUNREACH" ||
    code === "ENETUNREACH"
  );
}

/**
 * POSTs JSON to an upstream. Non-2xx becomes an UpstreamError (retryable on 429/5xx) carrying the
 * provider's status and message; network errors and timeouts are retryable UpstreamErrors too.
 */
export async function postJson(args: {
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  secrets: (string | undefined)[];
  onDispatch?: (sent: boolean) => void;
}): Promise<UpstreamResponse> {
  const url = new URL(args.url);
  let res: Dispatcher.ResponseData;
  args.onDispatch?.(true);
  try {
    res = await dispatcher().request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: "POST",
      headers: { "content-type": "application/json", ...args.headers },
      body: JSON.stringify(args.body),
      signal: args.signal,
    });
  } catch (err) {
    if (args.signal.aborted) throw err;
    if (neverConnected(err)) args.onDispatch?.(false);
    const timeout = err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.ConnectTimeoutError;
    const what = timeout ? "timed out" : "could not be reached";
    // The network error names the upstream's address and port: logged, never sent to the client.
    log.warn({ err, provider: args.provider }, `upstream ${what}`);
    throw new UpstreamError(args.provider, null, `The ${args.provider} provider ${what}`, true);
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    const message = sanitizeUpstreamMessage(
      await errorMessage({ status: res.statusCode, body: res.body }),
      args.secrets,
    );
    throw new UpstreamError(
      args.provider,
      res.statusCode,
      `${args.provider} returned ${res.statusCode}: ${message}`,
      RETRYABLE_STATUS(res.statusCode),
      parseRetryAfter(res.headers["retry-after"]),
    );
  }
  return { status: res.statusCode, body: res.body };
}

/** Wraps a failure while reading the body (after the first byte) as a non-retryable UpstreamError. */
export function bodyError(provider: string, err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err;
  const timeout = err instanceof undiciErrors.BodyTimeoutError;
  log.warn({ err, provider }, "upstream response body failed");
  return new UpstreamError(
    provider,
    null,
    `The ${provider} provider's response ${timeout ? "stalled" : "broke off"}`,
    false,
  );
}
