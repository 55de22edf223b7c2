import { z } from "zod";

export const Email = z.email().max(254);
export const Password = z.string().min(8, "must be at least 8 characters").max(200);
