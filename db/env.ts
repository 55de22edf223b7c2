import { z } from "zod";

/**
 * The database's configuration, read here so `db/` needs nothing from `lib/`; lib/env.ts extends
 * this schema, so every variable is still validated at boot in one place.
 */
const emptyAsUndefined = (v: unknown) => (v === "" ? undefined : v);

export const DatabaseEnv = z.object({
  DATABASE_URL: z.preprocess(emptyAsUndefined, z.url().optional()),
  /** Embedded database (`<DATA_DIR>/pg`) and the generated AUTH_SECRET. */
  DATA_DIR: z.preprocess(emptyAsUndefined, z.string().default(".data")),
  EMBEDDED_PG_PORT: z.preprocess(emptyAsUndefined, z.coerce.number().int().min(1024).max(65535).default(54329)),
});

export type DatabaseEnv = z.infer<typeof DatabaseEnv>;

/** @throws naming each variable that is wrong. */
export function parseEnvWith<T extends z.ZodType>(schema: T, source: NodeJS.ProcessEnv): z.infer<T> {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

export const dbEnv: DatabaseEnv = parseEnvWith(DatabaseEnv, process.env);

/** The embedded cluster's directory (relative paths resolve against the working directory). */
export const embeddedDataDir = () => `${dbEnv.DATA_DIR}/pg`;
