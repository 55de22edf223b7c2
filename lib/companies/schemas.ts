import { z } from "zod";
import { storableText } from "@/lib/persistence/pg-text";

export const CompanyName = storableText(z.string().trim().min(1).max(200));
