import bcrypt from "bcryptjs";
import { describe, expect, it } from "vitest";
import { comparePassword, hashPassword } from "./password-hash";

describe("password hashing in worker threads", () => {
  it("hashes and compares", async () => {
    const hash = await hashPassword("correct horse", 4);
    expect(hash).toMatch(/^\$2[ab]\$04\$/);
    expect(await comparePassword("correct horse", hash)).toBe(true);
    expect(await comparePassword("wrong horse", hash)).toBe(false);
  });

  it("hashes made before the move to worker threads stay valid", async () => {
    const legacy2a = bcrypt.hashSync("s3cret-pass", 4);
    const legacy2b = "$2b$04$" + legacy2a.slice(7);
    expect(await comparePassword("s3cret-pass", legacy2a)).toBe(true);
    expect(await comparePassword("s3cret-pass", legacy2b)).toBe(true);
    expect(await comparePassword("other", legacy2a)).toBe(false);
  });

  it("runs many at once, each answered with its own result", async () => {
    const hash = await hashPassword("pw", 4);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => comparePassword(i % 3 === 0 ? "pw" : `nope-${i}`, hash)),
    );
    expect(results).toEqual(Array.from({ length: 12 }, (_, i) => i % 3 === 0));
  });

  it("bcrypt's own error is a rejected promise, and the pool keeps working", async () => {
    await expect(hashPassword(undefined as unknown as string, 4)).rejects.toThrow(
      /bcrypt hash failed: Illegal arguments/,
    );
    expect(await comparePassword("pw", await hashPassword("pw", 4))).toBe(true);
  });
});
