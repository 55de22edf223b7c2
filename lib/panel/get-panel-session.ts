import "server-only";
import { getServerSession } from "next-auth";
import { cache } from "react";
import { db } from "@/db/client";
import { findSessionUser } from "@/lib/users";
import { authOptions, type PanelSession } from "./auth-options";

/**
 * The signed-in panel user and their company, or null. One query: a deleted user or a password
 * reset since sign-in ends the session at once, though its cookie has hours left. Memoised per
 * render, so a layout and its page share the lookup.
 */
export const getPanelSession = cache(findCurrentSession);

async function findCurrentSession(): Promise<PanelSession | null> {
  const session = (await getServerSession(authOptions)) as (PanelSession & { expires: string }) | null;
  if (!session?.companyId || !session.userId || typeof session.passwordChangedAt !== "number") return null;
  const user = await findSessionUser(db, { userId: session.userId, passwordChangedAt: session.passwordChangedAt });
  return user?.companyId === session.companyId ? session : null;
}
