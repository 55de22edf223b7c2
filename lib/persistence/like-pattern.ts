/**
 * A LIKE/ILIKE pattern matching `text` anywhere, with the user's `%`, `_` and `\` taken literally.
 * Pair it with `ESCAPE '\'` (PostgreSQL's default escape, spelled out so a setting cannot change it).
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
