export * from "./catalog";
export * from "./effective-model";
export * from "./list-models";
export * from "./pricing";
export * from "./resolve-model";
export * from "./to-public-model";
export * from "./set-override";
export * from "./to-panel-model";
