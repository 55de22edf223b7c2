import "server-only";
import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import path from "node:path";
import type { Readable } from "node:stream";
import { z } from "zod";
import { env } from "@/lib/env";
import {
  DOCUMENT_KIND,
  IndexingError,
  INDEX_STAGE,
  type DocumentKind,
  type ParsedDocument,
} from "@/lib/knowledge/contracts";
import { readRssBytes } from "@/lib/sandbox/proc";

/**
 * One child per file: a hostile file can spin, balloon or crash a parser, or pollute a prototype.
 * The child gets no environment but NODE_ENV and, except for XLSX, runs with
 * --disallow-code-generation-from-strings (CVE-2024-4367).
 */
const CHILD_FILE = path.join(process.cwd(), "lib/knowledge/parse/child.mjs");
const MB = 1024 * 1024;
/** Room over the V8 heap cap for buffers, wasm and code, which --max-old-space-size does not count. */
const RSS_HEADROOM_MB = 256;
const RSS_POLL_MS = 100;
const STDERR_TAIL_BYTES = 4096;
/** exceljs reaches bluebird, which compiles helpers with `new Function`; every other parser runs without eval. */
const NEEDS_EVAL: ReadonlySet<DocumentKind> = new Set([DOCUMENT_KIND.xlsx]);

/** @internal */
export interface ParseLimits {
  timeoutMs: number;
  memoryMb: number;
  maxOutputBytes: number;
}

function parseLimitsFromEnv(): ParseLimits {
  return {
    timeoutMs: env.PARSE_TIMEOUT_MS,
    memoryMb: env.PARSE_MEMORY_MB,
    maxOutputBytes: env.PARSE_MAX_OUTPUT_MB * MB,
  };
}

export interface ParseInput {
  bytes: Buffer;
  filename: string;
  kind: DocumentKind;
  signal?: AbortSignal;
}

const SegmentSchema = z.object({
  kind: z.enum(["heading", "paragraph", "row", "table"]),
  text: z.string(),
  page: z.number().int().positive().optional(),
  sheet: z.string().optional(),
  header: z.string().optional(),
  level: z.number().int().min(1).max(6).optional(),
});
const ChildReply = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    doc: z.object({ segments: z.array(SegmentSchema), pages: z.number().int().nonnegative().optional() }),
  }),
  z.object({ ok: z.literal(false), reason: z.string() }),
]);

// At most PARSE_CONCURRENCY children at once; the rest wait in order.
let running = 0;
const waiting: (() => void)[] = [];

async function acquire(signal?: AbortSignal): Promise<void> {
  if (running < env.PARSE_CONCURRENCY) {
    running++;
    return;
  }
  await new Promise<void>((resolve, reject) => {
    const go = () => {
      signal?.removeEventListener("abort", onAbort);
      running++;
      resolve();
    };
    const onAbort = () => {
      const i = waiting.indexOf(go);
      if (i >= 0) waiting.splice(i, 1);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    waiting.push(go);
  });
}

function release(): void {
  running--;
  waiting.shift()?.();
}

/**
 * Extracts the text of an uploaded file, with its structure (headings, paragraphs, pages, sheet
 * rows), in an isolated child process.
 * @throws IndexingError("parse", reason) when the file cannot be read, with a reason a user can act on
 * @throws the signal's reason when `signal` aborts (the child is killed)
 */
export async function parseDocument(input: ParseInput): Promise<ParsedDocument> {
  input.signal?.throwIfAborted();
  await acquire(input.signal);
  try {
    return await runParser(input, parseLimitsFromEnv());
  } finally {
    release();
  }
}

/**
 * One child, one file, with the given caps (tests pass small ones). No concurrency limit.
 * @internal
 */
export function runParser(input: ParseInput, limits: ParseLimits): Promise<ParsedDocument> {
  const fail = (reason: string, cause?: unknown) => new IndexingError(INDEX_STAGE.parse, reason, { cause });
  if (!(input.kind in DOCUMENT_KIND)) return Promise.reject(fail(`unsupported file type ${input.kind}`));
  input.signal?.throwIfAborted();

  return new Promise<ParsedDocument>((resolve, reject) => {
    // fd 3 carries the reply, so library chatter on stdout can never be mistaken for it.
    const options: SpawnOptions = {
      stdio: ["pipe", "pipe", "pipe", "pipe"],
      env: { NODE_ENV: "production" },
      cwd: process.cwd(),
    };
    const child: ChildProcess = spawn(
      process.execPath,
      [
        `--max-old-space-size=${limits.memoryMb}`,
        "--max-semi-space-size=16",
        ...(NEEDS_EVAL.has(input.kind) ? [] : ["--disallow-code-generation-from-strings"]),
        CHILD_FILE,
        input.kind,
        String(limits.maxOutputBytes),
      ],
      options,
    );
    let settled = false;
    let killedFor: string | undefined;
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderrTail = "";

    const kill = (reason: string) => {
      if (killedFor === undefined) killedFor = reason;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(
      () =>
        kill(
          `reading the file took longer than ${Math.round(limits.timeoutMs / 1000)} s: it may be damaged or built to stall parsers`,
        ),
      limits.timeoutMs,
    );
    const rssCap = (limits.memoryMb + RSS_HEADROOM_MB) * MB;
    const poll = setInterval(() => {
      const rss = child.pid === undefined ? null : readRssBytes(child.pid);
      if (rss !== null && rss > rssCap) kill(memoryReason(limits));
    }, RSS_POLL_MS);
    const onAbort = () => kill("aborted");
    input.signal?.addEventListener("abort", onAbort, { once: true });

    const finish = (err: unknown, doc?: ParsedDocument) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(poll);
      input.signal?.removeEventListener("abort", onAbort);
      if (err) reject(err);
      else resolve(doc!);
    };

    const output = child.stdio[3] as Readable;
    output.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > limits.maxOutputBytes + 1024)
        kill(`the document's text is larger than ${Math.floor(limits.maxOutputBytes / MB)} MB`);
      else out.push(chunk);
    });
    output.on("error", () => {});
    child.stdout!.on("data", () => {});
    child.stderr!.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
    });
    // The child may die before reading all of stdin (EPIPE): its exit says why.
    child.stdin!.on("error", () => {});
    child.stdin!.end(input.bytes);

    child.on("error", (err) => finish(fail("the parser could not start", err)));
    child.on("close", (code, signal) => {
      if (killedFor === "aborted") return finish(input.signal?.reason ?? new Error("aborted"));
      if (killedFor) return finish(fail(killedFor, new Error(stderrTail)));
      if (code !== 0 || out.length === 0) {
        const oom = /heap out of memory|Allocation failed/i.test(stderrTail);
        return finish(
          fail(
            oom ? memoryReason(limits) : "the parser crashed on this file: it may be corrupt",
            new Error(`exit ${code ?? signal}: ${stderrTail}`),
          ),
        );
      }
      let reply: z.infer<typeof ChildReply>;
      try {
        reply = ChildReply.parse(JSON.parse(Buffer.concat(out).toString("utf8")));
      } catch (err) {
        return finish(fail("the parser returned an unreadable result", err));
      }
      if (!reply.ok) return finish(fail(reply.reason, new Error(stderrTail || reply.reason)));
      finish(undefined, { kind: input.kind, ...reply.doc });
    });
  });
}

function memoryReason(limits: ParseLimits): string {
  return `reading the file needed more than ${limits.memoryMb} MB of memory`;
}
