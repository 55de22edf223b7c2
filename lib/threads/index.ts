export * from "./list-threads";
