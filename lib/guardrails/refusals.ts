/** The answer of a run a guardrail blocked (CONTRACT 6: a completion answers it with `finish_reason: "content_filter"`). */
export const INPUT_REFUSAL = "I can't help with that: the request was blocked by a content rule.";
export const OUTPUT_REFUSAL = "I can't share that answer: it was blocked by a content rule.";
export const CONTENT_FILTER = "content_filter";
