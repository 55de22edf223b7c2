import "server-only";
import { endHold, holdCredit } from "@/lib/billing/lease";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { costMicro, resolveModel, worstCaseMicro, type ResolvedModel } from "@/lib/models";
import { describeLoadedImage, localDescription } from "@/lib/multimodal/describe-local";
import { describeImageWithModel, VISION_MAX_OUTPUT_TOKENS, visionMessages } from "@/lib/multimodal/describe-with-model";
import { checkImageUrl } from "@/lib/multimodal/fetch-image";
import { loadImage } from "@/lib/multimodal/load-image";
import { ocrImage } from "@/lib/multimodal/ocr";
import { countPromptTokens, countTextTokens } from "@/lib/providers/tokens";
import type { ChatMessage, ContentPart } from "@/lib/providers/types";
import type { MultimodalOutput, RunBill, RunOutcome, RunPrompt, RunRequest, Stage } from "../context";
import { addStep, STEP_TYPE } from "../steps";
import { inStepSpans } from "@/lib/observability/tracing/step-span";

/** What the multimodal stage reads and writes. */
type Ctx = RunRequest & RunPrompt & MultimodalOutput & RunBill & RunOutcome;

/** What a multimodal step keeps of each image's text (the full text went to the model). */
const STEP_TEXT_CHARS = 4000;

function imagesStep(ctx: Ctx, started: number, handling: string, images: FoundImage[], texts?: string[]): void {
  addStep(ctx, STEP_TYPE.multimodal, started, {
    handling,
    vision_model:
      handling === "described" ? (ctx.stageCalls?.find((c) => c.stage === "multimodal")?.model ?? null) : null,
    images: images.map((img, i) => ({
      param: img.param,
      source: img.url.startsWith("data:") ? "data_uri" : "url",
      ...(texts ? { text: texts[i]!.slice(0, STEP_TEXT_CHARS) } : {}),
    })),
  });
}

type ImagePart = { type: "image_url"; image_url: { url: string; detail?: string } };

interface FoundImage {
  /** Index in ctx.messages. */
  message: number;
  part: number;
  url: string;
  detail?: string;
  /** `messages.N.content.M.image_url`, N counted in the request as given (system messages included). */
  param: string;
}

/**
 * Images processed at once for one call: fetches overlap, and a call holds at most this many of
 * the OCR worker's queue slots (lib/multimodal/ocr.ts MAX_QUEUED), so one request with many
 * images cannot make every other caller's OCR busy.
 */
const CONCURRENCY = 4;

/** The cheap check every call pays: no allocation, stops at the first image. */
function hasImages(messages: ChatMessage[]): boolean {
  for (const m of messages) {
    if (!Array.isArray(m.content)) continue;
    for (const p of m.content) if (p.type === "image_url") return true;
  }
  return false;
}

function findImages(ctx: Ctx): FoundImage[] {
  const found: FoundImage[] = [];
  ctx.messages.forEach((m, i) => {
    if (!Array.isArray(m.content)) return;
    // ctx.messages holds the request's own message objects (system ones lifted out), so the
    // index the client knows is the one in inputMessages.
    const asGiven = ctx.inputMessages.indexOf(m);
    const n = asGiven >= 0 ? asGiven : i;
    m.content.forEach((p, j) => {
      if (p.type !== "image_url") return;
      const { url, detail } = (p as ImagePart).image_url;
      found.push({ message: i, part: j, url, detail, param: `messages.${n}.content.${j}.image_url` });
    });
  });
  return found;
}

