import "server-only";
import type { ResolvedModel } from "@/lib/models";
import { completeModel } from "@/lib/providers/call-model";
import { countPromptTokens, countTextTokens } from "@/lib/providers/tokens";
import type { ChatMessage, Usage } from "@/lib/providers/types";
import type { LoadedImage } from "./load-image";

/** The description's output cap: a paragraph; the text in the image comes from OCR. */
export const VISION_MAX_OUTPUT_TOKENS = 300;

const PROMPT =
  "Describe this image for a reader who cannot see it, in at most one paragraph: what it shows, its layout and anything notable. " +
  "Do not transcribe long passages of text; they are extracted separately.";

/** What the vision model receives for one image: the bytes we loaded (and checked) as a data: URI, never the tenant's URL again. */
export function visionMessages(image: LoadedImage, detail?: string): ChatMessage[] {
  const url = `data:${image.mimeType};base64,${image.bytes.toString("base64")}`;
  return [
    {
      role: "user",
      content: [
        { type: "text", text: PROMPT },
        { type: "image_url", image_url: detail ? { url, detail } : { url } },
      ],
    },
  ];
}

/**
 * One image described by a vision model through the provider layer (retries and fallbacks as any
 * call).
 * @throws AppError upstream_error (502) when every upstream failed; the signal's reason.
 */
export async function describeImageWithModel(
  model: ResolvedModel,
  messages: ChatMessage[],
  signal: AbortSignal,
): Promise<{ text: string; usage: Usage }> {
  const target = { group: model.group, upstreamIds: model.upstreamIds };
  const result = await completeModel(
    target,
    { messages, params: {}, maxOutputTokens: VISION_MAX_OUTPUT_TOKENS },
    { signal },
  );
  const text = (result.content ?? "").trim();
  const usage = result.usage ?? {
    promptTokens: countPromptTokens(messages),
    completionTokens: countTextTokens(text),
    cachedTokens: 0,
  };
  return { text, usage };
}
