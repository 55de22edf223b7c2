import { describe, expect, it } from "vitest";
import { isClosedSocketWrite } from "./driver-faults";

function typeError(message: string, frames: string[]): TypeError {
  const err = new TypeError(message);
  err.stack = [`TypeError: ${message}`, ...frames.map((f) => `    at ${f}`)].join("\n");
  return err;
}

describe("isClosedSocketWrite", () => {
  it("recognises postgres.js writing to a closed connection's socket (ESM and CJS builds)", () => {
    const message = "Cannot read properties of null (reading 'write')";
    expect(
      isClosedSocketWrite(
        typeError(message, [
          "Immediate.nextWrite (file:///app/node_modules/postgres/src/connection.js:255:22)",
          "process.processImmediate (node:internal/timers:483:21)",
        ]),
      ),
    ).toBe(true);
    expect(
      isClosedSocketWrite(
        typeError(message, ["Immediate.nextWrite (/app/node_modules/postgres/cjs/src/connection.js:255:22)"]),
      ),
    ).toBe(true);
  });

  it("leaves every other error to crash the process", () => {
    expect(
      isClosedSocketWrite(
        typeError("Cannot read properties of null (reading 'write')", ["Socket.send (/app/lib/webhooks/send.js:3:1)"]),
      ),
    ).toBe(false);
    expect(
      isClosedSocketWrite(
        typeError("Cannot read properties of null (reading 'id')", [
          "Immediate.nextWrite (/app/node_modules/postgres/src/connection.js:255:22)",
        ]),
      ),
    ).toBe(false);
    const plain = new Error("Cannot read properties of null (reading 'write')");
    plain.stack = "Error: x\n    at Immediate.nextWrite (/app/node_modules/postgres/src/connection.js:255:22)";
    expect(isClosedSocketWrite(plain)).toBe(false);
    expect(isClosedSocketWrite(null)).toBe(false);
  });
});
