import type { Scope } from "@/db/enums";

// Apart from authenticate.ts, which imports lib/keys: lib/keys needs these types too and would
// import back.
/** `system`: the service acting for a company on its own (an agent woken by a webhook), no key nor user behind it. */
export const CREDENTIAL = { key: "key", jwt: "jwt", session: "session", system: "system" } as const;
type Credential = (typeof CREDENTIAL)[keyof typeof CREDENTIAL];

export interface AuthContext {
  companyId: string;
  scopes: Scope[];
  credential: Credential;
  /** The SDK key behind the call (for a JWT, the key it was minted from); null for panel sessions and the system. */
  keyId: string | null;
  /** Panel user id for sessions; null otherwise. */
  userId: string | null;
  rateLimitPerMinute: number | null;
}
