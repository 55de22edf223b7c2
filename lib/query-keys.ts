/** TanStack Query keys in one place, so an invalidation matches the queries it means (a prefix covers those below). */
export const queryKeys = {
  guardrails: {
    all: ["guardrails"] as const,
    list: () => [...queryKeys.guardrails.all, "list"] as const,
  },
  keys: {
    all: ["keys"] as const,
    list: () => [...queryKeys.keys.all, "list"] as const,
  },
  knowledge: {
    all: ["knowledge"] as const,
    /** The company's active collections (the knowledge page and the profiles' picker). */
    collections: () => [...queryKeys.knowledge.all, "collections"] as const,
    documents: (collectionId: string) => [...queryKeys.knowledge.all, "documents", collectionId] as const,
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
  threads: {
    all: ["threads"] as const,
    /** `source` null = every source; `q` null = no text search. */
    list: (source: string | null, q: string | null = null) =>
      [...queryKeys.threads.all, "list", { source, q }] as const,
    /** One thread and everything below it: invalidating this refreshes its messages, runs and steps. */
    detail: (threadId: string) => [...queryKeys.threads.all, "detail", threadId] as const,
    messages: (threadId: string) => [...queryKeys.threads.detail(threadId), "messages"] as const,
    runs: (threadId: string) => [...queryKeys.threads.detail(threadId), "runs"] as const,
    run: (threadId: string, runId: string) => [...queryKeys.threads.runs(threadId), runId] as const,
    /** Keyed by the run's status too: a run writes its steps when it ends, and the new status fetches them. */
    steps: (threadId: string, runId: string, status: string) =>
      [...queryKeys.threads.run(threadId, runId), "steps", { status }] as const,
  },
  tools: {
    all: ["tools"] as const,
    list: () => [...queryKeys.tools.all, "list"] as const,
  },
  usage: {
    all: ["usage"] as const,
    /** `source` null = every source. */
    ledger: (source: string | null) => [...queryKeys.usage.all, "ledger", { source }] as const,
    /**
     * The frame's company name and balance. Under `usage` so that invalidating `usage.all` after
     * anything that spends (a playground run) refreshes the balance too.
     */
    company: () => [...queryKeys.usage.all, "company"] as const,
  },
};
