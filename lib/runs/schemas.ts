import { z } from "zod";
import { PageQuery } from "@/lib/pagination";

/** A run's steps read as a timeline: oldest first unless `order=desc`. */
export const StepListQuery = PageQuery.extend({ order: z.enum(["asc", "desc"]).default("asc") });
export type StepListQuery = z.infer<typeof StepListQuery>;
