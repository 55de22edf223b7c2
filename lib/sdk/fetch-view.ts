import "server-only";
import type { DbOrTx } from "@/db/types";
import { toPublicAction, viewVersion } from "./public";
import { getView } from "./registry";

/**
 * GET /v1/sdk/view/{service}/{view}: the definition, its version, the company's data and the
 * view's actions. `query` holds the request's query parameters (first value of each).
 * @throws not_found for an unknown service or view; invalid_request (ZodError) naming a bad parameter.
 */
export async function fetchView(
  db: DbOrTx,
  args: { companyId: string; service: string; view: string; query: Record<string, string> },
) {
  const { service, view } = getView(args.service, args.view);
  const query = view.query.parse(args.query);
  const data = await view.load(db, { companyId: args.companyId, query });
  const actions = view.actions.map((name) => toPublicAction(service.actions.find((a) => a.name === name)!));
  return {
    service: service.name,
    view: view.name,
    version: viewVersion(view),
    definition: view.definition,
    data,
    actions,
  };
}
