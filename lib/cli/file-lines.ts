import "server-only";
import { createReadStream } from "node:fs";
import { access, constants } from "node:fs/promises";
import { createInterface } from "node:readline";
import { AppError } from "@/lib/errors";

/**
 * A reader of the file's lines (\n or \r\n), streamed: each call reads the file anew.
 * @throws invalid_request when the file cannot be read.
 */
export async function fileLines(path: string): Promise<() => AsyncIterable<string>> {
  await access(path, constants.R_OK).catch((err: unknown) => {
    throw new AppError("invalid_request", `cannot read --file ${path}: ${(err as Error).message}`, { param: "file" });
  });
  return () => createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
}
