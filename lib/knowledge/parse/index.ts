export { parseDocument, type ParseInput } from "./parse-document";
