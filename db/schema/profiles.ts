import { sql } from "drizzle-orm";
import { boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { companies } from "./companies";

/** Reusable presets (SPEC "Profile"), with UUID ids (CONTRACT 4). Never deleted: agents must keep resolving them by id. */
export const profiles = pgTable(
  "profiles",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    name: text("name").notNull(),
    systemPrompt: text("system_prompt").notNull().default(""),
    /** A catalog slug, checked against the company's view of the catalog when written. */
    modelSlug: text("model_slug"),
    /** Stored as given; the verbs check they are the company's active collections. */
    knowledgeBaseIds: text("knowledge_base_ids")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    allowedToolNames: text("allowed_tool_names")
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    useKb: boolean("use_kb").notNull().default(true),
    useTools: boolean("use_tools").notNull().default(true),
    isDefault: boolean("is_default").notNull().default(false),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("profiles_company_created_idx").on(t.companyId, t.createdAt, t.id),
    // At most one default per company, whatever the concurrency: the database is the guarantee.
    uniqueIndex("profiles_one_default_per_company")
      .on(t.companyId)
      .where(sql`${t.isDefault} AND ${t.isActive}`),
  ],
);

export type Profile = typeof profiles.$inferSelect;
