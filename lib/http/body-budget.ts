import { AppError } from "@/lib/errors";

/**
 * Caps the request-body bytes held at once across all requests, so many large uploads cannot
 * exhaust memory. A request waits its turn (FIFO, body unread) and gets a 503 with Retry-After
 * after BODY_WAIT_MS; bodies up to SMALL_BODY_BYTES never wait.
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
