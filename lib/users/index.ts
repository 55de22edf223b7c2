export * from "./create-user";
export * from "./schemas";
export * from "./verify-credentials";
