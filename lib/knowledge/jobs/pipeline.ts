import "server-only";
// The parts of the indexing pipeline the job calls, behind one import.
export { deleteDocumentChunks, indexDocument } from "@/lib/knowledge/index-chunks";
export { parseDocument } from "@/lib/knowledge/parse";
