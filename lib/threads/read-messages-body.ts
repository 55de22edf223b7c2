import "server-only";
import type { z } from "zod";
import { parseJsonObject, readBody } from "@/lib/http/read-json";
import { PARSE_OFF_LOOP_ABOVE_BYTES, parseJsonOffLoop } from "@/lib/cpu/pool";
import { MESSAGES_BODY_LIMIT } from "./schemas";

/**
 * Reads a body carrying messages (one message, `{messages:[…]}`, or a new thread), as completions
 * read theirs: a small one on the event loop, one above 1 MiB (inline images) decoded, parsed,
 * checked and hashed in the CPU worker. The body's share of the body budget is given back once
 * it is parsed. `imageDigests` are the SHA-256s of its data: images, keyed `message.part`.
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
