import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { env } from "@/lib/env";

let cached: string | undefined;

/**
 * AUTH_SECRET, or one generated once under DATA_DIR so every process and restart shares it. `wx`
 * makes the first writer win when two processes start at once; the loser reads its file.
 */
export function authSecret(): string {
  if (cached) return cached;
  if (env.AUTH_SECRET) return (cached = env.AUTH_SECRET);
  const file = path.resolve(env.DATA_DIR, "auth-secret");
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(48).toString("base64url"), { flag: "wx", mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
  let secret = fs.readFileSync(file, "utf8").trim();
  for (let i = 0; secret.length < 32 && i < 50; i++) {
    // The winner may not have finished writing yet.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    secret = fs.readFileSync(file, "utf8").trim();
  }
  if (secret.length < 32) throw new Error(`${file} holds no usable secret; delete it or set AUTH_SECRET`);
  return (cached = secret);
}
