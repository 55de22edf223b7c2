export * from "./add-messages";
export * from "./create-thread";
export * from "./list-messages";
export * from "./list-threads";
export * from "./read-messages-body";
export * from "./schemas";
export * from "./to-public";
export { getThreadInCompany } from "./internal";
