export { chunkDocument, CHUNK_TOKENS, OVERLAP_TOKENS, type ChunkOptions } from "./chunk-document";
export { deleteDocumentChunks } from "./delete-document-chunks";
export { indexDocument, type IndexDocumentArgs } from "./index-document";
