export * from "./schemas";
export { answerResponse } from "./create-response";
export { getResponse } from "./get-response";
export { deleteResponse } from "./delete-response";
export { listInputItems } from "./list-input-items";
export { createConversation } from "./create-conversation";
export { deleteConversation } from "./delete-conversation";
export { appendItems, toConversation, toItemList, updateConversationMetadata } from "./conversation";
export { deleteConversationItem, getConversationItem, listConversationItems } from "./conversation-items";
