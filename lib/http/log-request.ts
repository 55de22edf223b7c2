import { log } from "@/lib/log";

/** One line per request. Only the path: query strings and headers may carry secrets. */
export function logRequest(
  req: Request,
  status: number,
  started: number,
  requestId: string,
  companyId: string | undefined,
) {
  if (!log.isLevelEnabled("info")) return;
  log.info(
    {
      requestId,
      method: req.method,
      path: new URL(req.url).pathname,
      status,
      ms: Math.round((performance.now() - started) * 100) / 100,
      companyId,
    },
    "request",
  );
}
