import { createHash } from "node:crypto";
import { canonicalJson } from "@/lib/billing/canonical-json";
import type { SduiNode } from "./types";

/**
 * A view's `version`: the first 31 bits of the SHA-256 of its canonical JSON, so it changes with
 * the definition and nobody has to bump it. Positive, never 0.
 */
export function definitionVersion(definition: SduiNode): number {
  const digest = createHash("sha256").update(canonicalJson(definition)).digest();
  return digest.readUInt32BE(0) >>> 1 || 1;
}
