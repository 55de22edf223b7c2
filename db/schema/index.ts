export * from "./api-keys";
export * from "./companies";
export * from "./ledger";
export * from "./rate-limits";
export * from "./usage-events";
export * from "./users";
export * from "./models";
export * from "./threads";
