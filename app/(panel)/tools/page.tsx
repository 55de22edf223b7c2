import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { TOOLS_PAGE_SIZE } from "@/components/tools/api";
import { ToolsView } from "@/components/tools/tools-view";
import { PageQuery, toListResponse } from "@/lib/pagination";
import { getPanelSession } from "@/lib/panel/get-panel-session";
import { listTools, toPublicTool } from "@/lib/tools";

export const metadata: Metadata = { title: "Tools · Cockpit Gateway" };

export default async function ToolsPage() {
  // The layout checks too, but layouts and pages render in parallel: each guards itself.
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const page = await listTools(db, {
    companyId: session.companyId,
    page: PageQuery.parse({ limit: TOOLS_PAGE_SIZE, order: "asc" }),
  });
  return <ToolsView initialPage={toListResponse(page, toPublicTool)} loadedAt={Date.now()} />;
}
