import "server-only";
import { getServerSession } from "next-auth";
import { authOptions, type PanelSession } from "./auth-options";

/** The signed-in panel user and their company, or null. */
export async function getPanelSession(): Promise<PanelSession | null> {
  const session = (await getServerSession(authOptions)) as (PanelSession & { expires: string }) | null;
  return session?.companyId && session.userId ? session : null;
}
