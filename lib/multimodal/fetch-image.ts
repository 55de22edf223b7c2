import { errors as undiciErrors, type Dispatcher } from "undici";
import { AppError } from "@/lib/errors";
import { createGuardedAgent, RefusedAddressError, refusal, type GuardOptions } from "@/lib/net/guarded-agent";
import { blockedReason } from "@/lib/net/ip-policy";
import { imageSize } from "@/lib/providers/image-tokens";
import { sniffImageType, type ImageMime } from "./image-type";

const IMAGE_FETCH_DEFAULTS = {
  maxBytes: 20 * 1024 * 1024,
  timeoutMs: 10_000,
  maxRedirects: 3,
} as const;

export interface FetchImageOptions extends Pick<GuardOptions, "allowAddresses" | "ca" | "resolve"> {
  /** Where the URL sits in the request (`messages.0.content.1.image_url`): the 400's `param`. */
  param: string;
  maxBytes?: number;
  /** Total time for every hop, headers and body together. */
  timeoutMs?: number;
  maxRedirects?: number;
  /** The caller's cancellation (client gone): rethrown as is, never turned into a 400. */
  signal?: AbortSignal;
}

export interface FetchedImage {
  bytes: Buffer;
  mimeType: ImageMime;
  width: number | null;
  height: number | null;
  /** The URL the bytes came from, after redirects. */
  url: string;
  redirects: number;
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);

/**
 * Fetches a tenant's image URL SSRF-safely: HTTPS only, every hop's address checked at connect
 * (lib/net), bounded redirects, byte and time caps, and only PNG, JPEG, GIF or WebP bytes.
 * @throws AppError 400 `invalid_image_url` naming `param` for any refused or failed fetch; the
 * abort reason.
 */
export async function fetchImage(rawUrl: string, opts: FetchImageOptions): Promise<FetchedImage> {
  const maxBytes = opts.maxBytes ?? IMAGE_FETCH_DEFAULTS.maxBytes;
  const timeoutMs = opts.timeoutMs ?? IMAGE_FETCH_DEFAULTS.timeoutMs;
  const maxRedirects = opts.maxRedirects ?? IMAGE_FETCH_DEFAULTS.maxRedirects;
  const refuse = (message: string, cause?: unknown) =>
    new AppError("invalid_request", message, { param: opts.param, wireCode: "invalid_image_url", cause });

  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const agent = createGuardedAgent({
    allowAddresses: opts.allowAddresses,
    ca: opts.ca,
    resolve: opts.resolve,
    connectTimeoutMs: timeoutMs,
    headersTimeoutMs: timeoutMs,
    bodyTimeoutMs: timeoutMs,
  });

  const allow = new Set(opts.allowAddresses ?? []);
  let url = checkUrl(rawUrl, allow, refuse);
  try {
    for (let redirects = 0; ; redirects++) {
      const res = await agent.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: "GET",
        headers: {
          accept: "image/png, image/jpeg, image/gif, image/webp",
          "user-agent": "cockpit-gateway-image-fetch",
        },
        signal,
      });
      if (REDIRECT.has(res.statusCode)) {
        discard(res.body);
        const location = res.headers.location;
        if (typeof location !== "string")
          throw refuse(`The image URL answered HTTP ${res.statusCode} without a Location.`);
        if (redirects >= maxRedirects) throw refuse(`The image URL redirected more than ${maxRedirects} times.`);
        url = checkUrl(new URL(location, url).href, allow, refuse, "redirects to");
        continue;
      }
      if (res.statusCode < 200 || res.statusCode > 299) {
        discard(res.body);
        throw refuse(`The image URL answered HTTP ${res.statusCode}.`);
      }
      const type = headerValue(res.headers["content-type"]);
      if (type && !/^image\//i.test(type.trim())) {
        discard(res.body);
        throw refuse(`The image URL served '${type.split(";")[0]!.trim().slice(0, 100)}', not an image.`);
      }
      const length = Number(headerValue(res.headers["content-length"]));
      if (length > maxBytes) {
        discard(res.body);
        throw refuse(`The image is larger than ${maxBytes} bytes.`);
      }
      const bytes = await readCapped(res.body, maxBytes, () => refuse(`The image is larger than ${maxBytes} bytes.`));
      const mimeType = sniffImageType(bytes);
      if (!mimeType) throw refuse("The image URL did not serve a PNG, JPEG, GIF or WebP image.");
      const size = imageSize(bytes);
      return { bytes, mimeType, width: size?.width ?? null, height: size?.height ?? null, url: url.href, redirects };
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    if (opts.signal?.aborted) throw opts.signal.reason;
    throw refuse(failureMessage(err, timeout.aborted, timeoutMs), err);
  } finally {
    void agent.destroy().catch(() => {});
  }
}

/**
 * The connection-free checks (scheme, credentials, literal IPs in every spelling) for URLs a vision
 * provider fetches itself: a URL naming a private address outright is refused early. Host names are
 * not resolved.
 * @throws AppError 400 `invalid_image_url` naming `param`.
 */
export function checkImageUrl(rawUrl: string, param: string): void {
  checkUrl(
    rawUrl,
    new Set(),
    (message) => new AppError("invalid_request", message, { param, wireCode: "invalid_image_url" }),
  );
}

/** Parses and checks what can be checked before any connection: scheme, credentials, literal addresses. */
function checkUrl(raw: string, allow: ReadonlySet<string>, refuse: (m: string) => AppError, verb = "points to"): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse("The image URL is not a valid URL.");
  }
  if (url.protocol !== "https:")
    throw refuse(`The image URL ${verb} a ${url.protocol.replace(/:$/, "")} URL; only https is fetched.`);
  if (url.username || url.password) throw refuse("The image URL must not carry credentials.");
  // The WHATWG parser already turned every IPv4 spelling (0x7f.1, 2130706433, 0177.0.0.1, 127.1)
  // into a dotted quad and compressed IPv6, so a literal is judged here in its one canonical form.
  if (blockedReason(url.hostname) !== "not an IP address") {
    const why = refusal(url.hostname, Number(url.port) || 443, allow);
    if (why) throw refuse(`The image URL ${verb} a ${why} address; only public addresses are fetched.`);
  }
  return url;
}

/** Drops a body we will not read. Without a listener, undici's abort error would be unhandled. */
function discard(body: Dispatcher.ResponseData["body"]): void {
  body.on("error", () => {});
  body.destroy();
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

async function readCapped(
  body: Dispatcher.ResponseData["body"],
  maxBytes: number,
  tooLarge: () => AppError,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      discard(body);
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

function findCause<T>(err: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++)
    if (e instanceof type) return e;
  return undefined;
}

function failureMessage(err: unknown, timedOut: boolean, timeoutMs: number): string {
  // A name that resolves privately and one that does not resolve get the same answer, so a tenant
  // cannot map our internal DNS names through this error.
  const unreachable = "The image URL's host does not resolve to a public address.";
  if (findCause(err, RefusedAddressError)) return unreachable;
  if (timedOut || findCause(err, undiciErrors.HeadersTimeoutError) || findCause(err, undiciErrors.BodyTimeoutError)) {
    return `The image URL did not deliver the image within ${timeoutMs} ms.`;
  }
  const code = (err as { code?: unknown }).code;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return unreachable;
  return "The image could not be fetched from its URL.";
}
