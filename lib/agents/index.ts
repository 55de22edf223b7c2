export * from "./create-agent";
export * from "./schemas";
export * from "./topics";
export { getAgentInCompany } from "./internal";
export * from "./list-agents";
export * from "./to-public";
export * from "./update-agent";
export * from "./webhook-name";
