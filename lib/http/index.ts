export { apiRoute, publicRoute, type ApiContext, type RouteHandler } from "./api-route";
export { readJson, readQuery } from "./read-json";
export { routes } from "./routes";
export { toErrorResponse } from "./error-response";
export { panelRoute } from "./panel-route";
