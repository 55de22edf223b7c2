import type { SQL } from "drizzle-orm";
import { sql } from "@/db/sql";

/**
 * The readable text of a stored message's `content` (a string, or the `text` parts of an array),
 * NULL when it has none; images and other parts are left out.
 */
export function messageTextSql(content: SQL): SQL<string | null> {
  return sql<string | null>`CASE jsonb_typeof(${content})
    WHEN 'string' THEN ${content} #>> '{}'
    WHEN 'array' THEN (SELECT string_agg(p ->> 'text', ' ') FROM jsonb_array_elements(${content}) AS p
      WHERE p ->> 'type' = 'text')
  END`;
}

const SNIPPET_CHARS = 160;

/**
 * One line of at most `SNIPPET_CHARS` for a list: whitespace folded, and when `around` is found
 * (case-insensitively) the window is moved to show it, with ellipses where text was cut.
 */
export function textSnippet(text: string, around?: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat.length <= SNIPPET_CHARS) return flat;
  const at = around ? flat.toLowerCase().indexOf(around.toLowerCase()) : -1;
  // Keep some words before the match so it reads in context.
  const start = at > SNIPPET_CHARS / 3 ? Math.min(at - Math.floor(SNIPPET_CHARS / 3), flat.length - SNIPPET_CHARS) : 0;
  const end = start + SNIPPET_CHARS;
  return `${start > 0 ? "…" : ""}${flat.slice(start, end).trim()}${end < flat.length ? "…" : ""}`;
}
