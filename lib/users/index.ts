export * from "./create-user";
export * from "./schemas";
export * from "./verify-credentials";
export * from "./find-password-changed-at";
export * from "./list-users";
export * from "./set-password";
export * from "./find-session-user";
