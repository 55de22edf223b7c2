import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { GUARDRAILS_PAGE_SIZE } from "@/components/guardrails/api";
import { GuardrailsView } from "@/components/guardrails/guardrails-view";
import { listGuardrails, toPublicGuardrail } from "@/lib/guardrails";
import { PageQuery, toListResponse } from "@/lib/pagination";
import { getPanelSession } from "@/lib/panel/get-panel-session";

export const metadata: Metadata = { title: "Guardrails · Cockpit Gateway" };

export default async function GuardrailsPage() {
  // The layout checks too, but layouts and pages render in parallel: each guards itself.
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const page = await listGuardrails(db, {
    companyId: session.companyId,
    page: PageQuery.parse({ limit: GUARDRAILS_PAGE_SIZE, order: "asc" }),
  });
  return <GuardrailsView initialPage={toListResponse(page, toPublicGuardrail)} loadedAt={Date.now()} />;
}
