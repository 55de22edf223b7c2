import fs from "node:fs";
import path from "node:path";
import type postgres from "postgres";

/** The catalog file loaded at start; bump the file (and this name) for a new snapshot. */
const CATALOG_FILE = "models-2026-05-18.json";

interface CatalogModel {
  slug: string;
  upstream_id: string;
  /** `embedding`: served by /v1/embeddings only; absent: a chat model. */
  kind?: "chat" | "embedding";
  /** An embedding model's vector length, and whether a request may ask for fewer (`dimensions`). */
  dimensions?: number;
  supports_dimensions?: boolean;
  context_window: number;
  /** The provider's documented maximum output per request, where it is below the default cap or matters. */
  max_output_tokens?: number;
  supports_images: boolean;
  supports_tools: boolean;
  input_per_m: number;
  cached_input_per_m: number;
  output_per_m: number;
  status: string;
  recommended: boolean;
  replacement?: string;
  fallbacks: string[];
  description?: string;
}

interface CatalogGroup {
  id: string;
  protocol: "openai" | "anthropic" | "local";
  key_var: string | null;
  base_url_var: string | null;
  default_base_url: string | null;
  models: CatalogModel[];
}

export interface CatalogFile {
  version: string;
  groups: CatalogGroup[];
}

export function readCatalog(): CatalogFile {
  return JSON.parse(fs.readFileSync(path.join(process.cwd(), "db/catalog", CATALOG_FILE), "utf8")) as CatalogFile;
}

/** O₮ per million tokens → µO₮ per million tokens, exact at 6 decimals. */
const micro = (ot: number) => Math.round(ot * 1_000_000);

/**
 * Upserts the catalog file into `models` in one statement, at every start under the migration lock.
 * Slugs that left the file are deprecated, never deleted: ledger rows and overrides still point at
 * them.
 */
export async function syncCatalog(conn: postgres.Sql): Promise<void> {
  const catalog = readCatalog();
  const rows = catalog.groups.flatMap((g) =>
    g.models.map((m) => ({
      slug: m.slug,
      provider_group: g.id,
      protocol: g.protocol,
      upstream_id: m.upstream_id,
      context_window: m.context_window,
      supports_images: m.supports_images,
      supports_tools: m.supports_tools,
      input_micro_per_m: micro(m.input_per_m),
      cached_input_micro_per_m: micro(m.cached_input_per_m),
      output_micro_per_m: micro(m.output_per_m),
      status: m.status,
      recommended: m.recommended,
      replacement: m.replacement ?? null,
      fallbacks: m.fallbacks,
      description: m.description ?? null,
      catalog_version: catalog.version,
    })),
  );
  // One multi-row upsert: this runs at every start of every process (CLI calls included).
  await conn.begin(async (tx) => {
    await tx`
      INSERT INTO models ${tx(rows)}
      ON CONFLICT (slug) DO UPDATE SET
        provider_group = EXCLUDED.provider_group, protocol = EXCLUDED.protocol, upstream_id = EXCLUDED.upstream_id,
        context_window = EXCLUDED.context_window, supports_images = EXCLUDED.supports_images,
        supports_tools = EXCLUDED.supports_tools, input_micro_per_m = EXCLUDED.input_micro_per_m,
        cached_input_micro_per_m = EXCLUDED.cached_input_micro_per_m, output_micro_per_m = EXCLUDED.output_micro_per_m,
        status = EXCLUDED.status, recommended = EXCLUDED.recommended, replacement = EXCLUDED.replacement,
        fallbacks = EXCLUDED.fallbacks, description = EXCLUDED.description, catalog_version = EXCLUDED.catalog_version,
        updated_at = now()
      WHERE models.catalog_version IS DISTINCT FROM EXCLUDED.catalog_version
         OR models.upstream_id IS DISTINCT FROM EXCLUDED.upstream_id
         OR models.input_micro_per_m IS DISTINCT FROM EXCLUDED.input_micro_per_m
         OR models.output_micro_per_m IS DISTINCT FROM EXCLUDED.output_micro_per_m
         OR models.status IS DISTINCT FROM EXCLUDED.status`;
    await tx`UPDATE models SET status = 'deprecated', updated_at = now()
             WHERE catalog_version <> ${catalog.version} AND status <> 'deprecated'`;
  });
}
