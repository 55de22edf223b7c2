export * from "./accept-event";
export * from "./authenticate-trigger";
export * from "./create-webhook";
export * from "./rate-limit";
export * from "./schemas";
export { hashWebhookSecret, triggerPath } from "./secrets";
export * from "./rotate-secret";
