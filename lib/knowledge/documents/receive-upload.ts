import "server-only";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import busboy from "busboy";
import { AppError } from "@/lib/errors";
import { createUploadFile, removeUploadFile } from "../storage";

/** Room for the multipart framing and the small fields around the file. */
const FRAMING_BYTES = 64 * 1024;
const MAX_FOLDER_PATH = 500;
const MAX_FILENAME = 255;

export interface ReceivedUpload {
  tmpPath: string;
  filename: string;
  size: number;
  folderPath: string | null;
}

const tooLarge = (maxBytes: number) =>
  new AppError("payload_too_large", `The file exceeds the upload limit of ${Math.round(maxBytes / (1024 * 1024))} MB`, {
    wireCode: "payload_too_large",
  });

const badForm = (message: string, param: string | null = null) =>
  new AppError("invalid_request", message, { wireCode: "invalid_multipart", param });

/** The last path component, without control characters; "upload" when nothing is left. */
function cleanFilename(raw: string | undefined): string {
  const base = (raw ?? "").split(/[\\/]/).pop() ?? "";
  const clean = base
    .replace(/[\u0000-\u001f\u007f]/g, "")
    .trim()
    .slice(0, MAX_FILENAME);
  return clean || "upload";
}

/**
 * `a//b/ ` → `a/b`: segments trimmed, empty ones and `.`/`..` dropped; null when nothing is left.
 * @internal
 */
export function cleanFolderPath(raw: string): string | null {
  if (/[\u0000-\u001f\u007f]/.test(raw))
    throw badForm("folder_path: must not contain control characters", "folder_path");
  const segments = raw
    .split(/[\\/]/)
    .map((s) => s.trim())
    .filter((s) => s && s !== "." && s !== "..");
  const joined = segments.join("/");
  if (joined.length > MAX_FOLDER_PATH)
    throw badForm(`folder_path: at most ${MAX_FOLDER_PATH} characters`, "folder_path");
  return joined || null;
}

/**
 * Streams a multipart upload (`file`, optional `folder_path`) into a temporary file, throwing 413
 * as soon as it passes `maxBytes`, so the body is never held in memory. The caller owns `tmpPath`
 * afterwards.
 */
export async function receiveUpload(req: Request, maxBytes: number): Promise<ReceivedUpload> {
  const type = req.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data\s*;/i.test(type))
    throw badForm("The upload must be multipart/form-data with a part named 'file'", "file");
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes + FRAMING_BYTES) throw tooLarge(maxBytes);
  if (!req.body) throw badForm("The upload has no body", "file");

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": type },
      defParamCharset: "utf8",
      limits: { files: 1, fileSize: maxBytes, fields: 8, fieldSize: 4096, parts: 16, headerPairs: 32 },
    });
  } catch {
    throw badForm("The upload's multipart boundary is missing or malformed", "file");
  }

  const body = Readable.fromWeb(req.body as import("node:stream/web").ReadableStream<Uint8Array>);
  let received = 0;
  let failure: AppError | null = null;
  let file: Promise<ReceivedUpload | null> | null = null;
  let folderPath: string | null = null;
  let fileStream: Readable | null = null;
  let settle: () => void = () => {};
  const parsed = new Promise<void>((resolve, reject) => {
    settle = resolve;
    parser.on("close", resolve);
    parser.on("error", reject);
    body.on("error", reject);
  });
  const stop = (err: AppError) => {
    if (failure) return;
    failure = err;
    // Stop reading the socket: the rest of an oversized body is never read nor buffered.
    body.unpipe(parser);
    body.pause();
    // Destroyed on the next turn: busboy emits 'limit' in the middle of its own write and still
    // touches the file stream right after.
    setImmediate(() => {
      body.destroy();
      fileStream?.destroy();
      parser.destroy();
      settle();
    });
  };

  body.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes + FRAMING_BYTES) stop(tooLarge(maxBytes));
  });

  parser.on("field", (name, value) => {
    if (name === "folder_path") {
      try {
        folderPath = cleanFolderPath(value);
      } catch (err) {
        stop(err as AppError);
      }
    }
  });
  parser.on("file", (name, stream, info) => {
    if (name !== "file" || file) {
      stream.resume();
      return;
    }
    fileStream = stream;
    file = (async () => {
      const { tmpPath, stream: out } = await createUploadFile();
      let size = 0;
      stream.on("data", (chunk: Buffer) => (size += chunk.length));
      stream.on("limit", () => stop(tooLarge(maxBytes)));
      try {
        await pipeline(stream, out);
      } catch {
        // The body was cut (413 or the client went away): the failure says which.
      }
      if (failure || (stream as { truncated?: boolean }).truncated) {
        await removeUploadFile(tmpPath);
        return null;
      }
      return { tmpPath, filename: cleanFilename(info.filename), size, folderPath: null };
    })();
  });

  try {
    body.pipe(parser);
    await parsed;
  } catch {
    stop(badForm("The upload ended early or is not valid multipart/form-data", "file"));
  }
  // `stop` destroys the parser without a close event: wait for the file side either way.
  const upload = await (file as Promise<ReceivedUpload | null> | null);
  if (failure) {
    if (upload) await removeUploadFile(upload.tmpPath);
    throw failure;
  }
  if (!upload) throw badForm("The upload has no part named 'file'", "file");
  return { ...upload, folderPath };
}
