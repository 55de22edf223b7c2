/** Every enumerated value, defined once; types, zod enums and pgEnums derive from these. */
export const SCOPE = { chat: "chat", view: "view", action: "action", admin: "admin" } as const;
export const SCOPES = Object.values(SCOPE) as [Scope, ...Scope[]];
export type Scope = (typeof SCOPE)[keyof typeof SCOPE];

export const KEY_STATUS = { active: "active", revoked: "revoked" } as const;
export const KEY_STATUSES = Object.values(KEY_STATUS) as [KeyStatus, ...KeyStatus[]];
export type KeyStatus = (typeof KEY_STATUS)[keyof typeof KEY_STATUS];

export const LEDGER_KIND = {
  grant: "grant",
  completion: "completion",
  run: "run",
  usage: "usage",
  adjustment: "adjustment",
} as const;
export const LEDGER_KINDS = Object.values(LEDGER_KIND) as [LedgerKind, ...LedgerKind[]];
export type LedgerKind = (typeof LEDGER_KIND)[keyof typeof LEDGER_KIND];

export const RESERVATION_STATUS = { held: "held", settled: "settled", released: "released" } as const;
export const RESERVATION_STATUSES = Object.values(RESERVATION_STATUS) as [ReservationStatus, ...ReservationStatus[]];
export type ReservationStatus = (typeof RESERVATION_STATUS)[keyof typeof RESERVATION_STATUS];

export const USAGE_SOURCE = { voice_call: "voice_call", whisper: "whisper" } as const;
export const USAGE_SOURCES = Object.values(USAGE_SOURCE) as [UsageSource, ...UsageSource[]];
export type UsageSource = (typeof USAGE_SOURCE)[keyof typeof USAGE_SOURCE];

export const USAGE_DIRECTION = { inbound: "inbound", outbound: "outbound" } as const;
export const USAGE_DIRECTIONS = Object.values(USAGE_DIRECTION) as [UsageDirection, ...UsageDirection[]];
export type UsageDirection = (typeof USAGE_DIRECTION)[keyof typeof USAGE_DIRECTION];

export const MODEL_STATUS = { active: "active", disabled: "disabled", deprecated: "deprecated" } as const;
export const MODEL_STATUSES = Object.values(MODEL_STATUS) as [ModelStatus, ...ModelStatus[]];
export type ModelStatus = (typeof MODEL_STATUS)[keyof typeof MODEL_STATUS];

export const PROVIDER_PROTOCOL = { openai: "openai", anthropic: "anthropic", local: "local" } as const;
export const PROVIDER_PROTOCOLS = Object.values(PROVIDER_PROTOCOL) as [ProviderProtocol, ...ProviderProtocol[]];
export type ProviderProtocol = (typeof PROVIDER_PROTOCOL)[keyof typeof PROVIDER_PROTOCOL];

export const THREAD_SOURCE = {
  api: "api",
  completions: "completions",
  webhook: "webhook",
  responses: "responses",
  conversations: "conversations",
  messages: "messages",
} as const;
export const THREAD_SOURCES = Object.values(THREAD_SOURCE) as [ThreadSource, ...ThreadSource[]];
export type ThreadSource = (typeof THREAD_SOURCE)[keyof typeof THREAD_SOURCE];

export const RUN_STATUS = {
  queued: "queued",
  in_progress: "in_progress",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
} as const;
export const RUN_STATUSES = Object.values(RUN_STATUS) as [RunStatus, ...RunStatus[]];
export type RunStatus = (typeof RUN_STATUS)[keyof typeof RUN_STATUS];

export const GUARDRAIL_STAGE = { input: "input", output: "output" } as const;
export const GUARDRAIL_STAGES = Object.values(GUARDRAIL_STAGE) as [GuardrailStage, ...GuardrailStage[]];
export type GuardrailStage = (typeof GUARDRAIL_STAGE)[keyof typeof GUARDRAIL_STAGE];

