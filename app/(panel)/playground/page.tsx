import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { PlaygroundView } from "@/components/playground/playground-view";
import { listModels, toPanelModel } from "@/lib/models";
import { getPanelSession } from "@/lib/panel/get-panel-session";
import { listProfiles } from "@/lib/profiles";

export const metadata: Metadata = { title: "Playground · Cockpit Gateway" };

/** The picker lists this many profiles (the API's largest page). */
const PROFILE_LIMIT = 100;

export default async function PlaygroundPage() {
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const [models, profiles] = await Promise.all([
    // The whole list, as the models page renders it: both pages share one cached query.
    listModels({ companyId: session.companyId, includeHidden: true }),
    listProfiles(db, { companyId: session.companyId, page: { limit: PROFILE_LIMIT, order: "asc" } }),
  ]);
  return (
    <PlaygroundView
      initialModels={{ object: "list", data: models.map(toPanelModel) }}
      loadedAt={Date.now()}
      profiles={profiles.data.map((p) => ({ id: p.id, name: p.name, is_default: p.isDefault }))}
    />
  );
}