/** Runs `fn` over `items`, `limit` at a time; after a failure no further item is started (no more fetches or vision calls for a call that already failed). */
async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    try {
      for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!, i);
    } catch (err) {
      next = items.length;
      throw err;
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

const notMultimodal = (ctx: Ctx) =>
  new AppError(
    "invalid_request",
    ctx.enableMultimodal
      ? `The model '${ctx.requestedModel}' does not accept images; choose a model whose modalities include "image".`
      : `The model '${ctx.requestedModel}' does not accept images and enable_multimodal is false, so they are not turned into text; enable it or choose a model whose modalities include "image".`,
    { param: "messages", wireCode: "model_not_multimodal" },
  );

/** The operator's VISION_MODEL as this company sees it; null (OCR only) when unset or unusable. */
async function visionModel(ctx: Ctx): Promise<ResolvedModel | null> {
  const slug = env.VISION_MODEL;
  if (!slug) return null;
  try {
    const model = await resolveModel({ companyId: ctx.companyId, slug });
    if (model.model.supportsImages) return model;
    log.warn({ slug }, "VISION_MODEL does not take images; describing images by OCR only");
  } catch (err) {
    // The operator's setting, not the tenant's request: the call goes on with OCR text, and the
    // misconfiguration (unknown, hidden or disabled slug, no provider key) is logged.
    if (!(err instanceof AppError)) throw err;
    log.warn(
      { slug, companyId: ctx.companyId, code: err.wireCode },
      "VISION_MODEL is not usable for this company; describing images by OCR only",
    );
  }
  return null;
}

/**
 * What a `local` model sees of one image. The local group stands in for a vision provider, which
 * fetches and reads images itself: an image it cannot fetch or read becomes a note saying so (a
 * real provider's own 400), so local answers stay available offline. URLs naming a private
 * address were refused before (checkImageUrl); one whose name resolves privately is refused by the
 * fetcher and noted like any unreachable host, nothing of it read.
 */
async function localNote(ctx: Ctx, img: FoundImage): Promise<string> {
  try {
    const image = await loadImage(img.url, { param: img.param, signal: ctx.signal });
    return (await describeLoadedImage(image, img.param)).note;
  } catch (err) {
    if (ctx.signal.aborted || (err instanceof AppError && err.code === "unavailable")) throw err;
    log.debug({ err, runId: ctx.runId, param: img.param }, "local model: image not readable");
    return `unreadable image (${err instanceof AppError ? err.message : "the image could not be decoded"})`;
  }
}

/**
 * OCR of bytes whose magic says image: tesseract failing to decode them (a truncated or corrupt
 * file) is the image's fault, a 400 naming the part; our own refusals (busy, timeout) pass as they are.
 */
async function readText(bytes: Buffer, param: string) {
  try {
    return await ocrImage(bytes, { param });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError("invalid_request", "The image could not be decoded.", {
      param,
      wireCode: "invalid_image",
      cause: err,
    });
  }
}

/**
 * One image turned into text for a model that cannot see: the vision model's description (when
 * configured; its hold taken first, so a company that cannot pay gets 402 before the call) plus
 * the OCR text. Without a vision model, the local description (size, type, OCR text).
 */
async function imageToText(ctx: Ctx, img: FoundImage, vision: ResolvedModel | null): Promise<string> {
  const image = await loadImage(img.url, { param: img.param, signal: ctx.signal });
  const describe = (ocrText: string) =>
    localDescription({ mimeType: image.mimeType, width: image.width, height: image.height, ocrText });
  if (!vision) return describe((await readText(image.bytes, img.param)).text);
  const messages = visionMessages(image, img.detail);
  const hold = await holdCredit(
    ctx.companyId,
    worstCaseMicro(countPromptTokens(messages), VISION_MAX_OUTPUT_TOKENS, vision.prices),
  );
  let described: { text: string } | null = null;
  try {
    const [ocr, answer] = await Promise.all([
      readText(image.bytes, img.param),
      describeImageWithModel(vision, messages, ctx.signal).catch((err: unknown) => {
        // A vision provider that is down costs the call its description, not the answer: the
        // main model still gets the OCR text. A client that left is not that.
        if (ctx.signal.aborted || !(err instanceof AppError) || err.code !== "upstream_error") throw err;
        log.warn({ err, runId: ctx.runId, model: vision.slug }, "image description failed; OCR text only");
        return null;
      }),
    ]);
    if (answer) {
      (ctx.stageCalls ??= []).push({
        stage: "multimodal",
        model: vision.slug,
        promptTokens: answer.usage.promptTokens,
        completionTokens: answer.usage.completionTokens,
        costMicro: costMicro(answer.usage, vision.prices),
      });
      described = answer;
    }
    return described?.text ? `${described.text} (${describe(ocr.text)})` : describe(ocr.text);
  } finally {
    // The description's cost is in ctx.stageCalls, held again with the run's worst case.
    endHold(hold, 0);
  }
}

/**
 * Image parts (SPEC rule 2, `enable_multimodal`).
 * - A model that takes images gets them unchanged; HTTPS URLs go to its provider unfetched, but
 *   one that names a private address outright (`https://10.0.0.1/…`, `0x7f.1`) is refused here
 *   (no DNS: the provider fetches it from its own network).
 * - A model that does not gets each image replaced by a text part: the VISION_MODEL's description
 *   (billed with the run) and the OCR text; URLs are fetched SSRF-safely for that.
 * - The `local` group is listed as taking images and receives them unchanged, but "sees" them
 *   through ctx.imageNotes: the deterministic local description with the OCR text.
 * - `enable_multimodal: false`: nothing is fetched, read or described; a model without image
 *   input is refused (400 `model_not_multimodal`) rather than the images silently dropped.
 * Fetching and describing wait for the rate limiter's verdict: they have side effects.
 */
export const multimodalStage: Stage<Ctx> = {
  name: "multimodal",
  skips: (ctx) => !hasImages(ctx.messages),
  async run(ctx) {
    if (!hasImages(ctx.messages)) return;
    const started = performance.now();
    const local = ctx.model.group.protocol === "local";
    const takesImages = ctx.model.model.supportsImages;
    if (!ctx.enableMultimodal) {
      if (!takesImages) throw notMultimodal(ctx);
      return imagesStep(ctx, started, "multimodal_disabled", findImages(ctx));
    }
    const images = findImages(ctx);
    if (takesImages) {
      for (const img of images) if (!img.url.startsWith("data:")) checkImageUrl(img.url, img.param);
      if (!local) return imagesStep(ctx, started, "passed_to_model", images);
    }
    await ctx.admitted;
    if (local) {
      const notes = await mapLimit(images, CONCURRENCY, (img) => localNote(ctx, img));
      ctx.imageNotes.push(...notes);
      return imagesStep(ctx, started, "local_description", images, notes);
    }
    const vision = await visionModel(ctx);
    const texts = await mapLimit(images, CONCURRENCY, (img) => imageToText(ctx, img, vision));
    replaceImages(ctx, images, texts);
    imagesStep(ctx, started, vision ? "described" : "ocr", images, texts);
  },
};

/** New message objects with each image part replaced by its text; inputMessages (what is stored) keep the images. */
function replaceImages(ctx: Ctx, images: FoundImage[], texts: string[]): void {
  const byMessage = new Map<number, ContentPart[]>();
  let added = 0;
  images.forEach((img, k) => {
    let parts = byMessage.get(img.message);
    if (!parts) byMessage.set(img.message, (parts = [...(ctx.messages[img.message]!.content as ContentPart[])]));
    const text = `[Image ${k + 1}: ${texts[k]}]`;
    parts[img.part] = { type: "text", text };
    ctx.imageNotes.push(texts[k]!);
    added += countTextTokens(text);
  });
  ctx.messages = ctx.messages.map((m, i) => {
    const parts = byMessage.get(i);
    return parts ? { ...m, content: parts } : m;
  });
  // A large body's text tokens were counted by the CPU worker before the images became text.
  if (ctx.promptTextTokens !== undefined) ctx.promptTextTokens += added;
}
// Traced, the vision model's calls are children of the multimodal step's span.
multimodalStage.run = inStepSpans(STEP_TYPE.multimodal, multimodalStage.run, (ctx) => hasImages(ctx.messages));
