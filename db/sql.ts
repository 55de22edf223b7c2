import { SQL, sql as drizzleSql, StringChunk, type SQLChunk } from "drizzle-orm";

/** Each template's text chunks, made once per template (a template's strings are one object). */
const textChunks = new WeakMap<TemplateStringsArray, StringChunk[]>();

function chunksOf(strings: TemplateStringsArray): StringChunk[] {
  let chunks = textChunks.get(strings);
  if (!chunks) {
    chunks = strings.map((s) => new StringChunk(s));
    textChunks.set(strings, chunks);
  }
  return chunks;
}

function template(strings: TemplateStringsArray, ...params: unknown[]): SQL {
  if (params.length === 0 && strings[0] === "") return new SQL([]);
  const texts = chunksOf(strings);
  const chunks = new Array<unknown>(2 * params.length + 1);
  chunks[0] = texts[0];
  for (let i = 0; i < params.length; i++) {
    chunks[2 * i + 1] = params[i];
    chunks[2 * i + 2] = texts[i + 1];
  }
  return new SQL(chunks as SQLChunk[]);
}

/**
 * drizzle's `sql` (the same SQL objects, and its `raw`, `join`, `empty`…), but a template's text
 * chunks are made once, not per call: drizzle's tag made about 10 KiB of them per persisted call.
 */
export const sql: typeof drizzleSql = Object.assign(template, drizzleSql);
