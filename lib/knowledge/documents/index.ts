export * from "./create-document";
export * from "./delete-document";
export * from "./get-document";
export * from "./list-documents";
export * from "./retry-document";
export * from "./to-public-document";
export { receiveUpload } from "./receive-upload";
