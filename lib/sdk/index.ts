export { fetchView } from "./fetch-view";
export { listServices } from "./list-services";
export { getAction, getService, getView, registryProblems, SERVICES } from "./registry";
export { runAction, type ActionResponse } from "./run-action";
export { ActionRequest, SduiQuery, SDUI_VERSIONS } from "./schemas";
export { definitionVersion } from "./version";
export { viewVersion } from "./public";
export type { SdkAction, SdkService, SdkView, SduiNode } from "./types";
