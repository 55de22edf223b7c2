import { env } from "@/lib/env";
import { log } from "@/lib/log";

/**
 * A line per request at `debug`; at `info` only 5xx answers and calls slower than
 * LOG_SLOW_REQUEST_MS, so a busy server's log holds what needs a look. Only the path: query strings
 * and headers may carry secrets.
 */
export function logRequest(
  req: Request,
  status: number,
  started: number,
  requestId: string,
  companyId: string | undefined,
) {
  const ms = Math.round((performance.now() - started) * 100) / 100;
  const failed = status >= 500;
  const slow = ms >= env.LOG_SLOW_REQUEST_MS;
  const level = failed ? "warn" : slow ? "info" : "debug";
  if (!log.isLevelEnabled(level)) return;
  const line = { requestId, method: req.method, path: new URL(req.url).pathname, status, ms, companyId };
  log[level](line, failed ? "request failed" : slow ? "slow request" : "request");
}
