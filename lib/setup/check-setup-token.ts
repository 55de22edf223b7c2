import "server-only";
import { eq } from "drizzle-orm";
import { setupTokens, type SetupToken } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { AppError } from "@/lib/errors";
import { setupTokenHash } from "./token-hash";

export const SETUP_LINK_HINT = "Restart `npm start` to print a new setup link.";

export type SetupTokenState = "valid" | "unknown" | "expired" | "used";

/** What a setup link's token is worth now; "unknown" covers a mistyped token and one replaced by a newer link. */
export async function setupTokenState(
  db: DbOrTx,
  args: { token: string; now?: Date },
): Promise<{ state: SetupTokenState; row: SetupToken | null }> {
  const [row] = await db
    .select()
    .from(setupTokens)
    .where(eq(setupTokens.tokenHash, setupTokenHash(args.token)));
  if (!row) return { state: "unknown", row: null };
  if (row.consumedAt) return { state: "used", row };
  if (row.expiresAt.getTime() <= (args.now ?? new Date()).getTime()) return { state: "expired", row };
  return { state: "valid", row };
}

const REFUSALS: Record<Exclude<SetupTokenState, "valid">, { code: "invalid_request" | "conflict"; message: string }> = {
  unknown: {
    code: "invalid_request",
    message: `This setup link is not valid: it is mistyped or a newer one replaced it. ${SETUP_LINK_HINT}`,
  },
  expired: { code: "invalid_request", message: `This setup link has expired. ${SETUP_LINK_HINT}` },
  used: { code: "conflict", message: "This setup link was already used. Sign in at /login." },
};

/** The message a refused link shows, in the page and the API alike. */
export const setupRefusal = (state: Exclude<SetupTokenState, "valid">) => REFUSALS[state];

/** @throws AppError (invalid_request or conflict, param `token`) unless the token is valid. */
export async function getValidSetupToken(db: DbOrTx, args: { token: string; now?: Date }): Promise<SetupToken> {
  const { state, row } = await setupTokenState(db, args);
  if (state !== "valid") {
    const refusal = setupRefusal(state);
    throw new AppError(refusal.code, refusal.message, { param: "token" });
  }
  return row!;
}
