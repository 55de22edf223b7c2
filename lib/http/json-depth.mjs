// @ts-check
/**
 * Deepest JSON nesting a body may have: validators walk JSON recursively and deep nesting overflows
 * the stack. Plain JS so the CPU worker checks the bodies it parses too.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests deeper than `max`: one pass, no recursion, brackets inside strings
 * ignored.
 * @param {string} text @param {number} max
 */
export function jsonNestsDeeper(text, max) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}
