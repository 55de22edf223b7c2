import { db } from "@/db/client";
import { AppError } from "@/lib/errors";
import { publicRoute, readJson } from "@/lib/http";
import { requestIsFromLoopback } from "@/lib/net/loopback-peer";
import { completeSetup, CompleteSetupInput } from "@/lib/setup";

/** The first-run setup link's form: creates the first panel user with a one-time token, from this machine only. */
export const POST = publicRoute(async ({ req }) => {
  if (!requestIsFromLoopback()) {
    throw new AppError("forbidden", "Setup is only allowed from the machine the server runs on (loopback).");
  }
  const input = await readJson(req, CompleteSetupInput);
  const user = await completeSetup(db, input);
  return Response.json({ user_id: user.id, email: user.email }, { status: 201 });
});
