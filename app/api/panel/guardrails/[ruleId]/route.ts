import { db } from "@/db/client";
import { deleteGuardrail, toPublicGuardrail, UpdateGuardrailInput, updateGuardrail } from "@/lib/guardrails";
import { panelRoute, readJson } from "@/lib/http";

type P = { ruleId: string };

export const PATCH = panelRoute<P>(async ({ req, auth, params }) => {
  const input = await readJson(req, UpdateGuardrailInput);
  const rule = await updateGuardrail(db, { companyId: auth.companyId, ruleId: params.ruleId, input });
  return Response.json(toPublicGuardrail(rule));
});

export const DELETE = panelRoute<P>(async ({ auth, params }) => {
  const rule = await deleteGuardrail(db, { companyId: auth.companyId, ruleId: params.ruleId });
  return Response.json({ id: rule.id, object: "guardrail", deleted: true });
});
