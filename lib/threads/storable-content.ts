import { createHash } from "node:crypto";
import { dataUriSize } from "@/lib/providers/image-tokens";
import type { ChatMessage } from "@/lib/providers/types";

/**
 * What a thread keeps of a message: a `data:` image as its SHA-256, type and sizes, never its
 * bytes; text beyond MAX_STORED_TEXT_CHARS truncated with a count of the rest. The model and client
 * still get everything.
 * @internal
 */
export const MAX_STORED_TEXT_CHARS = 256 * 1024;

function storableText(text: string): string {
  if (text.length <= MAX_STORED_TEXT_CHARS) return text;
  return `${text.slice(0, MAX_STORED_TEXT_CHARS)}\n[… ${text.length - MAX_STORED_TEXT_CHARS} more characters not stored]`;
}

function storableImage(image: { url: string; detail?: string }, sha256: string | undefined) {
  if (!image.url.startsWith("data:")) return image;
  const comma = image.url.indexOf(",");
  const payload = image.url.length - comma - 1;
  const size = dataUriSize(image.url);
  return {
    url: `sha256:${sha256 ?? createHash("sha256").update(image.url).digest("hex")}`,
    mime_type: image.url.slice(5, image.url.indexOf(";")),
    // base64: 3 bytes per 4 characters (whitespace, rare, makes this a slight overestimate)
    size_bytes: Math.floor((payload * 3) / 4) - (image.url.endsWith("==") ? 2 : image.url.endsWith("=") ? 1 : 0),
    ...(size ? { width: size.width, height: size.height } : {}),
    ...(image.detail ? { detail: image.detail } : {}),
  };
}

/** `digests` holds SHA-256s already computed off the event loop, keyed `message.part`. */
export function storableContent(
  content: ChatMessage["content"],
  messageIndex: number,
  digests: Record<string, string> | undefined,
): ChatMessage["content"] {
  if (typeof content === "string") return storableText(content);
  if (!Array.isArray(content)) return content;
  return content.map((part, j) => {
    if (part.type === "text" && typeof (part as { text?: unknown }).text === "string")
      return { ...part, text: storableText((part as { text: string }).text) };
    if (part.type === "image_url") {
      const image = (part as { image_url: { url: string; detail?: string } }).image_url;
      return { ...part, image_url: storableImage(image, digests?.[`${messageIndex}.${j}`]) };
    }
    return part;
  }) as ChatMessage["content"];
}
