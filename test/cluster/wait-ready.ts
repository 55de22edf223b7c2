/** How long an app may take from its start to `/api/ready` answering 200. */
const READY_TIMEOUT_MS = 90_000;

/**
 * Polls `url`'s `/api/ready` until it answers 200. `gone` says why the app is no longer running
 * (it failed at start: the wait ends with that), or null while it runs.
 */
export async function waitForReady(
  index: number,
  url: string,
  gone: () => Promise<string | null> | string | null,
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const why = await gone();
    if (why) throw new Error(`app ${index} ${why}`);
    const ok = await fetch(`${url}/api/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`app ${index} not ready within ${READY_TIMEOUT_MS} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
