import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { KnowledgeView } from "@/components/knowledge/knowledge-view";
import { env } from "@/lib/env";
import { listActiveCollections, toPublicCollection } from "@/lib/knowledge";
import { getPanelSession } from "@/lib/panel/get-panel-session";

export const metadata: Metadata = { title: "Knowledge · Cockpit Gateway" };

export default async function KnowledgePage() {
  // The layout checks too, but layouts and pages render in parallel: each guards itself.
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const collections = await listActiveCollections(db, { companyId: session.companyId });
  return (
    <KnowledgeView
      initialCollections={{ object: "list", data: collections.map(toPublicCollection) }}
      loadedAt={Date.now()}
      maxUploadMb={env.MAX_UPLOAD_MB}
    />
  );
}
