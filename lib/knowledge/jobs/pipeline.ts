import "server-only";
// The parts of the pipeline built elsewhere in issue 13, behind one import so the job does not change when they land.
// TODO(#13): `@/lib/knowledge/parse` and `@/lib/knowledge/index-chunks` once on main.
export { indexDocument, parseDocument } from "./placeholder-pipeline";
export { deleteDocumentChunks } from "../documents/delete-chunks";
