/**
 * TanStack Query keys of the panel, built in one place so an invalidation always matches the
 * queries it means (a prefix invalidates every query below it).
 */
export const queryKeys = {
  guardrails: {
    all: ["guardrails"] as const,
    list: () => [...queryKeys.guardrails.all, "list"] as const,
  },
  keys: {
    all: ["keys"] as const,
    list: () => [...queryKeys.keys.all, "list"] as const,
  },
  models: {
    all: ["models"] as const,
    /** The company's view of the catalog, hidden slugs included (models page and playground). */
    list: () => [...queryKeys.models.all, "list"] as const,
  },
  profiles: {
    all: ["profiles"] as const,
    list: () => [...queryKeys.profiles.all, "list"] as const,
  },
  usage: {
    all: ["usage"] as const,
    /** `source` null = every source. */
    ledger: (source: string | null) => [...queryKeys.usage.all, "ledger", { source }] as const,
  },
};
