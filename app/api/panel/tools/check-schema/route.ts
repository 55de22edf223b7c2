import { panelRoute, readJson } from "@/lib/http";
import { CheckToolSchemaInput, jsonSchemaProblem } from "@/lib/tools";

/** The editor's validate-as-you-type: the same Ajv check as the API, without storing anything. */
export const POST = panelRoute(async ({ req }) => {
  const { json_schema } = await readJson(req, CheckToolSchemaInput);
  const problem = jsonSchemaProblem(json_schema);
  return Response.json({ ok: problem === null, error: problem });
});
