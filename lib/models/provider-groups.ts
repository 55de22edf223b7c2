import { readCatalog } from "@/db/catalog/sync";
import { providerVar } from "@/lib/env";
import type { ProviderGroupConfig } from "@/lib/providers/config";

let groups: Map<string, ProviderGroupConfig> | undefined;

/**
 * Provider groups with their key and base URL (CONTRACT 2: `<GROUP>_API_KEY`, `<GROUP>_BASE_URL`).
 * Read once per process: changing a key means a restart, like any configuration.
 */
function providerGroups(): Map<string, ProviderGroupConfig> {
  if (groups) return groups;
  groups = new Map();
  for (const g of readCatalog().groups) {
    const baseUrl = (g.base_url_var ? providerVar(g.base_url_var) : undefined) ?? g.default_base_url;
    groups.set(g.id, {
      id: g.id,
      protocol: g.protocol,
      keyVar: g.key_var,
      baseUrlVar: g.base_url_var,
      apiKey: g.key_var ? providerVar(g.key_var) : undefined,
      baseUrl: baseUrl ? baseUrl.replace(/\/+$/, "") : null,
    });
  }
  return groups;
}

export function providerGroup(id: string): ProviderGroupConfig | undefined {
  return providerGroups().get(id);
}
