import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { ModelsView } from "@/components/models/models-view";
import { listModels, toPanelModel } from "@/lib/models";
import { getPanelSession } from "@/lib/panel/get-panel-session";

export const metadata: Metadata = { title: "Models · Cockpit Gateway" };

export default async function ModelsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  // The layout checks too, but layouts and pages render in parallel: each guards itself.
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const [models, params] = await Promise.all([
    listModels({ companyId: session.companyId, includeHidden: true }),
    searchParams,
  ]);
  return (
    <ModelsView
      initialData={{ object: "list", data: models.map(toPanelModel) }}
      loadedAt={Date.now()}
      initialShowAll={params.all === "1"}
    />
  );
}
