export * from "./assert-active-collections";
export * from "./create-collection";
export * from "./deactivate-collection";
export * from "./get-collection";
export * from "./list-collections";
export * from "./schemas";
export * from "./to-public-collection";
export { getActiveCollectionInCompany } from "./internal";
