export { apiRoute, publicRoute } from "./api-route";
export { eventStreamResponse } from "./event-stream";
export { jsonResponse } from "./json-response";
export { queryParams, readJson, readQuery } from "./read-json";
export { routes } from "./routes";
export { panelRoute } from "./panel-route";
export { decodeParam } from "./params";
