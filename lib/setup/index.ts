export * from "./check-setup-token";
export * from "./complete-setup";
export * from "./is-setup-pending";
export * from "./issue-setup-token";
export * from "./schemas";
export * from "./setup-first-admin";
