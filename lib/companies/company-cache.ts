import "server-only";
import { db } from "@/db/client";
import type { Company } from "@/db/schema";
import { registerCache } from "@/lib/cache/invalidation";
import { getCompany } from "./get-company";

const TTL_MS = 60_000;
const cache = new Map<string, { company: Pick<Company, "id" | "name">; at: number }>();
const live = registerCache(
  "company",
  (id) => cache.delete(id),
  () => cache.clear(),
);

/**
 * A company's id and name for hot paths, cached per process and evicted everywhere on change; never
 * the balance.
 * @throws not_found
 */
export async function getCompanyIdentity(companyId: string): Promise<Pick<Company, "id" | "name">> {
  const hit = cache.get(companyId);
  if (live() && hit && Date.now() - hit.at < TTL_MS) return hit.company;
  const { id, name } = await getCompany(db, { companyId });
  if (live()) cache.set(companyId, { company: { id, name }, at: Date.now() });
  return { id, name };
}
