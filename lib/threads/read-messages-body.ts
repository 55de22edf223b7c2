import "server-only";
import type { z } from "zod";
import { parseJsonObject, readBody } from "@/lib/http/read-json";
import { PARSE_OFF_LOOP_ABOVE_BYTES, parseJsonOffLoop } from "@/lib/cpu/pool";
import { MESSAGES_BODY_LIMIT } from "./schemas";

/**
 * Reads a messages body as completions do: small ones on the event loop, large ones (inline images)
 * parsed, checked and hashed in the CPU worker; the body budget is returned once parsed.
 * `imageDigests` are keyed `message.part`.
 */
export async function readMessagesBody<S extends z.ZodType>(
  req: Request,
  schema: S,
  opts: { optional?: boolean } = {},
): Promise<{ input: z.infer<S>; imageDigests: Record<string, string> }> {
  const body = await readBody(req, MESSAGES_BODY_LIMIT);
  try {
    if (body.size <= PARSE_OFF_LOOP_ABOVE_BYTES) {
      return {
        input: schema.parse(parseJsonObject(Buffer.concat(body.chunks).toString("utf8"), opts.optional)),
        imageDigests: {},
      };
    }
    const parsed = await parseJsonOffLoop(body.chunks);
    const imageDigests: Record<string, string> = {};
    for (const d of parsed.digests) imageDigests[`${d.i}.${d.j}`] = d.sha256;
    return { input: schema.parse(parsed.value), imageDigests };
  } finally {
    body.release();
  }
}
