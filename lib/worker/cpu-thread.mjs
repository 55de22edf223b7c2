// A worker thread for CPU work on large request bodies, so the event loop never decodes, parses or
// tokenizes megabytes. Plain JS outside the bundle. Protocol: { id, op, ... } in, { id, ok, ... }
// out (see lib/cpu/pool.ts).
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import v8 from "node:v8";
import vm from "node:vm";
import { parentPort, workerData } from "node:worker_threads";
import { applyCompiledRules, compileMatcher } from "../guardrails/matchers.mjs";
import { jsonNestsDeeper, MAX_JSON_DEPTH } from "../http/json-depth.mjs";
import { SLICE_CHARS, tokenSlices, truncateTokens } from "../providers/token-slices.mjs";

const require = createRequire(import.meta.url);
/** @type {Record<string, number>} slug → context window (tokens) */
const contextWindows = workerData?.contextWindows ?? {};
/** No o200k token is longer than this many UTF-8 bytes, so a text has at least bytes/128 tokens. */
const MAX_TOKEN_BYTES = 128;
const DATA_URI = /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+$/i;
/** The schema's limit for one image URL (lib/completions/schemas.ts), enforced here so no oversized image crosses back. */
const MAX_IMAGE_URL_CHARS = 20 * 1024 * 1024;

// A full collection after each large job: V8 otherwise leaves several bodies' garbage uncollected
// between jobs.
v8.setFlagsFromString("--expose-gc");
const collect = vm.runInNewContext("gc");
const COLLECT_AFTER_BYTES = 4 * 1024 * 1024;

let tokenizer;
const PLAIN_TEXT = { disallowedSpecial: new Set() };
const o200k = () => (tokenizer ??= require("gpt-tokenizer/encoding/o200k_base"));
// Special-token strings in user text are plain text here, as in lib/providers/tokens.ts.
// Options cost a matcher rebuild per call, so they are passed only when a special token can be there.
const countPlainWithin = (text, limit) =>
  text.includes("<|") ? o200k().isWithinTokenLimit(text, limit, PLAIN_TEXT) : o200k().isWithinTokenLimit(text, limit);
const codec = {
  encode: (text) => (text.includes("<|") ? o200k().encode(text, PLAIN_TEXT) : o200k().encode(text)),
  decode: (tokens) => o200k().decode(tokens),
};

// Long runs are counted in slices (lib/providers/token-slices.mjs): BPE is quadratic in one pre-token's length.
const countWithin = (text, limit) => {
  const pieces = text.length <= 2 * SLICE_CHARS ? [text] : tokenSlices(text);
  if (pieces.length === 1) return countPlainWithin(text, limit);
  let total = 0;
  for (const piece of pieces) {
    const n = countPlainWithin(piece, Math.max(0, limit - total));
    if (n === false) return false;
    total += n;
  }
  return total;
};

/** Counts the tokens of texts, stopping as soon as `limit` is passed (then returns false). */
function countTexts(texts, limit) {
  let total = 0;
  for (const t of texts) {
    if (!t) continue;
    const n = countWithin(t, Math.max(0, limit - total));
    if (n === false) return false;
    total += n;
  }
  return total;
}

const fail = (status, code, message, param = null) => ({ ok: false, error: { status, code, message, param } });

/** Texts a model reads, gathered loosely from an unvalidated body (validation happens later). */
function bodyTexts(body) {
  const texts = [];
  const images = [];
  // A body that is one message (POST /v1/threads/{id}/messages) counts as messages[0].
  const messages = Array.isArray(body.messages) ? body.messages : typeof body.role === "string" ? [body] : [];
  messages.forEach((m, i) => {
    if (!m || typeof m !== "object") return;
    if (typeof m.content === "string") texts.push(m.content);
    else if (Array.isArray(m.content)) {
      m.content.forEach((p, j) => {
        if (p?.type === "text" && typeof p.text === "string") texts.push(p.text);
        const url = p?.type === "image_url" ? p.image_url?.url : undefined;
        if (typeof url === "string" && url.startsWith("data:")) images.push({ i, j, url });
      });
    }
    if (m.tool_calls) texts.push(JSON.stringify(m.tool_calls));
  });
  if (body.tools) texts.push(JSON.stringify(body.tools));
  return { texts, images };
}

