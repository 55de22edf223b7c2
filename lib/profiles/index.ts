export * from "./compose";
export * from "./create-profile";
export * from "./delete-profile";
export * from "./list-profiles";
export * from "./schemas";
export * from "./to-public-profile";
export * from "./update-profile";
export { getProfileInCompany } from "./internal";
