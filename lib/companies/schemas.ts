import { z } from "zod";

export const CompanyName = z.string().trim().min(1).max(200);
