export { apiRoute, publicRoute, type ApiContext, type RouteHandler } from "./api-route";
export { eventStreamResponse } from "./event-stream";
export { queryParams, readJson, readQuery } from "./read-json";
export { routes } from "./routes";
export { toErrorResponse } from "./error-response";
export { panelRoute } from "./panel-route";
export { decodeParam } from "./params";
