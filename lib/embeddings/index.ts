export * from "./create-embeddings";
export * from "./schemas";
