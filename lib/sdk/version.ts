import { createHash } from "node:crypto";
import { canonicalJson } from "@/lib/billing/canonical-json";
import type { SduiNode } from "./types";

/**
 * A view's `version`: the first 31 bits of the SHA-256 of its definition's canonical JSON, so it
 * changes whenever the definition does and nobody has to remember to bump it (a collision after an
 * edit has a 2^-31 chance). Positive, never 0.
 */
export function definitionVersion(definition: SduiNode): number {
  const digest = createHash("sha256").update(canonicalJson(definition)).digest();
  return digest.readUInt32BE(0) >>> 1 || 1;
}