/** UTF-8 text of the chunks; each intermediate is dropped before the next copy, so a body costs at most twice its size. */
function decodeChunks(chunks) {
  let joined = Buffer.concat(chunks.map((c) => new Uint8Array(c)));
  chunks.length = 0;
  if (joined.length > COLLECT_AFTER_BYTES) collect();
  const text = joined.toString("utf8");
  joined = null;
  if (text.length > COLLECT_AFTER_BYTES) collect();
  return text;
}

function parseBody({ chunks }) {
  const text = decodeChunks(chunks);
  if (jsonNestsDeeper(text, MAX_JSON_DEPTH)) {
    return fail(400, "json_too_deep", `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return fail(400, "invalid_json", "Request body is not valid JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body))
    return fail(400, "invalid_json", "Request body must be a JSON object");
  const { texts, images } = bodyTexts(body);
  const digests = [];
  for (const { i, j, url } of images) {
    const param = Array.isArray(body.messages)
      ? `messages.${i}.content.${j}.image_url.url`
      : `content.${j}.image_url.url`;
    if (url.length > MAX_IMAGE_URL_CHARS)
      return fail(400, "too_big", `Too big: expected string to have <=${MAX_IMAGE_URL_CHARS} characters`, param);
    if (!DATA_URI.test(url))
      return fail(400, "invalid_value", "must be an https:// URL or a data:image/…;base64 URI", param);
    digests.push({ i, j, sha256: createHash("sha256").update(url).digest("hex") });
  }
  const window = contextWindows[body.model];
  let textTokens;
  if (window) {
    const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t, "utf8"), 0);
    const tooLong = () =>
      fail(
        400,
        "context_length_exceeded",
        `This model's maximum context length is ${window} tokens; the messages alone are longer.`,
        "messages",
      );
    if (bytes / MAX_TOKEN_BYTES > window) return tooLong();
    const n = countTexts(texts, window);
    if (n === false) return tooLong();
    textTokens = n;
  }
  return { ok: true, value: body, textTokens, digests };
}

/** Compiled guardrail matchers by pattern, bounded (the server sends rules as data). */
const matchers = new Map();
const MATCHERS_MAX = 2000;

function matcherFor(match) {
  const key = `${match.type}:${match.pattern}`;
  let m = matchers.get(key);
  if (!m) {
    m = compileMatcher(match);
    if (matchers.size >= MATCHERS_MAX) matchers.delete(matchers.keys().next().value);
    matchers.set(key, m);
  }
  return m;
}

/** Guardrail rules over texts too large to scan on the event loop (lib/guardrails/apply.ts). */
function applyGuardrails({ rules, texts }) {
  const compiled = rules.map((r) => ({ ...r, matcher: matcherFor(r.match) }));
  return { ok: true, outcome: applyCompiledRules(compiled, texts) };
}

parentPort.on("message", (msg) => {
  const large = msg.op === "parse" && msg.chunks.reduce((n, c) => n + c.byteLength, 0) > COLLECT_AFTER_BYTES;
  let out;
  try {
    if (msg.op === "parse") out = parseBody(msg);
    else if (msg.op === "guardrails") out = applyGuardrails(msg);
    else if (msg.op === "count") {
      const n = countTexts(msg.texts, msg.limit);
      out = { ok: true, tokens: n === false ? null : n };
    } else if (msg.op === "truncate") out = { ok: true, ...truncateTokens(codec, msg.text, msg.maxTokens) };
    else out = fail(500, "internal_error", `unknown op ${msg.op}`);
  } catch (err) {
    out = fail(500, "internal_error", err instanceof Error ? err.message : String(err));
  }
  parentPort.postMessage({ id: msg.id, ...out });
  if (large) {
    out = undefined;
    msg.chunks = null;
    collect();
  }
});
