import "server-only";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { sandboxPool as sandboxPoolChannel } from "@/lib/process-channels.mjs";
import { onShutdown } from "@/lib/shutdown";
import { SandboxPool } from "./pool";
import { CallAbortedError, QueueTimeoutError, type PoolConfig } from "./pool-config";
import type { CallOutcome } from "./process";
import { cancelSharedSnapshot } from "./snapshot";

/**
 * The Python sandbox: company tools' `python_code` runs in a pool of Deno processes loading Pyodide
 * from disk. This file is the interface for the tools API and the tool loop.
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

function sandboxConfigFromEnv(): PoolConfig {
  return {
    size: env.SANDBOX_POOL_SIZE,
    prewarm: Math.min(env.SANDBOX_PREWARM, env.SANDBOX_POOL_SIZE),
    queueTimeoutMs: env.SANDBOX_QUEUE_TIMEOUT_MS,
    bootTimeoutMs: env.SANDBOX_BOOT_TIMEOUT_MS,
    maxCalls: env.SANDBOX_MAX_CALLS,
    maxAgeMs: env.SANDBOX_MAX_AGE_S * 1000,
    maxRssBytes: env.SANDBOX_MAX_RSS_MB * 1024 * 1024,
    idleCpuMs: env.SANDBOX_IDLE_CPU_MS,
    cpuQuotaPercent: env.SANDBOX_CPU_QUOTA_PERCENT,
    wasmMaxMb: env.SANDBOX_WASM_MAX_MB,
    stdoutMax: env.SANDBOX_STDOUT_MAX_BYTES,
    resultMax: env.SANDBOX_RESULT_MAX_BYTES,
    uid: env.SANDBOX_UID,
    gid: env.SANDBOX_GID,
    watchdogMs: 500,
  };
}

/**
 * The server's pool, created on first use (no process starts before the first tool call). One per
 * process, a process channel, so dev-mode module reloads do not leak processes.
 */
function sandboxPool(): SandboxPool {
  let pool = sandboxPoolChannel.get();
  if (!pool) {
    pool = new SandboxPool(sandboxConfigFromEnv());
    sandboxPoolChannel.set(pool);
    onShutdown(() => closeSandboxPool());
  }
  return pool;
}

/** Kills every sandbox process (the next call starts a new pool). */
async function closeSandboxPool(): Promise<void> {
  const pool = sandboxPoolChannel.get();
  sandboxPoolChannel.clear();
  cancelSharedSnapshot();
  await pool?.close();
}

function toExecution(outcome: CallOutcome): ToolExecution {
  const cpuMs = Math.round(outcome.cpuMs);
  const wallMs = Math.round(outcome.wallMs * 100) / 100;
  if (outcome.kind === "failed") return { ok: false, error: outcome.error, stdout: "", cpuMs, wallMs };
  const { reply } = outcome;
  const stdout = reply.stdout ?? "";
  if (!reply.ok || reply.result === undefined)
    return { ok: false, error: reply.error ?? "The tool failed", stdout, cpuMs, wallMs };
  return { ok: true, result: JSON.parse(reply.result) as unknown, stdout, cpuMs, wallMs };
}

function poolFailure(err: unknown): ToolExecution {
  if (err instanceof QueueTimeoutError || err instanceof CallAbortedError) {
    return { ok: false, error: err.message, stdout: "", cpuMs: 0, wallMs: 0 };
  }
  throw err;
}

/**
 * Runs a tool's function in a process serving only this company. The tool's own failures are `ok:
 * false` with a message for `result: {"error": …}`; throws AppError `unavailable` (503) only when
 * the sandbox cannot run.
 */
export async function runTool(args: RunToolArgs, pool: SandboxPool = sandboxPool()): Promise<ToolExecution> {
  try {
    const outcome = await pool.call(
      args.companyId,
      { op: "run", name: args.name, code: args.code, args: args.args },
      args.timeoutMs ?? env.SANDBOX_TIMEOUT_MS,
      args.signal,
    );
    return toExecution(outcome);
  } catch (err) {
    return poolFailure(err);
  }
}

/**
 * Checks in the sandbox that `code` parses and defines `name`, without running top-level code;
 * `error` explains for the 400. Throws AppError `unavailable` (503) when the sandbox cannot run or
 * is busy (`sandbox_busy`).
 */
export async function checkToolCode(
  args: { companyId: string; name: string; code: string },
  pool: SandboxPool = sandboxPool(),
): Promise<{ ok: true } | { ok: false; error: string }> {
  let outcome: CallOutcome;
  try {
    outcome = await pool.call(
      args.companyId,
      { op: "check", name: args.name, code: args.code },
      env.SANDBOX_TIMEOUT_MS,
    );
  } catch (err) {
    if (err instanceof QueueTimeoutError) throw new AppError("unavailable", err.message, { wireCode: "sandbox_busy" });
    throw err;
  }
  if (outcome.kind === "failed") return { ok: false, error: `python_code could not be checked: ${outcome.error}` };
  if (outcome.reply.ok) return { ok: true };
  return { ok: false, error: outcome.reply.error ?? "python_code is not valid" };
}
