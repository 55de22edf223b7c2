/** The wire protocols an adapter speaks (lib/providers/registry.ts); the catalog file names one per group. */
type ProviderProtocol = "openai" | "anthropic" | "local";

/** A provider group as the adapters see it: resolved from the model catalog and the environment (lib/models/provider-groups.ts). */
export interface ProviderGroupConfig {
  id: string;
  protocol: ProviderProtocol;
  keyVar: string | null;
  baseUrlVar: string | null;
  apiKey: string | undefined;
  baseUrl: string | null;
}
