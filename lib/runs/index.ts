export * from "./read-runs";
export * from "./schemas";
export * from "./steps";
export * from "./to-public";
export * from "./cancel-run";
export * from "./create-run";
export * from "./answer-run";
