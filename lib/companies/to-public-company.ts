import type { Company } from "@/db/schema";
import { microToOt } from "@/lib/billing/money";

/** What the panel's frame shows of the signed-in company: its name and spendable balance. */
export function toPublicCompany(company: Company) {
  return { id: company.id, name: company.name, balance_ot: microToOt(company.balanceMicro) };
}

export type PublicCompany = ReturnType<typeof toPublicCompany>;
