import "server-only";
import os from "node:os";
import { Worker } from "node:worker_threads";

/**
 * bcrypt in up to POOL_SIZE worker threads, since a compare on the main thread stalls every request
 * of the process; stopped after IDLE_MS idle. Hashes stay bcryptjs's ($2a$/$2b$). The worker is
 * built from source so the build needs no extra entry; its `require("bcryptjs")` resolves from the
 * project directory every process runs in.
 */
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const bcrypt = require("bcryptjs");
parentPort.on("message", ({ id, op, password, hashOrCost }) => {
  try {
    const result = op === "hash" ? bcrypt.hashSync(password, hashOrCost) : bcrypt.compareSync(password, hashOrCost);
    parentPort.postMessage({ id, result });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
`;

const POOL_SIZE = Math.max(1, Math.min(2, os.availableParallelism()));
const IDLE_MS = 60_000;

interface Job {
  id: number;
  op: "hash" | "compare";
  password: string;
  hashOrCost: string | number;
  resolve: (value: string | boolean) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  idleTimer?: NodeJS.Timeout;
}

const queue: Job[] = [];
const slots: Slot[] = [];
let nextId = 0;

function startSlot(): Slot {
  const slot: Slot = { worker: new Worker(WORKER_SOURCE, { eval: true }), job: null };
  slot.worker.on("message", (msg: { id: number; result?: string | boolean; error?: string }) => {
    const job = slot.job;
    slot.job = null;
    if (job && job.id === msg.id) {
      if (msg.error !== undefined) job.reject(new Error(`bcrypt ${job.op} failed: ${msg.error}`));
      else job.resolve(msg.result!);
    }
    dispatch();
  });
  // A worker that dies (out of memory, a bug) fails its job; the next job starts a fresh one.
  const fail = (err: Error) => {
    slots.splice(slots.indexOf(slot), 1);
    clearTimeout(slot.idleTimer);
    slot.job?.reject(err);
    slot.job = null;
    dispatch();
  };
  slot.worker.on("error", fail);
  slot.worker.on("exit", (code) => {
    if (slots.includes(slot)) fail(new Error(`bcrypt worker exited with code ${code}`));
  });
  slots.push(slot);
  return slot;
}

function dispatch(): void {
  while (queue.length > 0) {
    const slot = slots.find((s) => s.job === null) ?? (slots.length < POOL_SIZE ? startSlot() : undefined);
    if (!slot) return;
    const job = queue.shift()!;
    slot.job = job;
    clearTimeout(slot.idleTimer);
    // Referenced while busy, so a CLI awaiting a hash does not exit under it; unreferenced when idle.
    slot.worker.ref();
    slot.worker.postMessage({ id: job.id, op: job.op, password: job.password, hashOrCost: job.hashOrCost });
  }
  for (const slot of slots) {
    if (slot.job !== null) continue;
    slot.worker.unref();
    clearTimeout(slot.idleTimer);
    slot.idleTimer = setTimeout(() => {
      if (slot.job !== null) return;
      slots.splice(slots.indexOf(slot), 1);
      void slot.worker.terminate();
    }, IDLE_MS);
    slot.idleTimer.unref();
  }
}

function run<T extends string | boolean>(op: Job["op"], password: string, hashOrCost: string | number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    queue.push({ id: nextId++, op, password, hashOrCost, resolve: resolve as Job["resolve"], reject });
    dispatch();
  });
}

/** A bcrypt hash of `password` at `cost`, computed off the main thread. */
export function hashPassword(password: string, cost: number): Promise<string> {
  return run<string>("hash", password, cost);
}

/** Whether `password` matches the bcrypt `hash`, computed off the main thread. */
export function comparePassword(password: string, hash: string): Promise<boolean> {
  return run<boolean>("compare", password, hash);
}
