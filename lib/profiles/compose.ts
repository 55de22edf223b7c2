import "server-only";
import { and, eq, inArray } from "drizzle-orm";
import { profiles, type Profile } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { findDefaultProfile } from "./default-cache";
import { isProfileId, profileNotFound } from "./internal";

export interface ComposeOptions {
  /** The request's `profile_ids`, in order; absent: the company's default profile, if any. */
  profileIds?: string[];
  /** The run's `instructions`: the last system-prompt layer. */
  instructions?: string;
  /** Request overrides of the profiles' toggles (true forces on, false forces off). */
  useKb?: boolean;
  useTools?: boolean;
}

export interface Composition {
  profiles: { id: string; name: string }[];
  /** Non-empty system prompts in profile order, then `instructions`. */
  systemPrompts: string[];
  /** Union, first-seen order. */
  knowledgeBaseIds: string[];
  /** Union, first-seen order. */
  allowedToolNames: string[];
  useKb: boolean;
  useTools: boolean;
  /** The first composed profile's `model_slug` that is set: a suggestion; a request's `model` wins. */
  modelSlug?: string;
}

const union = (lists: string[][]) => [...new Set(lists.flat())];

/** The pure half of composition, over profiles already loaded and in order. */
function composeLoaded(loaded: Profile[], opts: Omit<ComposeOptions, "profileIds"> = {}): Composition {
  const systemPrompts = loaded.map((p) => p.systemPrompt).filter((s) => s.trim() !== "");
  if (opts.instructions && opts.instructions.trim() !== "") systemPrompts.push(opts.instructions);
  return {
    profiles: loaded.map((p) => ({ id: p.id, name: p.name })),
    systemPrompts,
    knowledgeBaseIds: union(loaded.map((p) => p.knowledgeBaseIds)),
    allowedToolNames: union(loaded.map((p) => p.allowedToolNames)),
    // Several profiles: a toggle is on when any of them turns it on (the one that brought the
    // knowledge bases or tools wants them used); the request's override wins over all of them.
    useKb: opts.useKb ?? loaded.some((p) => p.useKb),
    useTools: opts.useTools ?? loaded.some((p) => p.useTools),
    modelSlug: loaded.find((p) => p.modelSlug)?.modelSlug ?? undefined,
  };
}

/**
 * Profiles for a run or completion (CONTRACT 5.9, 6): the named ones in order, in one query, else
 * the company's default. A soft-deleted profile still resolves by id (agents refer to it); the
 * default is always active.
 * @throws not_found with `param: "profile_ids"` for an unknown id or another company's.
 */
export async function composeProfiles(db: DbOrTx, companyId: string, opts: ComposeOptions = {}): Promise<Composition> {
  let loaded: Profile[];
  if (opts.profileIds === undefined) {
    const fallback = await findDefaultProfile(db, companyId);
    loaded = fallback ? [fallback] : [];
  } else {
    // PostgreSQL prints UUIDs in lower case; an id given in upper case names the same profile.
    const ids = [...new Set(opts.profileIds.map((id) => id.toLowerCase()))];
    const bad = ids.find((id) => !isProfileId(id));
    if (bad !== undefined) throw profileNotFound(bad, "profile_ids");
    const rows = ids.length
      ? await db
          .select()
          .from(profiles)
          .where(and(eq(profiles.companyId, companyId), inArray(profiles.id, ids)))
      : [];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const missing = ids.find((id) => !byId.has(id));
    if (missing !== undefined) throw profileNotFound(missing, "profile_ids");
    loaded = ids.map((id) => byId.get(id)!);
  }
  return composeLoaded(loaded, opts);
}
