import { z } from "zod";

/**
 * Topics are dot-separated segments of `[A-Za-z0-9_-]`. Patterns add `*` (exactly one segment) and
 * a last `>` (one or more segments): `orders.*` matches `orders.created`, `orders.>` also
 * `orders.eu.created`, neither `orders`.
 */
const TOPIC_MAX_CHARS = 200;
const SEGMENT = "[A-Za-z0-9_-]+";
const TOPIC_RE = new RegExp(`^${SEGMENT}(\\.${SEGMENT})*$`);
const PATTERN_RE = new RegExp(`^((${SEGMENT}|\\*)(\\.(${SEGMENT}|\\*))*(\\.>)?|>)$`);

export const EventTopic = z
  .string()
  .min(1)
  .max(TOPIC_MAX_CHARS)
  .regex(TOPIC_RE, "must be dot-separated segments of letters, digits, '_' and '-' (e.g. orders.created)");

/** @internal */
export const TopicPattern = z
  .string()
  .min(1)
  .max(TOPIC_MAX_CHARS)
  .regex(
    PATTERN_RE,
    "must be dot-separated segments of letters, digits, '_' and '-', '*' for one segment, '>' last for the rest (e.g. orders.*)",
  );

export const TopicPatterns = z.array(TopicPattern).max(50);

/**
 * True when `topic` matches `pattern` (see the wildcards above). Both are assumed valid.
 * @internal
 */
export function topicMatches(pattern: string, topic: string): boolean {
  const p = pattern.split(".");
  const t = topic.split(".");
  for (let i = 0; i < p.length; i++) {
    const seg = p[i]!;
    if (seg === ">") return t.length > i;
    if (i >= t.length) return false;
    if (seg !== "*" && seg !== t[i]) return false;
  }
  return p.length === t.length;
}

export const matchesAny = (patterns: readonly string[], topic: string): boolean =>
  patterns.some((p) => topicMatches(p, topic));
