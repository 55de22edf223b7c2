import "server-only";
import { anthropicAdapter } from "./anthropic/adapter";
import type { ProviderGroupConfig } from "./config";
import { localAdapter } from "./local/adapter";
import { openAiAdapter } from "./openai/adapter";
import { tracedAdapter } from "./traced-adapter";
import type { ProviderAdapter } from "./types";

const adapters = new Map<string, ProviderAdapter>();

/** The adapter of a provider group, by its wire protocol. */
export function adapterFor(group: ProviderGroupConfig): ProviderAdapter {
  let adapter = adapters.get(group.id);
  if (!adapter) {
    adapter =
      group.protocol === "local"
        ? localAdapter
        : group.protocol === "anthropic"
          ? tracedAdapter(group, anthropicAdapter(group))
          : tracedAdapter(group, openAiAdapter(group));
    adapters.set(group.id, adapter);
  }
  return adapter;
}
