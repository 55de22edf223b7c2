/**
 * The Porter (1980) stemmer, after tartarus.org/martin/PorterStemmer: lowercase ASCII words in,
 * stems out; words of one or two letters unchanged. Used by the offline embedding and the retrieval
 * bench's peer.
 */

const isConsonantAt = (w: string, i: number): boolean => {
  const c = w[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 ? true : !isConsonantAt(w, i - 1);
  return true;
};

/** m(): the number of VC sequences in w[0..end). */
function measure(w: string, end: number): number {
  let n = 0;
  let i = 0;
  while (i < end && isConsonantAt(w, i)) i++;
  while (i < end) {
    while (i < end && !isConsonantAt(w, i)) i++;
    if (i >= end) break;
    n++;
    while (i < end && isConsonantAt(w, i)) i++;
  }
  return n;
}

const hasVowel = (w: string, end: number): boolean => {
  for (let i = 0; i < end; i++) if (!isConsonantAt(w, i)) return true;
  return false;
};

const endsDoubleConsonant = (w: string): boolean =>
  w.length >= 2 && w[w.length - 1] === w[w.length - 2] && isConsonantAt(w, w.length - 1);

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
const endsCvc = (w: string, end = w.length): boolean => {
  if (end < 3) return false;
  if (!isConsonantAt(w, end - 1) || isConsonantAt(w, end - 2) || !isConsonantAt(w, end - 3)) return false;
  const c = w[end - 1];
  return c !== "w" && c !== "x" && c !== "y";
};

/** Replace suffix `s` with `r` when the stem before it has m > minM. */
function replaceIf(w: string, s: string, r: string, minM: number): string | null {
  if (!w.endsWith(s)) return null;
  const stemEnd = w.length - s.length;
  return measure(w, stemEnd) > minM ? w.slice(0, stemEnd) + r : w;
}

const STEP2: [string, string][] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
  ["logi", "log"],
];
const STEP3: [string, string][] = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];
const STEP4 = [
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
];

/** Longer words are returned unchanged: no English word is this long, and a long run of `y` would be quadratic. */
const MAX_STEM_CHARS = 64;

export function porterStem(word: string): string {
  let w = word;
  if (w.length <= 2 || w.length > MAX_STEM_CHARS) return w;

  // Step 1a
  if (w.endsWith("sses")) w = w.slice(0, -2);
  else if (w.endsWith("ies")) w = w.slice(0, -2);
  else if (w.endsWith("ss")) {
    // unchanged
  } else if (w.endsWith("s")) w = w.slice(0, -1);

  // Step 1b
  let extra = false;
  if (w.endsWith("eed")) {
    if (measure(w, w.length - 3) > 0) w = w.slice(0, -1);
  } else if (w.endsWith("ed") && hasVowel(w, w.length - 2)) {
    w = w.slice(0, -2);
    extra = true;
  } else if (w.endsWith("ing") && hasVowel(w, w.length - 3)) {
    w = w.slice(0, -3);
    extra = true;
  }
  if (extra) {
    if (w.endsWith("at") || w.endsWith("bl") || w.endsWith("iz")) w += "e";
    else if (endsDoubleConsonant(w) && !/[lsz]$/.test(w)) w = w.slice(0, -1);
    else if (measure(w, w.length) === 1 && endsCvc(w)) w += "e";
  }

  // Step 1c
  if (w.endsWith("y") && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + "i";

  // Step 2
  for (const [s, r] of STEP2) {
    if (w.endsWith(s)) {
      w = replaceIf(w, s, r, 0) ?? w;
      break;
    }
  }
  // Step 3
  for (const [s, r] of STEP3) {
    if (w.endsWith(s)) {
      w = replaceIf(w, s, r, 0) ?? w;
      break;
    }
  }
  // Step 4: the longest matching suffix only.
  let best = "";
  for (const s of STEP4) if (w.endsWith(s) && s.length > best.length) best = s;
  if (best) {
    const stemEnd = w.length - best.length;
    if (measure(w, stemEnd) > 1) {
      if (best === "ion") {
        if (stemEnd > 0 && (w[stemEnd - 1] === "s" || w[stemEnd - 1] === "t")) w = w.slice(0, stemEnd);
      } else w = w.slice(0, stemEnd);
    }
  }

  // Step 5a
  if (w.endsWith("e")) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  // Step 5b
  if (measure(w, w.length) > 1 && endsDoubleConsonant(w) && w.endsWith("l")) w = w.slice(0, -1);
  return w;
}
