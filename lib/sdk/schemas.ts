import { z } from "zod";
import { storableText } from "@/lib/persistence/pg-text";

/** The definition vocabulary this server speaks (widget/VOCABULARY.md). */
const SDUI_VERSIONS = ["1"] as const;

/** `sdui`: absent or 1; anything else is a 400 naming it. */
export const SduiQuery = z.object({
  sdui: z.enum(SDUI_VERSIONS, { error: "must be 1: the only definition vocabulary this server serves" }).optional(),
});

/** Body of POST /v1/sdk/action (CONTRACT 5.4). `input` may be omitted for an action without fields. */
export const ActionRequest = z.strictObject({
  service: z.string().min(1).max(100),
  action: z.string().min(1).max(100),
  input: z.record(z.string(), z.unknown()).default({}),
  idempotency_key: storableText(z.string().min(1).max(255)).optional(),
});
export type ActionRequest = z.infer<typeof ActionRequest>;
