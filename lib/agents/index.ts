export * from "./create-agent";
export * from "./schemas";
export * from "./topics";
export { agentNotFound, getAgentInCompany } from "./internal";
export * from "./list-agents";
export * from "./to-public";
export * from "./update-agent";
export * from "./webhook-name";
