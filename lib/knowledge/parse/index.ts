export { parseDocument } from "./parse-document";
