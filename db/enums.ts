/**
 * Every enumerated value of the data model, defined once. Types, zod enums and pgEnums derive from
 * these (STYLE: never write "active" or a scope name by hand).
 */
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
