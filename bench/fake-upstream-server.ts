/**
 * The test suite's fake OpenAI-compatible provider (test/support/fake-upstream.ts) as a standalone
 * process for benchmarks, so its CPU is accounted apart from the gateway under test.
 *
 *   tsx bench/fake-upstream-server.ts [--reply TEXT] [--prompt-tokens 20] [--completion-tokens 15]
 *
 * Prints one JSON line on stdout once listening: {"url", "openaiBase", "control", "pid"}.
 * Every answer is the same fixed reply with fixed usage, except a request that forces a function
 * (`tool_choice: {type: "function"}`): that one is a call of it with {"a": 2, "b": 3}. The recorded-requests list is emptied
 * every 250 ms (the bench sends hundreds of thousands of requests); counts survive it:
 *
 *   GET  <control>/stats  {"total", "byPath", "aborted"}: requests received since start
 *   GET  <control>/last   the body of the last request received (what a gateway sent upstream, to
 *                         replay straight to this fake as the "direct" baseline of the same call)
 *   POST <control>/exit   closes both servers and exits
 *
 * Stops on SIGTERM/SIGINT, and when its parent goes away (stdin closes).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { startFakeUpstream } from "../test/support/fake-upstream";

const { values: flags } = parseArgs({
  options: {
    reply: { type: "string", default: "Hello! This is the fixed benchmark reply." },
    "prompt-tokens": { type: "string", default: "20" },
    "completion-tokens": { type: "string", default: "15" },
  },
  strict: true,
});

const reply = flags.reply!;
const usage = { prompt: Number(flags["prompt-tokens"]), completion: Number(flags["completion-tokens"]), cached: 0 };

async function main(): Promise<void> {
  // Only a reference to the parsed body: nothing is copied per request.
  let last: unknown = null;
  const up = await startFakeUpstream({
    reply: () => reply,
    usage: () => usage,
    onRequest: (r) => void (last = r.body),
    // A forced function (`tool_choice: {type: "function", …}`) is called with {a: 2, b: 3}; the
    // tool loop's next call (tool_choice no longer forced) gets the fixed reply (bench/sandbox.ts).
    toolCall: (body: { tool_choice?: { type?: string; function?: { name?: string } } }) => {
      const forced = body.tool_choice?.type === "function" ? body.tool_choice.function?.name : undefined;
      return forced ? { name: forced, arguments: { a: 2, b: 3 } } : null;
    },
  });
  let total = 0;
  let aborted = 0;
  const byPath: Record<string, number> = {};
  // Fold the recorded requests into counters and drop them, so memory stays flat under load.
  const drain = () => {
    const taken = up.requests.splice(0, up.requests.length);
    for (const r of taken) {
      total++;
      byPath[r.path] = (byPath[r.path] ?? 0) + 1;
      if (r.abortedAt) aborted++;
    }
  };
  const timer = setInterval(drain, 250);

  let closing = false;
  const control = http.createServer((req, res) => {
    if (req.url === "/stats") {
      drain();
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ total, byPath, aborted }));
      return;
    }
    if (req.url === "/last") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(last));
      return;
    }
    if (req.url === "/exit" && req.method === "POST") {
      res.end("bye");
      void shutdown(0);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => control.listen(0, "127.0.0.1", r));
  const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;

  async function shutdown(code: number): Promise<void> {
    if (closing) return;
    closing = true;
    clearInterval(timer);
    control.closeAllConnections();
    await Promise.race([
      Promise.all([up.close(), new Promise<void>((r) => control.close(() => r()))]),
      new Promise((r) => setTimeout(r, 2_000)),
    ]);
    process.exit(code);
  }
  process.on("SIGTERM", () => void shutdown(0));
  process.on("SIGINT", () => void shutdown(0));
  // The bench keeps our stdin open; when it dies, stdin ends and we go too.
  process.stdin.on("end", () => void shutdown(0));
  process.stdin.on("error", () => void shutdown(0));
  process.stdin.resume();

  process.stdout.write(
    `${JSON.stringify({ url: up.url, openaiBase: up.openaiBase, control: controlUrl, pid: process.pid })}\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
