import { AppError } from "@/lib/errors";
import { billing } from "./services/billing";
import { crm } from "./services/crm";
import type { SdkAction, SdkService, SdkView } from "./types";
import { compileInputSchema } from "./validate-input";

/** Every SDK service. A new service is a folder under services/ and one line here. */
export const SERVICES: readonly SdkService[] = [crm, billing];

const byName = new Map(SERVICES.map((s) => [s.name, s]));

/** @throws not_found (404) for an unknown service. */
function getService(name: string): SdkService {
  const service = byName.get(name);
  if (!service) throw new AppError("not_found", `No SDK service named '${name}'`, { wireCode: "service_not_found" });
  return service;
}

/** @throws not_found (404) for an unknown service or view. */
export function getView(serviceName: string, viewName: string): { service: SdkService; view: SdkView } {
  const service = getService(serviceName);
  const view = service.views.find((v) => v.name === viewName);
  if (!view)
    throw new AppError("not_found", `Service '${serviceName}' has no view named '${viewName}'`, {
      wireCode: "view_not_found",
    });
  return { service, view };
}

/** @throws not_found (404) for an unknown service or action. */
export function getAction(serviceName: string, actionName: string): { service: SdkService; action: SdkAction } {
  const service = getService(serviceName);
  const action = service.actions.find((a) => a.name === actionName);
  if (!action)
    throw new AppError("not_found", `Service '${serviceName}' has no action named '${actionName}'`, {
      wireCode: "action_not_found",
      param: "action",
    });
  return { service, action };
}

/** Node props that name an action of the view (widget/VOCABULARY.md: form, button, board move). */
function actionsNamedBy(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => actionsNamedBy(n, out));
  else if (node && typeof node === "object") {
    const n = node as Record<string, unknown>;
    if (typeof n.action === "string" && (n.type === "form" || n.type === "button" || "input" in n)) out.add(n.action);
    Object.values(n).forEach((v) => actionsNamedBy(v, out));
  }
  return out;
}

/**
 * Why the registry is inconsistent (a missing action, an unknown `refresh` view, a schema Ajv
 * refuses, a duplicate), or []. A unit test checks it, so a service mistake fails CI rather than a
 * widget.
 * @internal
 */
export function registryProblems(services: readonly SdkService[] = SERVICES): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const s of services) {
    if (seen.has(s.name)) problems.push(`duplicate service ${s.name}`);
    seen.add(s.name);
    const actions = new Set(s.actions.map((a) => a.name));
    const views = new Set(s.views.map((v) => v.name));
    if (actions.size !== s.actions.length) problems.push(`${s.name}: duplicate action names`);
    if (views.size !== s.views.length) problems.push(`${s.name}: duplicate view names`);
    for (const v of s.views) {
      for (const a of v.actions) if (!actions.has(a)) problems.push(`${s.name}/${v.name} lists unknown action ${a}`);
      for (const a of actionsNamedBy(v.definition, new Set()))
        if (!v.actions.includes(a)) problems.push(`${s.name}/${v.name} calls ${a} without listing it`);
    }
    for (const a of s.actions) {
      for (const r of a.refresh) if (!views.has(r)) problems.push(`${s.name}.${a.name} refreshes unknown view ${r}`);
      try {
        compileInputSchema(a.inputSchema);
      } catch (err) {
        problems.push(`${s.name}.${a.name}: input schema does not compile: ${(err as Error).message}`);
      }
    }
  }
  return problems;
}
