import "server-only";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, open, readFile, rename, rm } from "node:fs/promises";
import path from "node:path";
import { dbEnv } from "@/db/env";
import { env } from "@/lib/env";

/**
 * One file per document at `<company>/<document>`. Uploads stream into `tmp/`, are fsynced and
 * renamed before the row commits, so a crash leaves at most an orphan file, never a row without
 * bytes. Indexing hosts must share it.
 */
// A directory chosen at run time, not a build asset: the ignore comment keeps Turbopack's file
// tracing from copying the whole project into the server build.
const storageDir = () =>
  path.resolve(/*turbopackIgnore: true*/ env.KNOWLEDGE_STORAGE_DIR ?? `${dbEnv.DATA_DIR}/knowledge`);

const tmpDir = () => path.join(storageDir(), "tmp");

/** A new temporary file to stream an upload into: its path and a write stream. */
export async function createUploadFile(): Promise<{ tmpPath: string; stream: ReturnType<typeof createWriteStream> }> {
  await mkdir(tmpDir(), { recursive: true });
  const tmpPath = path.join(tmpDir(), `${Date.now()}-${randomBytes(8).toString("hex")}`);
  return { tmpPath, stream: createWriteStream(tmpPath, { flags: "wx", mode: 0o600 }) };
}

export const storageKeyFor = (companyId: string, documentId: string) => `${companyId}/${documentId}`;

function resolveKey(key: string): string {
  const full = path.resolve(storageDir(), key);
  // Keys are ours (company and document ids), but never let one point outside the directory.
  if (!full.startsWith(storageDir() + path.sep)) throw new Error(`storage key outside the storage directory: ${key}`);
  return full;
}

async function fsyncPath(p: string): Promise<void> {
  const handle = await open(p, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Moves a finished upload to its key, durably (file and directory entry synced). */
export async function commitUploadFile(tmpPath: string, key: string): Promise<void> {
  const dest = resolveKey(key);
  await mkdir(path.dirname(dest), { recursive: true });
  await fsyncPath(tmpPath);
  await rename(tmpPath, dest);
  await fsyncPath(path.dirname(dest));
}

export const readStoredDocument = (key: string): Promise<Buffer> => readFile(resolveKey(key));

export const removeStoredDocument = (key: string) => rm(resolveKey(key), { force: true });

export const removeUploadFile = (tmpPath: string) => rm(tmpPath, { force: true });
