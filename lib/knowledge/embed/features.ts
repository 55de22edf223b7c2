import { porterStem } from "../porter";

/**
 * PostgreSQL's `english` stop words (snowball's english.stop), so both sides drop the same words.
 * @internal
 */
export const ENGLISH_STOP_WORDS = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself " +
    "they them their theirs themselves what which who whom this that these those am is are was were be been being have has had " +
    "having do does did doing a an the and but if or because as until while of at by for with about against between into through " +
    "during before after above below to from up down in out on off over under again further then once here there when where why " +
    "how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now"
  ).split(" "),
);

/** Lowercased word tokens (letters and digits), stop words dropped, Porter-stemmed. */
export function stemmedTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    const w = m[0];
    if (ENGLISH_STOP_WORDS.has(w)) continue;
    out.push(/^[a-z]+$/.test(w) ? porterStem(w) : w);
  }
  return out;
}
