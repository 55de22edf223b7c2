// The one bounded path to the o200k tokenizer, shared by the event loop (lib/providers/tokens.ts)
// and the CPU worker (lib/worker/cpu-thread.mjs). Plain JavaScript so the worker can load it as is.

/**
 * BPE is quadratic in one pre-token's length, and o200k makes one pre-token of a run of
 * non-whitespace, whitespace, or punctuation with `\r`, `\n` and `/`. Runs are cut at SLICE_CHARS;
 * text without such runs stays whole and exact.
 */
export const SLICE_CHARS = 256;

/** JavaScript's `\s`, which the tokenizer's pre-tokenizer uses. */
function isSpace(c) {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * The text in pieces that each tokenize in linear time; joined they give it back. One scan, no
 * regex (a regex overflowed V8's stack on a huge run). Never cuts a surrogate pair.
 * @param {string} text
 * @returns {string[]}
 */
export function tokenSlices(text) {
  const pieces = [];
  let start = 0;
  let nonSpace = 0;
  let space = 0;
  let tail = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      space++;
      nonSpace = 0;
    } else {
      nonSpace++;
      space = 0;
    }
    tail = c === 10 || c === 13 || c === 47 ? tail + 1 : 0;
    if ((nonSpace >= SLICE_CHARS || space >= SLICE_CHARS || tail >= SLICE_CHARS) && !(c >= 0xd800 && c <= 0xdbff)) {
      pieces.push(text.slice(start, i + 1));
      start = i + 1;
      nonSpace = space = tail = 0;
    }
  }
  if (start < text.length || pieces.length === 0) pieces.push(text.slice(start));
  return pieces;
}

/**
 * No o200k token stands for more characters than this, so n tokens never cover more than n × this.
 * @internal
 */
export const MAX_TOKEN_CHARS = 128;

/**
 * The text cut to its first `maxTokens` tokens, always a prefix; only a prefix that can hold
 * maxTokens + 1 tokens is encoded, so the work is bounded by maxTokens.
 * @param {{ encode: (text: string) => number[]; decode: (tokens: number[]) => string }} codec
 * @param {string} text
 * @param {number} maxTokens
 * @returns {{ text: string; truncated: boolean }}
 */
export function truncateTokens(codec, text, maxTokens) {
  const reach = (maxTokens + 1) * MAX_TOKEN_CHARS;
  const scope = text.length > reach ? text.slice(0, reach) : text;
  const kept = [];
  for (const piece of scope.length <= 2 * SLICE_CHARS ? [scope] : tokenSlices(scope)) {
    for (const t of codec.encode(piece)) {
      if (kept.length === maxTokens) return { text: prefixOf(text, codec.decode(kept)), truncated: true };
      kept.push(t);
    }
  }
  return scope === text ? { text, truncated: false } : { text: prefixOf(text, codec.decode(kept)), truncated: true };
}

/** The decoded tokens as a prefix of the text: a cut inside a character decodes to U+FFFD, dropped. */
function prefixOf(text, decoded) {
  let out = decoded;
  while (out && !text.startsWith(out)) out = out.slice(0, -1);
  return out;
}
