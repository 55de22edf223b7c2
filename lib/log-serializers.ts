import pino from "pino";

/**
 * Errors as logged: pino's shape minus statement parameters (prompts, answers), which drizzle puts
 * in its message and stack and postgres.js in `parameters` and `query`. The cause chain is cleaned
 * the same way.
 */
const PARAMS = /\nparams:[\s\S]*$/;
const MAX_TEXT = 300;

function clean(text: unknown): unknown {
  if (typeof text !== "string") return text;
  const cut = text.replace(PARAMS, "");
  return cut.startsWith("Failed query:") && cut.length > MAX_TEXT ? `${cut.slice(0, MAX_TEXT)}…` : cut;
}

export function safeErr(err: unknown, depth = 0): unknown {
  if (!(err instanceof Error)) return err;
  const out = pino.stdSerializers.err(err) as unknown as Record<string, unknown>;
  delete out.parameters;
  delete out.params;
  delete out.query;
  out.message = clean(out.message);
  if (typeof out.stack === "string") {
    const firstFrame = out.stack.indexOf("\n    at ");
    out.stack = `${String(out.type)}: ${String(out.message)}${firstFrame >= 0 ? out.stack.slice(firstFrame) : ""}`;
  }
  if (err.cause !== undefined && depth < 4) out.cause = safeErr(err.cause, depth + 1);
  return out;
}
