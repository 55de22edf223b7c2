// @ts-check
/**
 * Deepest nesting of arrays and objects a JSON body may have. Validators and the code after them
 * walk JSON recursively, and thousands of levels overflow the stack (a RangeError, a 500). Plain
 * JavaScript: the CPU worker (lib/worker/cpu-thread.mjs) checks the bodies it parses too.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays/objects deeper than `max`: one pass over the text, no recursion
 * (brackets inside strings do not count).
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
