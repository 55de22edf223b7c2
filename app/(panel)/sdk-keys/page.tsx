import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { db } from "@/db/client";
import { KeysView } from "@/components/sdk-keys/keys-view";
import { KEYS_PAGE_SIZE } from "@/components/sdk-keys/api";
import { listKeys, toPublicKey } from "@/lib/keys";
import { PageQuery, toListResponse } from "@/lib/pagination";
import { getPanelSession } from "@/lib/panel/get-panel-session";

export const metadata: Metadata = { title: "API keys · Cockpit Gateway" };

export default async function SdkKeysPage() {
  // The layout checks too, but layouts and pages render in parallel: each guards itself.
  const session = await getPanelSession();
  if (!session) redirect("/login");
  const page = await listKeys(db, { companyId: session.companyId, page: PageQuery.parse({ limit: KEYS_PAGE_SIZE }) });
  return <KeysView initialPage={toListResponse(page, toPublicKey)} loadedAt={Date.now()} />;
}
