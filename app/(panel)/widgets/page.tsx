import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { WidgetsView } from "@/components/widgets/widgets-view";
import { listServices } from "@/lib/sdk";
import { getPanelSession } from "@/lib/panel/get-panel-session";

export const metadata: Metadata = { title: "Widgets · Cockpit Gateway" };

export default async function WidgetsPage() {
  // The layout checks too, but layouts and pages render in parallel: each guards itself.
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const services = listServices().data.map((s) => ({ service: s.service, title: s.title, views: s.views }));
  return <WidgetsView services={services} />;
}
