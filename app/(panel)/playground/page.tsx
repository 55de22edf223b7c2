import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { PlaygroundView } from "@/components/playground/playground-view";
import { listModels, toPanelModel } from "@/lib/models";
import { getPanelSession } from "@/lib/panel/get-panel-session";

export const metadata: Metadata = { title: "Playground · Cockpit Gateway" };

export default async function PlaygroundPage() {
  const session = await getPanelSession();
  if (!session) redirect("/login");
  // The whole list, as the models page renders it: both pages share one cached query.
  const models = await listModels({ companyId: session.companyId, includeHidden: true });
  return <PlaygroundView initialModels={{ object: "list", data: models.map(toPanelModel) }} loadedAt={Date.now()} />;
}
