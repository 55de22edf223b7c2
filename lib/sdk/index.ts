export { fetchView } from "./fetch-view";
export { listServices } from "./list-services";
export { getView } from "./registry";
export { runAction } from "./run-action";
export { ActionRequest, SduiQuery } from "./schemas";
