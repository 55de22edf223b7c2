import "server-only";
import { parseJsonObject, readBody } from "@/lib/http/read-json";
import { PARSE_OFF_LOOP_ABOVE_BYTES, parseJsonOffLoop } from "@/lib/cpu/pool";
import { COMPLETION_BODY_LIMIT, ChatCompletionInput } from "./schemas";

export interface CompletionBody {
  input: ChatCompletionInput;
  /** o200k tokens of the texts the model reads, when the worker counted them (large bodies). */
  textTokens?: number;
  /** SHA-256 of the data: images the worker hashed, keyed `message.part`. */
  imageDigests: Record<string, string>;
}

/**
 * Reads a chat-completion body: a small one on the event loop, a large one in the worker, which
 * also refuses texts that cannot fit the model's context window before anything else sees them.
 * The body's share of the process-wide body budget is given back once it is parsed.
 */
export async function readCompletionBody(req: Request): Promise<CompletionBody> {
  const body = await readBody(req, COMPLETION_BODY_LIMIT);
  try {
    if (body.size <= PARSE_OFF_LOOP_ABOVE_BYTES) {
      const input = ChatCompletionInput.parse(parseJsonObject(Buffer.concat(body.chunks).toString("utf8")));
      return { input, imageDigests: {} };
    }
    const parsed = await parseJsonOffLoop(body.chunks);
    const imageDigests: Record<string, string> = {};
    for (const d of parsed.digests) imageDigests[`${d.i}.${d.j}`] = d.sha256;
    return { input: ChatCompletionInput.parse(parsed.value), textTokens: parsed.textTokens, imageDigests };
  } finally {
    body.release();
  }
}
