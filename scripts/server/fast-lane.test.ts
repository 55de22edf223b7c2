import { AsyncLocalStorage } from "node:async_hooks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SseBody } from "../../lib/http/sse-writer";
import { preReadBodies, rawResponseBodies, rawResponseStreams } from "../../lib/process-channels.mjs";
import { fastHandlerFor, refuseMalformedPath, serveFetch } from "./fast-lane.mjs";
import { workerCount } from "./worker-count.mjs";

type Handler = (req: Request, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))));
});

/** A loopback server whose every request goes through serveFetch with `handler`. */
async function serve(handler: Handler, errors: unknown[] = []): Promise<string> {
  const server = http.createServer((req, res) =>
    serveFetch(handler, req, res, "http://localhost:1", (e: unknown) => errors.push(e)),
  );
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A raw request with node:http (fetch would hide connection details). */
function request(
  url: string,
  opts: { method?: string; body?: string | Buffer; headers?: Record<string, string> } = {},
) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? "POST", headers: opts.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

describe("fastHandlerFor", () => {
  const h: Handler = async () => new Response("x");
  const handlers = new Map([["POST /v1/chat/completions", h]]);
  const match = (method: string, url: string) => fastHandlerFor(handlers, { method, url } as http.IncomingMessage);

  it("matches the exact method and path, with or without a query string", () => {
    expect(match("POST", "/v1/chat/completions")).toBe(h);
    expect(match("POST", "/v1/chat/completions?x=1")).toBe(h);
  });

  it("leaves every other request to Next.js", () => {
    for (const [m, u] of [
      ["GET", "/v1/chat/completions"],
      ["OPTIONS", "/v1/chat/completions"],
      ["POST", "/v1/chat/completions/"],
      ["POST", "/v1/chat/Completions"],
      ["POST", "//v1/chat/completions"],
      ["POST", "/v1/chat/%63ompletions"],
      ["POST", "http://evil/v1/chat/completions"],
    ] as const) {
      expect(match(m, u), `${m} ${u}`).toBeUndefined();
    }
  });

  it("matches a route with [param] segments whose values look like ids, passing them as params", async () => {
    let seen: unknown;
    const runs: Handler = async (_req, ctx) => {
      seen = await ctx.params;
      return new Response("r");
    };
    const dynamic = new Map([["POST /v1/threads/[threadId]/runs", runs]]);
    const m = (method: string, url: string) => fastHandlerFor(dynamic, { method, url } as http.IncomingMessage);
    const found = m("POST", "/v1/threads/thread_abc-1/runs?x=1");
    expect(found).toBeDefined();
    await found!(new Request("http://x/"), { params: Promise.resolve({}) });
    expect(seen).toEqual({ threadId: "thread_abc-1" });
    for (const u of [
      "/v1/threads//runs",
      "/v1/threads/a%2Fb/runs",
      "/v1/threads/a.b/runs",
      "/v1/threads/t/runs/",
      "/v1/threads/t/x/runs",
      "/v1/threads/t/Runs",
    ]) {
      expect(m("POST", u), u).toBeUndefined();
    }
    expect(m("GET", "/v1/threads/t/runs")).toBeUndefined();
  });
});

describe("serveFetch", () => {
  it("passes method, URL, headers and body through and returns status, headers and body", async () => {
    const url = await serve(async (req) => {
      const body = await req.text();
      return Response.json(
        { method: req.method, url: req.url, auth: req.headers.get("authorization"), body },
        { status: 201, headers: { "x-request-id": "r1" } },
      );
    });
    const res = await request(`${url}/v1/chat/completions?a=b`, {
      body: '{"hello":"wörld"}',
      headers: { authorization: "Bearer k", "content-type": "application/json" },
    });
    expect(res.status).toBe(201);
    expect(res.headers["x-request-id"]).toBe("r1");
    expect(res.headers["content-type"]).toMatch(/application\/json/);
    // The Host header is never trusted for the request URL.
    expect(JSON.parse(res.body)).toEqual({
      method: "POST",
      url: "http://localhost:1/v1/chat/completions?a=b",
      auth: "Bearer k",
      body: '{"hello":"wörld"}',
    });
  });

  it("reads a small body of declared length before the handler runs, handing the bytes over without a stream to read", async () => {
    const seen: { preRead?: string; copy?: string; text?: string; used?: boolean; readAgain?: string }[] = [];
    const url = await serve(async (req) => {
      const preRead = preReadBodies.get()?.get(req)?.toString("utf8");
      const copy = await req.clone().text();
      const text = await req.text();
      const readAgain = await req.text().then(String, (err: unknown) => (err as Error).name);
      seen.push({ preRead, copy, text, used: req.bodyUsed, readAgain });
      return new Response("ok");
    });
    await request(url, { body: '{"a":"ü"}' });
    // Without a declared length (chunked) the body streams to the handler as before.
    await new Promise<void>((resolve, reject) => {
      const req = http.request(url, { method: "POST", agent: false }, (res) => res.resume().on("end", resolve));
      req.on("error", reject);
      req.write('{"b":');
      req.end("2}");
    });
    // Either way the body reads as a Request's does: once, and once more from a clone.
    expect(seen).toEqual([
      { preRead: '{"a":"ü"}', copy: '{"a":"ü"}', text: '{"a":"ü"}', used: true, readAgain: "TypeError" },
      { preRead: undefined, copy: '{"b":2}', text: '{"b":2}', used: true, readAgain: "TypeError" },
    ]);
  });

  it("runs the handler of a body read first in the caller's async context (the client's address, the trace)", async () => {
    const store = new AsyncLocalStorage<string>();
    const server = http.createServer((req, res) =>
      store.run(`peer ${req.socket.remotePort}`, () =>
        serveFetch(
          async () => new Response(store.getStore() ?? "none"),
          req,
          res,
          "http://localhost:1",
          () => {},
        ),
      ),
    );
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const res = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { body: "{}" });
    expect(res.body).toMatch(/^peer \d+$/);
  });

  it("writes a response's JSON text handed over through rawResponseBodies as one body with its length", async () => {
    const url = await serve(async () => {
      const res = new Response(null, { status: 201, headers: { "content-type": "application/json" } });
      rawResponseBodies.getOrInit(() => new WeakMap()).set(res, '{"ok":"ü"}');
      return res;
    });
    const res = await request(url, { body: "{}" });
    expect(res.status).toBe(201);
    expect(res.headers["content-length"]).toBe(String(Buffer.byteLength('{"ok":"ü"}')));
    expect(res.body).toBe('{"ok":"ü"}');
  });

  it("keeps every Set-Cookie header", async () => {
    const url = await serve(async () => {
      const headers = new Headers();
      headers.append("set-cookie", "a=1");
      headers.append("set-cookie", "b=2");
      return new Response(null, { status: 204, headers });
    });
    const res = await request(url);
    expect(res.status).toBe(204);
    expect(res.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
  });

  it("streams response chunks as they are produced, not at the end", async () => {
    let release!: () => void;
    const second = new Promise<void>((r) => (release = r));
    const url = await serve(async () => {
      const enc = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async start(c) {
          c.enqueue(enc.encode("data: one\n\n"));
          await second; // only once the client has seen the first chunk
          c.enqueue(enc.encode("data: two\n\n"));
          c.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    const text = await new Promise<string>((resolve, reject) => {
      const req = http.request(url, { method: "POST", agent: false }, (res) => {
        let all = "";
        res.on("data", (c: Buffer) => {
          all += c.toString("utf8");
          if (all === "data: one\n\n") release();
        });
        res.on("end", () => resolve(all));
      });
      req.on("error", reject);
      req.end();
    });
    expect(text).toBe("data: one\n\ndata: two\n\n");
  });

  it("aborts the request signal and cancels the response body when the client disconnects mid-stream", async () => {
    let aborted!: () => void;
    const signalAborted = new Promise<void>((r) => (aborted = r));
    let cancelled!: () => void;
    const bodyCancelled = new Promise<void>((r) => (cancelled = r));
    const url = await serve(async (req) => {
      req.signal.addEventListener("abort", () => aborted());
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode("data: first\n\n"));
        },
        cancel() {
          cancelled();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    });
    await new Promise<void>((resolve, reject) => {
      const req = http.request(url, { method: "POST", agent: false }, (res) => {
        res.once("data", () => {
          req.destroy();
          resolve();
        });
      });
      req.on("error", () => {});
      req.on("close", resolve);
      req.end();
      setTimeout(() => reject(new Error("no first chunk")), 5_000);
    });
    await Promise.all([signalAborted, bodyCancelled]);
  });

  it("writes an SSE body handed over through rawResponseStreams to the socket as it is produced, and cancels it when the client leaves", async () => {
    let release!: () => void;
    const second = new Promise<void>((r) => (release = r));
    let cancelled!: () => void;
    const bodyCancelled = new Promise<void>((r) => (cancelled = r));
    /** A response whose body the lane writes itself: `whole` ends after two frames, else the client leaves. */
    const sseResponse = (whole: boolean) => {
      const body = new SseBody(() => cancelled());
      body.send("one");
      void second.then(() => {
        body.send("two");
        if (whole) body.end();
      });
      const res = new Response(null, { headers: { "content-type": "text/event-stream" } });
      rawResponseStreams.getOrInit(() => new WeakMap()).set(res, body);
      return res;
    };
    const url = await serve(async (req) => sseResponse(new URL(req.url).searchParams.has("whole")));
    const text = await new Promise<string>((resolve, reject) => {
      const req = http.request(`${url}/?whole`, { method: "POST", agent: false }, (res) => {
        let all = "";
        res.on("data", (c: Buffer) => {
          all += c.toString("utf8");
          if (all === "data: one\n\n") release(); // only once the client has seen the first frame
        });
        res.on("end", () => resolve(all));
      });
      req.on("error", reject);
      req.end();
    });
    expect(text).toBe("data: one\n\ndata: two\n\n");

    await new Promise<void>((resolve) => {
      const req = http.request(`${url}/`, { method: "POST", agent: false }, (res) =>
        res.once("data", () => (req.destroy(), resolve())),
      );
      req.on("error", () => {});
      req.end();
    });
    await bodyCancelled;
  });

  it("does not abort the signal of a request that completed", async () => {
    let seen: AbortSignal | undefined;
    const url = await serve(async (req) => {
      seen = req.signal;
      return new Response("ok");
    });
    expect((await request(url)).body).toBe("ok");
    await new Promise((r) => setTimeout(r, 50));
    expect(seen?.aborted).toBe(false);
  });

  it("delivers a refusal of an oversized body and closes the connection instead of reading the rest", async () => {
    const limit = 64 * 1024;
    let received = 0;
    const url = await serve(async (req) => {
      const reader = req.body!.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.byteLength;
        if (received > limit) {
          await reader.cancel();
          return Response.json({ error: { code: "payload_too_large" } }, { status: 413 });
        }
      }
      return new Response("fit");
    });
    // Announced and streamed large: the server answers long before it could have read it all.
    const res = await new Promise<{ status: number; connection: string | undefined; body: string }>(
      (resolve, reject) => {
        const req = http.request(
          url,
          { method: "POST", agent: false, headers: { "content-length": String(16 * 1024 * 1024) } },
          (r) => {
            let body = "";
            r.on("data", (c: Buffer) => (body += c.toString("utf8")));
            r.on("end", () => resolve({ status: r.statusCode!, connection: r.headers.connection, body }));
          },
        );
        req.on("error", () => {}); // the server may close while we still write
        const chunk = Buffer.alloc(64 * 1024, 120);
        let sent = 0;
        const pump = () => {
          while (sent < 16 * 1024 * 1024) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once("drain", pump);
          }
          req.end();
        };
        pump();
        setTimeout(() => reject(new Error("no answer")), 10_000);
      },
    );
    expect(res.status).toBe(413);
    expect(res.connection).toBe("close");
    expect(JSON.parse(res.body)).toEqual({ error: { code: "payload_too_large" } });
    expect(received).toBeLessThan(4 * 1024 * 1024);
  });

  it("drops the unread rest of a body the handler answered without reading (a refusal on the declared Content-Length), so the next request on the connection does not meet it", async () => {
    const url = await serve(async (req) => {
      if (Number(req.headers.get("content-length")) > 1024)
        return Response.json({ error: { code: "payload_too_large" } }, { status: 413 });
      return new Response(await req.text());
    });
    // fetch keeps connections alive and reuses them, as senders of webhooks do.
    const big = await fetch(url, { method: "POST", body: "x".repeat(512 * 1024) });
    expect(big.status).toBe(413);
    await big.arrayBuffer();
    for (let i = 0; i < 3; i++) {
      const small = await fetch(url, { method: "POST", body: `fits ${i}` });
      expect(await small.text()).toBe(`fits ${i}`);
    }
  });

  it("answers 500 in the OpenAI error shape when the handler throws, and reports the error", async () => {
    const errors: unknown[] = [];
    const url = await serve(async () => {
      throw new Error("boom");
    }, errors);
    const res = await request(url);
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        message: "The server had an error processing your request",
        type: "api_error",
        param: null,
        code: "internal_error",
      },
    });
    expect(res.body).not.toContain("boom");
    expect(String(errors[0])).toContain("boom");
  });

  it("streams a large response with backpressure, complete and in order", async () => {
    const parts = 400;
    const part = Buffer.alloc(64 * 1024);
    const url = await serve(async () => {
      let i = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(c) {
          if (i === parts) return c.close();
          c.enqueue(new Uint8Array(part.fill(i % 256)));
          i++;
        },
      });
      return new Response(body);
    });
    const got = await new Promise<Buffer>((resolve, reject) => {
      http.get(url, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks)));
        res.on("error", reject);
      });
    });
    expect(got.length).toBe(parts * part.length);
    for (let i = 0; i < parts; i++) expect(got[i * part.length + 7]).toBe(i % 256);
  });
});

