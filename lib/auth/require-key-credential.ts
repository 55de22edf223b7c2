import { AppError } from "@/lib/errors";
import { CREDENTIAL, type AuthContext } from "./auth-context";

/**
 * Key creation through the API needs a long-lived key (CONTRACT 4): a 5-minute token lives in a
 * browser, and letting it mint keys would turn a leaked token into a permanent credential.
 * @throws forbidden (403) for a JWT (or anything that is not an SDK key).
 */
export function requireKeyCredential(auth: AuthContext): string {
  if (auth.credential !== CREDENTIAL.key || !auth.keyId) {
    throw new AppError("forbidden", "Creating an SDK key needs a long-lived SDK key; a token cannot create keys", {
      wireCode: "sdk_key_required",
    });
  }
  return auth.keyId;
}
