export * from "./create-company";
export * from "./get-company";
export * from "./schemas";
export * from "./company-cache";
export * from "./to-public-company";
export * from "./list-companies";
