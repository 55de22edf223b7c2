export * from "./create-key";
export * from "./create-child-key";
export * from "./list-keys";
export * from "./revoke-key";
export * from "./schemas";
export * from "./to-public-key";
export { findKeyByHash, findKeyById, markKeyUsed, type KeyRecord } from "./key-cache";
export { hashKeySecret, looksLikeKeySecret } from "./secret";
