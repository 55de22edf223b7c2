import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { PROFILES_PAGE_SIZE } from "@/components/profiles/api";
import { ProfilesView } from "@/components/profiles/profiles-view";
import { listModels, toPanelModel } from "@/lib/models";
import { PageQuery, toListResponse } from "@/lib/pagination";
import { getPanelSession } from "@/lib/panel/get-panel-session";
import { listProfiles, toPublicProfile } from "@/lib/profiles";
import { TOOLS_PAGE_SIZE } from "@/components/tools/api";
import { listActiveCollections, toPublicCollection } from "@/lib/knowledge";
import { listTools, toPublicTool } from "@/lib/tools";

export const metadata: Metadata = { title: "Profiles · Cockpit Gateway" };

export default async function ProfilesPage() {
  // The layout checks too, but layouts and pages render in parallel: each guards itself.
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const [page, models, tools, collections] = await Promise.all([
    listProfiles(db, {
      companyId: session.companyId,
      page: PageQuery.parse({ limit: PROFILES_PAGE_SIZE, order: "asc" }),
    }),
    listModels({ companyId: session.companyId, includeHidden: true }),
    listTools(db, { companyId: session.companyId, page: PageQuery.parse({ limit: TOOLS_PAGE_SIZE, order: "asc" }) }),
    listActiveCollections(db, { companyId: session.companyId }),
  ]);
  return (
    <ProfilesView
      initialPage={toListResponse(page, toPublicProfile)}
      initialModels={{ object: "list", data: models.map(toPanelModel) }}
      initialTools={toListResponse(tools, toPublicTool)}
      initialCollections={{ object: "list", data: collections.map(toPublicCollection) }}
      loadedAt={Date.now()}
    />
  );
}
