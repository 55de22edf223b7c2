import "server-only";
import { AppError } from "@/lib/errors";

/**
 * The Python sandbox (issue 12): company tools' `python_code` runs in a pool of separate Deno
 * processes that load Pyodide from disk. This file is the interface the tools API and the tool
 * loop use; the pool behind it lives in this folder.
 */

/** What one tool execution gave. `result` is the function's JSON-serialisable return value. */
export type ToolExecution =
  | { ok: true; result: unknown; stdout: string; cpuMs: number; wallMs: number }
  | { ok: false; error: string; stdout: string; cpuMs: number; wallMs: number };

export interface RunToolArgs {
  companyId: string;
  /** The tool's name: `code` must define a function of that name, called with `args` as keyword arguments (CONTRACT 6). */
  name: string;
  code: string;
  args: Record<string, unknown>;
  /** Wall-clock limit; default the configured one (10 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Runs a tool's function in a sandbox process that serves only this company. Never throws for the
 * tool's own failures (exception, timeout, memory, unserialisable return): those are `ok: false`
 * with a message fit for `result: {"error": …}`. Throws AppError `unavailable` (503) only when the
 * sandbox cannot run at all.
 */
export async function runTool(args: RunToolArgs): Promise<ToolExecution> {
  void args;
  throw new AppError("unavailable", "The Python sandbox is not available yet", { wireCode: "sandbox_unavailable" });
}

/**
 * Checks, in the sandbox, that `code` parses and defines a function named `name`. `error` names
 * what is wrong in words for the 400 on `python_code`.
 */
export async function checkToolCode(args: { companyId: string; name: string; code: string }): Promise<{ ok: true } | { ok: false; error: string }> {
  void args;
  throw new AppError("unavailable", "The Python sandbox is not available yet", { wireCode: "sandbox_unavailable" });
}
