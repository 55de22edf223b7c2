import { toPublicService } from "./public";
import { SERVICES } from "./registry";

/** GET /v1/sdk/views (CONTRACT 8): every service with its views and actions. */
export function listServices() {
  return { object: "list" as const, data: SERVICES.map(toPublicService) };
}
