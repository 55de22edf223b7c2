// @ts-check
/**
 * The form guardrail rules also match on, so Unicode disguises do not slip past them: compatibility
 * forms decomposed (fullwidth `ｓ` → `s`, `ﬁ` → `fi`), combining marks, format and default-ignorable
 * characters removed (`se\u200bcret`, `se\u00adcret`, `se\u0301cret`), and common Cyrillic and
 * Greek look-alikes mapped to Latin (`ѕecret`). Each folded UTF-16 unit keeps the original span it
 * came from, so a match in the folded text redacts exactly the original characters.
 * Plain JavaScript: the CPU worker (lib/worker/cpu-thread.mjs) loads it as is.
 */

/**
 * The folded text and where each part came from: segment k starts at folded offset `at[k]` and
 * original offset `from[k]`; a `width` of 0 maps unit to unit (text kept as it was), another
 * width maps every unit of the segment to the one original character of that width.
 * @typedef {{ text: string; at: number[]; from: number[]; width: number[] }} FoldedText
 */

const NON_ASCII = /[^\x00-\x7f]/;
const STRIP = /[\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/** Look-alikes of Latin letters (Unicode's confusables.txt, the ones seen in filter evasion). */
const CONFUSABLES = new Map(
  Object.entries({
    а: "a",
    в: "b",
    е: "e",
    ё: "e",
    к: "k",
    м: "m",
    н: "h",
    о: "o",
    р: "p",
    с: "c",
    т: "t",
    у: "y",
    х: "x",
    ѕ: "s",
    і: "i",
    ї: "i",
    ј: "j",
    һ: "h",
    ԁ: "d",
    ԛ: "q",
    ԝ: "w",
    ӏ: "l",
    ɡ: "g",
    ɑ: "a",
    ɩ: "i",
    ʏ: "y",
    А: "A",
    В: "B",
    Е: "E",
    Ё: "E",
    К: "K",
    М: "M",
    Н: "H",
    О: "O",
    Р: "P",
    С: "C",
    Т: "T",
    У: "Y",
    Х: "X",
    Ѕ: "S",
    І: "I",
    Ї: "I",
    Ј: "J",
    Һ: "H",
    Ԁ: "D",
    Ԛ: "Q",
    Ԝ: "W",
    Ӏ: "I",
    α: "a",
    β: "b",
    ε: "e",
    ι: "i",
    κ: "k",
    ν: "v",
    ο: "o",
    ρ: "p",
    τ: "t",
    υ: "u",
    χ: "x",
    ω: "w",
    Α: "A",
    Β: "B",
    Ε: "E",
    Ζ: "Z",
    Η: "H",
    Ι: "I",
    Κ: "K",
    Μ: "M",
    Ν: "N",
    Ο: "O",
    Ρ: "P",
    Τ: "T",
    Υ: "Y",
    Χ: "X",
  }),
);

/** Folded forms by code point: the Basic Multilingual Plane in a table, the rest in a bounded map. */
const bmpFolds = /** @type {(string | undefined)[]} */ (new Array(0x10000));
const astralFolds = new Map();
const ASTRAL_FOLDS_MAX = 4096;

/** @param {number} cp */
function foldCodePoint(cp) {
  let out = cp < 0x10000 ? bmpFolds[cp] : astralFolds.get(cp);
  if (out !== undefined) return out;
  const ch = String.fromCodePoint(cp);
  out = "";
  for (const c of (CONFUSABLES.get(ch) ?? ch).normalize("NFKD").replace(STRIP, "")) out += CONFUSABLES.get(c) ?? c;
  if (cp < 0x10000) bmpFolds[cp] = out;
  else if (astralFolds.size < ASTRAL_FOLDS_MAX) astralFolds.set(cp, out);
  return out;
}

/**
 * The folded form of `text`, or null when folding changes nothing (ASCII text, the common case:
 * a single linear test, no copy). Kept stretches are sliced, not copied unit by unit.
 * @param {string} text
 * @returns {FoldedText | null}
 */
export function foldText(text) {
  if (!NON_ASCII.test(text)) return null;
  const pieces = [];
  /** @type {FoldedText} */
  const out = { text: "", at: [], from: [], width: [] };
  let length = 0;
  let kept = 0;
  const keep = (/** @type {number} */ to) => {
    if (to === kept) return;
    pieces.push(text.slice(kept, to));
    out.at.push(length);
    out.from.push(kept);
    out.width.push(0);
    length += to - kept;
  };
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (c < 0x80) {
      i++;
      continue;
    }
    const cp = /** @type {number} */ (text.codePointAt(i));
    const width = cp > 0xffff ? 2 : 1;
    const f = foldCodePoint(cp);
    if (f.length === width && f.codePointAt(0) === cp) {
      i += width;
      continue;
    }
    keep(i);
    if (f.length > 0) {
      pieces.push(f);
      out.at.push(length);
      out.from.push(i);
      out.width.push(width);
      length += f.length;
    }
    i += width;
    kept = i;
  }
  keep(text.length);
  out.text = pieces.join("");
  return out;
}

/** The segment of `folded` that holds folded offset `unit`. @param {FoldedText} folded @param {number} unit */
function segmentAt(folded, unit) {
  let lo = 0;
  let hi = folded.at.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (/** @type {number} */ (folded.at[mid]) <= unit) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The original offset of folded unit `unit`: [first, end) of the original it stands for. @param {FoldedText} folded @param {number} unit */
function originalOf(folded, unit) {
  const k = segmentAt(folded, unit);
  const from = /** @type {number} */ (folded.from[k]);
  const width = /** @type {number} */ (folded.width[k]);
  if (width > 0) return [from, from + width];
  const at = from + unit - /** @type {number} */ (folded.at[k]);
  return [at, at + 1];
}

/**
 * The original span of the folded span [from, to) (to > from).
 * @param {FoldedText} folded @param {number} from @param {number} to
 * @returns {[number, number]}
 */
export function originalSpan(folded, from, to) {
  return [/** @type {number} */ (originalOf(folded, from)[0]), /** @type {number} */ (originalOf(folded, to - 1)[1])];
}
