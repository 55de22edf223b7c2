export * from "./collections";
export * from "./documents";
