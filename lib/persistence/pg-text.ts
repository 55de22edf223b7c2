import { z } from "zod";

/**
 * PostgreSQL cannot store two things a JavaScript string can hold: the NUL character (text and
 * jsonb both refuse U+0000) and unpaired UTF-16 surrogates (not encodable as UTF-8; jsonb refuses
 * their \uD8xx escapes). A request carrying either must end as a 400 or be stored without them,
 * never as a failed statement (a 500, and for a completion an answer already paid for upstream).
 */

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when PostgreSQL can store `s` as text. */
export function isStorableText(s: string): boolean {
  return !UNSTORABLE.test(s);
}

export const UNSTORABLE_MESSAGE = "must not contain NUL characters or unpaired UTF-16 surrogates";

/** `schema` (a string schema) that also refuses what PostgreSQL cannot store, with a clear 400. */
export function storableText<S extends z.ZodString>(schema: S) {
  return schema.refine(isStorableText, UNSTORABLE_MESSAGE);
}

/** For free-form JSON objects (metadata): the same check over every key and string value. */
export function isStorableJson(value: unknown): boolean {
  return !HAS_UNSTORABLE_ESCAPE.test(JSON.stringify(value) ?? "");
}

/**
 * In JSON.stringify's output (well-formed since ES2019) NUL is the escape \u0000 and an unpaired
 * surrogate the escape \uD800-\uDFFF (paired ones are written as the characters themselves): an
 * odd run of backslashes, then one of those escapes. An even run is an escaped backslash followed
 * by the letters "u0000" the user typed, which is fine.
 */
const ESCAPE = String.raw`(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})`;
const HAS_UNSTORABLE_ESCAPE = new RegExp(ESCAPE, "i");
const UNSTORABLE_ESCAPES = new RegExp(ESCAPE, "gi");

/**
 * JSON text for a jsonb parameter, with NUL and unpaired surrogates replaced by U+FFFD: used for
 * what we must store whatever it holds (the messages of a run, what a model answered). The caller
 * still gets the original; only the stored copy differs, in characters PostgreSQL cannot hold.
 */
export function toStorableJson(value: unknown): string {
  const text = JSON.stringify(value);
  // Without a "\u" escape there is nothing to replace (the common case: no regex run over the text).
  if (text === undefined || !text.includes("\\u")) return text;
  return HAS_UNSTORABLE_ESCAPE.test(text) ? text.replace(UNSTORABLE_ESCAPES, "$1\\ufffd") : text;
}
