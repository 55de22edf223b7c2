import type { SdkAction, SdkService, SdkView } from "./types";
import { definitionVersion } from "./version";

/** `{name, title, input_schema}`: the shape in both GET /v1/sdk/views and a view's `actions` (CONTRACT 8). */
export const toPublicAction = (a: SdkAction) => ({ name: a.name, title: a.title, input_schema: a.inputSchema });

/** GET /v1/sdk/views item (CONTRACT 8). */
export const toPublicService = (s: SdkService) => ({
  service: s.name,
  title: s.title,
  views: s.views.map((v) => ({ name: v.name, title: v.title })),
  actions: s.actions.map(toPublicAction),
});

const versions = new WeakMap<SdkView, number>();
/** Definitions are static: each version is hashed once per process. */
export function viewVersion(view: SdkView): number {
  let v = versions.get(view);
  if (v === undefined) versions.set(view, (v = definitionVersion(view.definition)));
  return v;
}
