import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt } from "./columns";
import { companies } from "./companies";

/** A company's Python tools (SPEC "Tool"). Never deleted: a soft delete keeps run records naming the tool intact. */
export const tools = pgTable(
  "tools",
  {
    id: text("id").primaryKey(),
    companyId: text("company_id")
      .notNull()
      .references(() => companies.id),
    /** A Python identifier: the function `python_code` defines and the name the model calls. */
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    /** A JSON Schema with `type: "object"`, checked with Ajv before it is stored. */
    jsonSchema: jsonb("json_schema").$type<Record<string, unknown>>().notNull(),
    pythonCode: text("python_code").notNull(),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
  },
  (t) => [
    index("tools_company_created_idx").on(t.companyId, t.createdAt, t.id),
    // SPEC: a name is unique per company among active tools. The index is the guarantee, so
    // concurrent identical POSTs create one row and the tool loop resolves a name to at most one
    // tool.
    uniqueIndex("tools_active_name_per_company")
      .on(t.companyId, t.name)
      .where(sql`${t.isActive} AND ${t.deletedAt} IS NULL`),
  ],
);

export type Tool = typeof tools.$inferSelect;
