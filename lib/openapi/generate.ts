import { OpenAPIRegistry, OpenApiGeneratorV31 } from "@asteasolutions/zod-to-openapi";
import { registerComponents, SECURITY } from "./common/components";
import { PATH_FAMILIES } from "./paths";

/** The reference's sections, in order; an operation's tag must be one of these (openapi.test.ts). */
export const TAGS = [
  { name: "Chat", description: "OpenAI's chat completions, through the run pipeline." },
  { name: "Responses", description: "OpenAI's Responses API: a response is a run on a conversation's thread." },
  {
    name: "Conversations",
    description: "OpenAI's Conversations API: a conversation is a thread, its items the messages.",
  },
  { name: "Anthropic Messages", description: "Anthropic's Messages API, for Anthropic's SDKs and Claude Code." },
  { name: "Embeddings", description: "OpenAI's embeddings." },
  { name: "Model catalog", description: "The models the company may call, with prices in O₮ per 1M tokens." },
  { name: "Threads", description: "Threads and their messages." },
  { name: "Runs", description: "Runs of a thread, their cancellation and their steps." },
  { name: "Profiles", description: "System prompt, model, knowledge and tools composed into runs." },
  { name: "Tools", description: "Python functions runs may call, run in the sandbox." },
  { name: "Knowledge", description: "Collections, documents and search." },
  { name: "Guardrails", description: "Rules that block, redact or flag input and output." },
  { name: "Account", description: "The key's company, its balance, ledger and usage events." },
  { name: "Keys", description: "SDK keys and short-lived tokens." },
  { name: "SDK", description: "Server-driven views and actions for the widget, and its script." },
  { name: "Webhooks", description: "Inbound events that wake agents." },
  { name: "Meta", description: "This document." },
];

/** The OpenAPI 3.1 document of every /v1 route, built from the zod schemas the routes parse with. */
export function generateOpenApiDocument(info: { version: string }) {
  const registry = new OpenAPIRegistry();
  registerComponents(registry);
  for (const register of PATH_FAMILIES) register(registry);
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Cockpit Gateway API",
      version: info.version,
      description:
        "An OpenAI-compatible API under `/v1`: any OpenAI client works with the gateway's `/v1` as its base URL and an SDK key as its API key. Errors use OpenAI's body; every response carries `x-request-id`.",
    },
    servers: [{ url: "/" }],
    tags: TAGS,
    security: [{ [SECURITY.bearer]: [] }],
  });
}
