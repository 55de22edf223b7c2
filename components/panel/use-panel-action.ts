"use client";

import { useRouter } from "next/navigation";
import { useCallback, useState } from "react";

/**
 * A panel form's action state: `run(fn)` marks busy, clears the error, awaits `fn`, then refreshes
 * server data; a throw becomes `error`. Resolves with `fn`'s result, or undefined when it threw.
 */
export function usePanelAction() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(
    async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
      setBusy(true);
      setError(null);
      try {
        const out = await fn();
        router.refresh();
        return out;
      } catch (err) {
        setError(err instanceof Error ? err.message : String(err));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    [router],
  );
  return { busy, error, setError, run };
}
