import "server-only";
import type { z } from "zod";
import { PARSE_OFF_LOOP_ABOVE_BYTES, parseJsonOffLoop } from "@/lib/cpu/pool";
import { COMPLETION_BODY_LIMIT } from "@/lib/completions/schemas";
import { parseJsonObject, readBody } from "@/lib/http/read-json";

/**
 * Reads a Messages body as completions read theirs: images arrive inline, so the same size limit;
 * a large body is parsed off the event loop. Its share of the body budget is given back once parsed.
 */
export async function readMessagesBody<S extends z.ZodType>(req: Request, schema: S): Promise<z.infer<S>> {
  const body = await readBody(req, COMPLETION_BODY_LIMIT);
  try {
    if (body.size <= PARSE_OFF_LOOP_ABOVE_BYTES)
      return schema.parse(parseJsonObject(Buffer.concat(body.chunks).toString("utf8")));
    return schema.parse((await parseJsonOffLoop(body.chunks)).value);
  } finally {
    body.release();
  }
}
