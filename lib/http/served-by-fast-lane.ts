import { rawResponseRequests } from "@/lib/process-channels.mjs";

/** Whether the server script's fast lane serves `req` and writes its response itself. */
export function servedByFastLane(req: Request): boolean {
  return rawResponseRequests.get()?.has(req) ?? false;
}
