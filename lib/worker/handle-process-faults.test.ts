import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const renewPools = vi.fn();
vi.mock("@/db/resilience", () => ({ renewPools, isConnectionError: () => false }));
const { handleDriverFaults } = await import("./handle-process-faults");

function closedSocketWrite(): TypeError {
  const err = new TypeError("Cannot read properties of null (reading 'write')");
  err.stack = `${err.message}\n    at Immediate.nextWrite (file:///app/node_modules/postgres/src/connection.js:255:22)`;
  return err;
}

/** What Node does with an uncaught exception: every listener gets it. */
const raise = (err: Error) => {
  for (const listener of process.listeners("uncaughtException")) listener(err, "uncaughtException");
};

describe("handleDriverFaults (the server's main thread)", () => {
  // The runner's own listeners would report the synthetic errors: set aside while each case runs.
  let saved: NodeJS.UncaughtExceptionListener[] = [];
  beforeEach(() => {
    saved = process.listeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    renewPools.mockClear();
  });
  afterEach(() => {
    process.removeAllListeners("uncaughtException");
    for (const l of saved) process.on("uncaughtException", l);
  });

  it("renews the pools after the driver wrote to a closed connection, and leaves other errors alone", () => {
    handleDriverFaults();
    raise(closedSocketWrite());
    expect(renewPools).toHaveBeenCalledTimes(1);
    raise(new Error("something else"));
    expect(renewPools).toHaveBeenCalledTimes(1);
  });
});
