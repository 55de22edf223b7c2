import { seededRandom } from "../support/fake-upstream";

/** The calls of the cluster test: what each is, and what a client saw of it. */
export const CALL_KINDS = [
  "chat",
  "chat-stream",
  "chat-slow",
  "run",
  "response",
  "usage",
  "webhook",
  "upload",
] as const;
export type CallKind = (typeof CALL_KINDS)[number];

/** Share of each kind in the plan. `chat-slow` calls outlast the shutdown grace (a slow JSON answer or stream). */
const WEIGHTS: Record<CallKind, number> = {
  chat: 0.28,
  "chat-stream": 0.22,
  "chat-slow": 0.02,
  run: 0.12,
  response: 0.14,
  usage: 0.14,
  webhook: 0.06,
  upload: 0.02,
};

/** Kinds the company pays for when answered (an upload is indexed with the free offline embedding). */
export const PAID_KINDS = new Set<CallKind>(["chat", "chat-stream", "chat-slow", "run", "response", "usage"]);

export interface PlannedCall {
  i: number;
  kind: CallKind;
  /** A slow chat call streams, else it is a JSON call whose upstream answers late. */
  stream: boolean;
  marker: string;
}

export function planCalls(count: number, seed: number): PlannedCall[] {
  const rnd = seededRandom(seed);
  const entries = Object.entries(WEIGHTS) as [CallKind, number][];
  return Array.from({ length: count }, (_, i) => {
    let x = rnd();
    let kind = entries.at(-1)![0];
    for (const [k, w] of entries) {
      if ((x -= w) < 0) {
        kind = k;
        break;
      }
    }
    const stream = kind === "chat-stream" || (kind === "chat-slow" && rnd() < 0.5);
    const tag = kind === "chat-slow" ? (stream ? " [slow-stream]" : " [slow-json]") : "";
    return { i, kind, stream, marker: `cluster-${String(i).padStart(4, "0")}${tag}` };
  });
}

/** One HTTP request of the run as the client saw it. */
export interface Outcome {
  i: number;
  kind: CallKind | "thread";
  app: number;
  /** HTTP status; 0 when no answer came (the connection failed or was cut). */
  status: number;
  startedAt: number;
  endedAt: number;
  /** The billed object's id the client was given (chatcmpl, run, resp, usage event, webhook event, document). */
  id?: string;
  /** A stream that ended with an error frame: its code. */
  errorFrame?: string;
  /** A stream that ended with [DONE]. */
  done?: boolean;
  /** The error code of a non-2xx body, or the client's error. */
  error?: string;
  /** The first app refused the connection and the call went to the other. */
  rerouted?: boolean;
}

/** Reads an SSE body: the id it carried, whether it ended with [DONE], and an error frame's code. */
async function readStream(res: Response, out: Outcome): Promise<void> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split("\n")
        .find((l) => l.startsWith("data: "))
        ?.slice(6);
      if (!data) continue;
      if (data === "[DONE]") {
        out.done = true;
        continue;
      }
      const chunk = JSON.parse(data) as { id?: string; error?: { code?: string; type?: string } };
      if (chunk.error) out.errorFrame = chunk.error.code ?? chunk.error.type ?? "error";
      if (chunk.id && !out.id) out.id = chunk.id;
    }
  }
}

export interface Request {
  method: string;
  path: string;
  key?: string;
  json?: unknown;
  form?: FormData;
  stream?: boolean;
}

const refused = (err: unknown) => {
  const cause = (err as { cause?: { code?: string } }).cause;
  return cause?.code === "ECONNREFUSED";
};

/**
 * Sends one request to `apps[app]` as a load balancer would: a refused connection (an app that is
 * down) goes to the other app; a request that reached an app is never sent twice.
 */
export async function send(
  apps: () => string[],
  app: number,
  req: Request,
  out: Omit<Outcome, "status" | "startedAt" | "endedAt" | "app">,
): Promise<Outcome> {
  const result: Outcome = { ...out, app, status: 0, startedAt: Date.now(), endedAt: 0 };
  const headers: Record<string, string> = {};
  if (req.key) headers.authorization = `Bearer ${req.key}`;
  if (req.json !== undefined) headers["content-type"] = "application/json";
  for (let attempt = 0; ; attempt++) {
    const base = apps()[result.app]!;
    try {
      const res = await fetch(`${base}${req.path}`, {
        method: req.method,
        headers,
        body: req.form ?? (req.json === undefined ? undefined : JSON.stringify(req.json)),
        signal: AbortSignal.timeout(60_000),
      });
      result.status = res.status;
      if (res.ok && req.stream && res.headers.get("content-type")?.includes("text/event-stream")) {
        await readStream(res, result);
      } else {
        const text = await res.text();
        const body = text ? (JSON.parse(text) as { id?: string; error?: { code?: string; type?: string } }) : null;
        if (res.ok) result.id = body?.id;
        else result.error = body?.error?.code ?? body?.error?.type ?? text.slice(0, 80);
      }
      break;
    } catch (err) {
      if (attempt === 0 && refused(err)) {
        result.app = 1 - result.app;
        result.rerouted = true;
        continue;
      }
      result.error = `client: ${(err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message}`;
      break;
    }
  }
  result.endedAt = Date.now();
  return result;
}
