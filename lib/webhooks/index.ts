export * from "./create-webhook";
export * from "./schemas";
export { hashWebhookSecret, triggerPath } from "./secrets";