export const GUARDRAIL_MATCH_TYPE = { keyword: "keyword", regex: "regex" } as const;
export const GUARDRAIL_MATCH_TYPES = Object.values(GUARDRAIL_MATCH_TYPE) as [
  GuardrailMatchType,
  ...GuardrailMatchType[],
];
export type GuardrailMatchType = (typeof GUARDRAIL_MATCH_TYPE)[keyof typeof GUARDRAIL_MATCH_TYPE];

export const GUARDRAIL_ACTION = { block: "block", redact: "redact", flag: "flag" } as const;
export const GUARDRAIL_ACTIONS = Object.values(GUARDRAIL_ACTION) as [GuardrailAction, ...GuardrailAction[]];
export type GuardrailAction = (typeof GUARDRAIL_ACTION)[keyof typeof GUARDRAIL_ACTION];

export const DOCUMENT_STATUS = { pending: "pending", ready: "ready", failed: "failed" } as const;
export const DOCUMENT_STATUSES = Object.values(DOCUMENT_STATUS) as [DocumentStatus, ...DocumentStatus[]];
export type DocumentStatus = (typeof DOCUMENT_STATUS)[keyof typeof DOCUMENT_STATUS];

/** The document kinds allowed at upload (lib/knowledge/contracts.ts DOCUMENT_KIND is the same set). */
export const DOCUMENT_KIND = {
  pdf: "pdf",
  docx: "docx",
  xlsx: "xlsx",
  doc: "doc",
  xls: "xls",
  txt: "txt",
  md: "md",
} as const;
export const DOCUMENT_KINDS = Object.values(DOCUMENT_KIND) as [DocumentKind, ...DocumentKind[]];
export type DocumentKind = (typeof DOCUMENT_KIND)[keyof typeof DOCUMENT_KIND];

/** SDK service `crm`: the stages a deal moves through. */
export const DEAL_STAGE = {
  lead: "lead",
  qualified: "qualified",
  proposal: "proposal",
  won: "won",
  lost: "lost",
} as const;
export const DEAL_STAGES = Object.values(DEAL_STAGE) as [DealStage, ...DealStage[]];
export type DealStage = (typeof DEAL_STAGE)[keyof typeof DEAL_STAGE];

/** SDK service `billing`: an invoice is created `open` and becomes `paid` once. */
export const INVOICE_STATUS = { open: "open", paid: "paid" } as const;
export const INVOICE_STATUSES = Object.values(INVOICE_STATUS) as [InvoiceStatus, ...InvoiceStatus[]];
export type InvoiceStatus = (typeof INVOICE_STATUS)[keyof typeof INVOICE_STATUS];

/**
 * An inbound event's life: `accepted`, `routed`, `processing`, then `done` (all runs completed or
 * none matched), `failed` (no retry fixes it, e.g. 402) or `dead` (retries spent).
 */
export const WEBHOOK_EVENT_STATUS = {
  accepted: "accepted",
  routed: "routed",
  processing: "processing",
  done: "done",
  failed: "failed",
  dead: "dead",
} as const;
export const WEBHOOK_EVENT_STATUSES = Object.values(WEBHOOK_EVENT_STATUS) as [
  WebhookEventStatus,
  ...WebhookEventStatus[],
];
export type WebhookEventStatus = (typeof WEBHOOK_EVENT_STATUS)[keyof typeof WEBHOOK_EVENT_STATUS];

/** One agent's part in an event (webhook_event_runs): claimed, its run under way, then its outcome. */
export const WEBHOOK_RUN_STATUS = {
  pending: "pending",
  running: "running",
  completed: "completed",
  failed: "failed",
} as const;
export const WEBHOOK_RUN_STATUSES = Object.values(WEBHOOK_RUN_STATUS) as [WebhookRunStatus, ...WebhookRunStatus[]];
export type WebhookRunStatus = (typeof WEBHOOK_RUN_STATUS)[keyof typeof WEBHOOK_RUN_STATUS];

/** What a catalog slug serves: chat models take completions, runs and every chat protocol; embedding models /v1/embeddings. */
export const MODEL_KIND = { chat: "chat", embedding: "embedding" } as const;
export type ModelKind = (typeof MODEL_KIND)[keyof typeof MODEL_KIND];
