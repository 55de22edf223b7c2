import "server-only";
import { and, asc, eq } from "drizzle-orm";
import { db } from "@/db/client";
import { GUARDRAIL_STAGE } from "@/db/enums";
import { guardrailRules, type GuardrailRule } from "@/db/schema";
import type { DbOrTx } from "@/db/types";
import { publishInvalidation, registerCache } from "@/lib/cache/invalidation";
import { log } from "@/lib/log";
import { compileMatcher, type CompiledRule } from "./compile-rule";

/** A company's active rules, compiled, by stage, in creation order. */
export interface CompanyRules {
  input: readonly CompiledRule[];
  output: readonly CompiledRule[];
}

const NO_RULES: CompanyRules = Object.freeze({ input: [], output: [] });

/** Upper bound on staleness if a notification is ever lost (as the key cache). */
const TTL_MS = 30_000;
const MAX_COMPANIES = 10_000;
const TOPIC = "guardrails";

interface Entry {
  rules: CompanyRules;
  at: number;
}
const byCompany = new Map<string, Entry>();
/** Loads in flight, so a burst of first calls of a company costs one query. */
const loading = new Map<string, Promise<CompanyRules>>();
/** Bumped by every invalidation: a load that started before one must not be cached. */
const generation = new Map<string, number>();

function evict(companyId: string): void {
  byCompany.delete(companyId);
  loading.delete(companyId);
  generation.set(companyId, (generation.get(companyId) ?? 0) + 1);
}

/** A change in any process (API, panel) evicts the company's rules everywhere within milliseconds. */
const cacheLive = registerCache(TOPIC, evict, () => {
  byCompany.clear();
  loading.clear();
  generation.clear();
});

function compileRow(row: GuardrailRule): CompiledRule | null {
  try {
    const match = { type: row.matchType, pattern: row.pattern };
    return { id: row.id, name: row.name, stage: row.stage, action: row.action, match, matcher: compileMatcher(match) };
  } catch (err) {
    // A stored pattern that no longer compiles (stricter engine) is skipped, not a failure of every
    // call of the company.
    log.error({ err, ruleId: row.id }, "stored guardrail pattern does not compile; rule skipped");
    return null;
  }
}

async function load(companyId: string): Promise<CompanyRules> {
  const rows = await db
    .select()
    .from(guardrailRules)
    .where(and(eq(guardrailRules.companyId, companyId), eq(guardrailRules.isActive, true)))
    .orderBy(asc(guardrailRules.createdAt), asc(guardrailRules.id));
  if (rows.length === 0) return NO_RULES;
  const compiled = rows.map(compileRow).filter((r): r is CompiledRule => r !== null);
  return {
    input: compiled.filter((r) => r.stage === GUARDRAIL_STAGE.input),
    output: compiled.filter((r) => r.stage === GUARDRAIL_STAGE.output),
  };
}

/** The cached rules when fresh, else undefined: lets the hot path skip even a promise. */
export function peekCompanyRules(companyId: string): CompanyRules | undefined {
  if (!cacheLive()) return undefined;
  const hit = byCompany.get(companyId);
  return hit && Date.now() - hit.at < TTL_MS ? hit.rules : undefined;
}

/**
 * The company's active rules, from the per-process cache or one query. The cache is bypassed while
 * the invalidation listener is down, so a change is never missed.
 */
export async function companyRules(companyId: string): Promise<CompanyRules> {
  const hit = peekCompanyRules(companyId);
  if (hit) return hit;
  if (!cacheLive()) return load(companyId);
  const inFlight = loading.get(companyId);
  if (inFlight) return inFlight;
  const gen = generation.get(companyId) ?? 0;
  const promise = load(companyId).then(
    (rules) => {
      if (loading.get(companyId) === promise) loading.delete(companyId);
      if ((generation.get(companyId) ?? 0) === gen && cacheLive()) {
        byCompany.set(companyId, { rules, at: Date.now() });
        if (byCompany.size > MAX_COMPANIES) byCompany.delete(byCompany.keys().next().value!);
      }
      return rules;
    },
    (err: unknown) => {
      if (loading.get(companyId) === promise) loading.delete(companyId);
      throw err;
    },
  );
  loading.set(companyId, promise);
  return promise;
}

/** Evicts locally now and tells every other process (delivered when `conn`'s transaction commits). */
export async function announceRulesChanged(conn: DbOrTx, companyId: string): Promise<void> {
  await publishInvalidation(conn, TOPIC, companyId);
}