describe("refuseMalformedPath", () => {
  it("answers 400 in the OpenAI shape for a path that is not valid percent-encoding, and lets others through", async () => {
    const server = http.createServer((req, res) => {
      if (!refuseMalformedPath(req, res)) res.end("through");
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const ok of ["/v1/models/gpt-4o", "/v1/models/a%2Fb", "/v1/x?q=%E0", "/caf%C3%A9"]) {
      expect((await request(`${base}${ok}`, { method: "GET" })).body, ok).toBe("through");
    }
    for (const bad of ["/v1/models/%E0", "/v1/models/%E0%A4%A", "/%ZZ"]) {
      const res = await request(`${base}${bad}`, { method: "GET" });
      expect(res.status, bad).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ error: { type: "invalid_request_error", code: "invalid_path" } });
    }
  });
});

describe("workerCount", () => {
  it("defaults to one process and accepts whole numbers from 1 to 64", () => {
    expect(workerCount(undefined)).toBe(1);
    expect(workerCount("")).toBe(1);
    expect(workerCount("2")).toBe(2);
    expect(workerCount("64")).toBe(64);
  });

  it("refuses anything else at start", () => {
    for (const v of ["0", "-1", "1.5", "two", "65"]) expect(() => workerCount(v), v).toThrow(/WEB_CONCURRENCY/);
  });
});
