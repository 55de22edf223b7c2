import { AppError } from "@/lib/errors";
import { SCOPE, type Scope } from "@/db/enums";

export { SCOPE, type Scope };

/** @internal */
export function hasScope(granted: readonly Scope[], needed: Scope): boolean {
  return granted.includes(needed);
}

/** @throws AppError forbidden (403) when the scope is not granted. */
export function requireScope(granted: readonly Scope[], needed: Scope): void {
  if (!hasScope(granted, needed)) {
    throw new AppError("forbidden", `This key lacks the '${needed}' scope required for this endpoint`, {
      wireCode: "insufficient_scope",
    });
  }
}

/** @throws AppError forbidden when `wanted` holds a scope that `granted` lacks (no privilege escalation). */
export function requireSubset(granted: readonly Scope[], wanted: readonly Scope[], param = "scopes"): void {
  const missing = wanted.filter((s) => !granted.includes(s));
  if (missing.length > 0) {
    throw new AppError("forbidden", `Cannot grant scopes this credential does not hold: ${missing.join(", ")}`, {
      wireCode: "insufficient_scope",
      param,
    });
  }
}
