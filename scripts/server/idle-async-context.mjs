// @ts-check
/**
 * On Node 20 every enabled AsyncLocalStorage hooks every promise the process makes, and a store
 * stays enabled once used. Next.js and React keep their request context in stores; the fast lane
 * needs none. So their stores (made from `globalThis.AsyncLocalStorage`, set here first) are
 * switched off while no request Next.js serves is in flight; its next `run()` switches each on.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** @type {Set<AsyncLocalStorage<unknown>>} */
const stores = new Set();

/**
 * A store that is switched off while Next.js serves nothing (see idleAware).
 * @template T
 * @extends {AsyncLocalStorage<T>}
 */
export class IdleAsyncLocalStorage extends AsyncLocalStorage {
  constructor() {
    super();
    stores.add(this);
  }
}

/** Makes the stores Next.js and React create idle ones; call before Next.js loads. */
export function installIdleAsyncLocalStorage() {
  /** @type {{ AsyncLocalStorage?: unknown }} */ (globalThis).AsyncLocalStorage = IdleAsyncLocalStorage;
}

/**
 * Wraps Next.js's request handler: a request is in flight until its response closed and the
 * handler settled, whichever comes later; when none is left, every idle store is switched off.
 * A handler's rejection stays unhandled, as it was.
 * @param {(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => unknown} handle
 * @returns {(req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void}
 */
export function idleAware(handle) {
  let inFlight = 0;
  return (req, res) => {
    inFlight++;
    let open = 2;
    const settled = () => {
      if (--open > 0) return;
      if (--inFlight === 0) for (const store of stores) store.disable();
    };
    res.once("close", settled);
    let result;
    try {
      result = handle(req, res);
    } finally {
      void Promise.resolve(result).finally(settled);
    }
  };
}
