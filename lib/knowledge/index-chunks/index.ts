export { deleteDocumentChunks } from "./delete-document-chunks";
export { indexDocument } from "./index-document";
