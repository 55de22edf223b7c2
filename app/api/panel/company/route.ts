import { db } from "@/db/client";
import { getCompany, toPublicCompany } from "@/lib/companies";
import { panelRoute } from "@/lib/http";

/** The frame polls this for the company's name and live balance. */
export const GET = panelRoute(async ({ auth }) =>
  Response.json(toPublicCompany(await getCompany(db, { companyId: auth.companyId }))),
);
