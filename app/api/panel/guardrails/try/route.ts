import { tryGuardrails, TryGuardrailsInput } from "@/lib/guardrails";
import { panelRoute, readJson } from "@/lib/http";

/** The "try it" box: which active rules fire on a sample text, and the text after redaction. */
export const POST = panelRoute(async ({ req, auth }) => {
  const input = await readJson(req, TryGuardrailsInput);
  return Response.json(await tryGuardrails({ companyId: auth.companyId, input }));
});
