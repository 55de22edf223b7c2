import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, vi } from "vitest";

// Off even where the machine running the tests set it: these tests are about off.
vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", "");

const run = promisify(execFile);

/**
 * Starts tracing in a fresh Node process whose module resolution refuses every @opentelemetry
 * package: it prints what startTracing returned, or fails naming the package it tried to load.
 */
async function startInFreshProcess(endpoint: string): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), "tracing-off-"));
  const hooks = path.join(dir, "hooks.mjs");
  writeFileSync(
    hooks,
    `export async function resolve(spec, ctx, next) {
      if (spec.startsWith("@opentelemetry/")) throw new Error("loaded " + spec);
      return next(spec, ctx);
    }`,
  );
  const register = path.join(dir, "register.mjs");
  writeFileSync(register, `import { register } from "node:module"; register(${JSON.stringify(`file://${hooks}`)});`);
  const start = path.resolve("lib/observability/tracing/start.mjs");
  vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint);
  const { stdout } = await run(process.execPath, [
    "--import",
    register,
    "--input-type=module",
    "-e",
    `const { startTracing } = await import(${JSON.stringify(start)});
       const result = await startTracing();
       console.log(JSON.stringify({ result, api: globalThis[Symbol.for("opentelemetry.js.api.1")] !== undefined }));`,
  ]).finally(() => vi.stubEnv("OTEL_EXPORTER_OTLP_ENDPOINT", ""));
  return stdout.trim();
}

describe("tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset)", () => {
  it("loads no OpenTelemetry package and registers nothing", async () => {
    expect(await startInFreshProcess("")).toBe(JSON.stringify({ result: null, api: false }));
  });

  it("the same process set up to trace does load the SDK (the check above can fail)", async () => {
    await expect(startInFreshProcess("http://127.0.0.1:4318")).rejects.toThrow(/loaded @opentelemetry\//);
  });

  it("the app's span helpers hand back what they wrap, untouched", async () => {
    const { inStepSpans } = await import("./step-span");
    const { TRACING } = await import("./tracer");
    const { tracedAdapter } = await import("@/lib/providers/traced-adapter");
    expect(TRACING).toBe(false);
    const stage = async () => {};
    expect(inStepSpans("model_call", stage)).toBe(stage);
    const adapter = { complete: async () => ({}) as never, stream: async function* () {} };
    const group = {
      id: "openai",
      protocol: "openai",
      keyVar: null,
      baseUrlVar: null,
      apiKey: "k",
      baseUrl: null,
    } as const;
    expect(tracedAdapter(group, adapter)).toBe(adapter);
  });
});
