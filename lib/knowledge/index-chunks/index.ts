export { deleteDocumentChunks } from "./delete-document-chunks";
export { indexChunks, indexDocument } from "./index-document";
