import { AppError } from "@/lib/errors";

/**
 * Bounds the request-body bytes this process holds at once across all requests (32 MiB: one
 * body at the completion limit at a time, since the worker parses one at a time), so ten clients
 * sending 30 MiB each cannot take the server's memory (they raised RSS from 168 to 736 MiB). A
 * body takes its share while it is read and parsed; a request that finds the budget spent waits
 * its turn (first come, first served, without reading its body) and gets a 503 with Retry-After
 * when its turn does not come within BODY_WAIT_MS. Bodies up to SMALL_BODY_BYTES never wait: the
 * ordinary API call is not queued behind anyone's upload.
 */
const BODY_BUDGET_BYTES = 32 * 1024 * 1024;
export const SMALL_BODY_BYTES = 64 * 1024;
const BODY_WAIT_MS = 10_000;

let used = 0;
const waiting: { bytes: number; grant: () => void }[] = [];

function pump(): void {
  while (waiting.length > 0 && used + waiting[0]!.bytes <= BODY_BUDGET_BYTES) {
    const next = waiting.shift()!;
    used += next.bytes;
    next.grant();
  }
}

/** Takes `bytes` of the budget (a body larger than the whole budget takes all of it). */
export async function acquireBodyBytes(bytes: number): Promise<() => void> {
  const n = Math.min(bytes, BODY_BUDGET_BYTES);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    used -= n;
    pump();
  };
  if (waiting.length === 0 && used + n <= BODY_BUDGET_BYTES) {
    used += n;
    return release;
  }
  await new Promise<void>((resolve, reject) => {
    const entry = { bytes: n, grant: () => (clearTimeout(timer), resolve()) };
    const timer = setTimeout(() => {
      const i = waiting.indexOf(entry);
      if (i >= 0) waiting.splice(i, 1);
      reject(
        new AppError("unavailable", "The server is busy receiving other large requests; retry shortly.", {
          wireCode: "server_busy",
          headers: { "retry-after": "1" },
        }),
      );
    }, BODY_WAIT_MS);
    waiting.push(entry);
  });
  return release;
}
