import { z } from "zod";

const TextPart = z.strictObject({ type: z.literal("text"), text: z.string() });
/**
 * A data: URI longer than CHARSET_CHECKED_BELOW can only come in a body large enough to have been
 * parsed in the CPU worker, which checked its base64 alphabet there (a regex over 20 MB costs the
 * event loop ~125 ms); here only its head is checked.
 */
const CHARSET_CHECKED_BELOW = 1024 * 1024;
const DATA_URI = /^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/=\s]+$/i;
const ImageUrl = z
  .string()
  .max(20 * 1024 * 1024)
  .refine(
    (u) =>
      /^https:\/\/[^\s]+$/i.test(u) ||
      (u.length < CHARSET_CHECKED_BELOW ? DATA_URI.test(u) : DATA_URI.test(u.slice(0, 4096))),
    { message: "must be an https:// URL or a data:image/…;base64 URI" },
  );
const ImagePart = z.strictObject({
  type: z.literal("image_url"),
  image_url: z.strictObject({ url: ImageUrl, detail: z.enum(["auto", "low", "high"]).optional() }),
});
/** A content part: text or an image (HTTPS URL or data: URI); chat completions' messages take the same parts. */
export const ContentPartInput = z.discriminatedUnion("type", [TextPart, ImagePart]);
