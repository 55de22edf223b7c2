import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import { AppError } from "@/lib/errors";
import { isStorableText, UNSTORABLE_MESSAGE } from "@/lib/persistence/pg-text";
import { re2RegExpEngine } from "@/lib/tools/json-schema";
import type { JsonSchemaObject, SdkAction } from "./types";

/**
 * Action input is checked against its JSON Schema before anything runs: strict (schema mistakes
 * fail at startup), RE2 patterns, defaults applied to a copy, `verbose` so a failed pattern can
 * quote the `description`.
 */
const ajv = new Ajv({
  strict: true,
  allErrors: false,
  useDefaults: true,
  verbose: true,
  validateFormats: false,
  code: { regExp: re2RegExpEngine },
});
const compiled = new WeakMap<JsonSchemaObject, ValidateFunction>();

export function compileInputSchema(schema: JsonSchemaObject): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

// `input.line_items.0.quantity`: the path convention zod errors use everywhere else in the API.
function errorParam(e: ErrorObject): string {
  const segments = e.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  const p = e.params as { missingProperty?: string; additionalProperty?: string };
  if (e.keyword === "required" && p.missingProperty) segments.push(p.missingProperty);
  if (e.keyword === "additionalProperties" && p.additionalProperty) segments.push(p.additionalProperty);
  return ["input", ...segments].join(".");
}

function errorMessage(e: ErrorObject, param: string): string {
  if (e.keyword === "required") return `${param}: is required`;
  if (e.keyword === "additionalProperties") return `${param}: is not a property of this action's input`;
  const described = (e.parentSchema as { description?: unknown } | undefined)?.description;
  if (e.keyword === "pattern" && typeof described === "string") return `${param}: must be ${described}`;
  return `${param}: ${e.message ?? "is invalid"}`;
}

/** The first string (or key) PostgreSQL cannot store (a NUL, a lone surrogate), as a param path. */
function unstorable(value: unknown, path: string): string | null {
  if (typeof value === "string") return isStorableText(value) ? null : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = unstorable(value[i], `${path}.${i}`);
      if (bad) return bad;
    }
  } else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const bad = isStorableText(k) ? unstorable(v, `${path}.${k}`) : `${path}.${k}`;
      if (bad) return bad;
    }
  }
  return null;
}

/**
 * The input as the action will see it (a validated copy with defaults applied).
 * @throws AppError invalid_request (400) whose `param` names the offending field.
 */
export function validateActionInput(action: SdkAction, input: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(input);
  const validate = compileInputSchema(action.inputSchema);
  if (!validate(copy)) {
    const e = validate.errors![0]!;
    const param = errorParam(e);
    throw new AppError("invalid_request", errorMessage(e, param), { param, wireCode: "invalid_value" });
  }
  const bad = unstorable(copy, "input");
  if (bad)
    throw new AppError("invalid_request", `${bad}: ${UNSTORABLE_MESSAGE}`, { param: bad, wireCode: "invalid_value" });
  return copy;
}
