import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { idleAware, IdleAsyncLocalStorage, installIdleAsyncLocalStorage } from "./idle-async-context.mjs";

type Handle = (req: http.IncomingMessage, res: http.ServerResponse) => unknown;

const servers: http.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => (s.closeAllConnections(), s.close(r)))));
});

/** A loopback server whose every request goes through idleAware(handle), as Next.js's requests do. */
async function serve(handle: Handle): Promise<string> {
  const server = http.createServer(idleAware(handle));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { opened, open };
}

/** What `store` holds in a continuation that resumes after `gate` opens, begun in run(value). */
function storeAfter(store: IdleAsyncLocalStorage<string>, value: string, wait: Promise<void>): Promise<unknown> {
  return store.run(value, async () => {
    await wait;
    return store.getStore();
  });
}

describe("idle async context", () => {
  it("switches the stores off once no request is in flight: a continuation begun before sees no store", async () => {
    const store = new IdleAsyncLocalStorage<string>();
    const url = await serve((_req, res) => store.run("request", () => res.end("ok")));
    const later = gate();
    const seen = storeAfter(store, "outside", later.opened);
    expect(await (await fetch(url)).text()).toBe("ok");
    await new Promise((r) => setTimeout(r, 20));
    later.open();
    expect(await seen).toBeUndefined();
  });

  it("a later run() switches its store on again", async () => {
    const store = new IdleAsyncLocalStorage<string>();
    const url = await serve((_req, res) => res.end("ok"));
    await (await fetch(url)).text();
    await new Promise((r) => setTimeout(r, 20));
    const next = gate();
    const seen = storeAfter(store, "again", next.opened);
    next.open();
    expect(await seen).toBe("again");
  });

  it("keeps the stores while another request is in flight", async () => {
    const store = new IdleAsyncLocalStorage<string>();
    const release = gate();
    const url = await serve(async (req, res) => {
      if (req.url === "/slow") res.end(String(await storeAfter(store, "slow", release.opened)));
      else res.end("fast");
    });
    const slow = fetch(`${url}/slow`).then((r) => r.text());
    await new Promise((r) => setTimeout(r, 20));
    expect(await (await fetch(`${url}/fast`)).text()).toBe("fast");
    await new Promise((r) => setTimeout(r, 20));
    release.open();
    expect(await slow).toBe("slow");
  });

  it("a request is in flight until its handler settles, even when its response closed first", async () => {
    const store = new IdleAsyncLocalStorage<string>();
    const release = gate();
    const seen: unknown[] = [];
    const done = gate();
    const url = await serve(async (_req, res) => {
      await store.run("tail", async () => {
        res.end("answered");
        await release.opened;
        seen.push(store.getStore());
      });
      done.open();
    });
    expect(await (await fetch(url)).text()).toBe("answered");
    await new Promise((r) => setTimeout(r, 20));
    release.open();
    await done.opened;
    expect(seen).toEqual(["tail"]);
  });

  it("installs the class Next.js and React create their stores from", () => {
    const g = globalThis as { AsyncLocalStorage?: unknown };
    const before = g.AsyncLocalStorage;
    try {
      installIdleAsyncLocalStorage();
      const Made = g.AsyncLocalStorage as new () => unknown;
      expect(new Made()).toBeInstanceOf(IdleAsyncLocalStorage);
    } finally {
      g.AsyncLocalStorage = before;
    }
  });
});
