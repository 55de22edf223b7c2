import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import { RE2JS } from "re2js";

/**
 * Tools' `json_schema` validates model arguments on every call, so it is compiled here as the loop
 * uses it: strict (mistakes are reported), `pattern` on RE2 so validation cannot hang, `format` as
 * annotation only, and `$ref` local only (Ajv fetches nothing without a loader).
 */
export const re2RegExpEngine = Object.assign(
  (pattern: string) => {
    const re = RE2JS.compile(pattern);
    // Ajv keys its compiled patterns by `toString()`: without one every pattern of an Ajv instance
    // would be "[object Object]", and each schema would test every pattern with the first one.
    return { test: (s: string) => re.matcher(s).find(), toString: () => `/${pattern}/` };
  },
  { code: "re2js" },
);

function newAjv() {
  return new Ajv({
    strict: true,
    allowUnionTypes: true,
    validateFormats: false,
    allErrors: false,
    code: { regExp: re2RegExpEngine },
  });
}
const ajv = newAjv();

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  const e = errors?.[0];
  if (!e) return "is not a valid JSON Schema";
  return `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}`;
}

/** Compiles outside Ajv's cache, which is keyed by identity and `$id`: it would grow forever and clash on a repeated `$id`. */
function compileDetached(schema: Record<string, unknown>): ValidateFunction {
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}

/** Why `schema` cannot be a tool's `json_schema`, or null when it can. */
export function jsonSchemaProblem(schema: unknown): string | null {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return "must be a JSON object";
  const obj = schema as Record<string, unknown>;
  if (!ajv.validateSchema(obj)) return `is not a valid JSON Schema: ${describeErrors(ajv.errors)}`;
  if (obj.type !== "object") return 'must describe the arguments object: its "type" must be "object"';
  try {
    compileDetached(obj);
  } catch (err) {
    return `is not a valid JSON Schema: ${err instanceof Error ? err.message : String(err)}`;
  }
  return null;
}

const MAX_VALIDATORS = 500;
const validators = new Map<string, ValidateFunction>();

/**
 * Checks a call's arguments against the tool's schema; validators are cached per `cacheKey` (tool
 * id and `updated_at`). Null when valid, else a message for `{"error": …}`.
 */
export function toolArgsProblem(schema: Record<string, unknown>, args: unknown, cacheKey?: string): string | null {
  let validate = cacheKey ? validators.get(cacheKey) : undefined;
  if (!validate) {
    try {
      validate = compileDetached(schema);
    } catch (err) {
      return `the tool's json_schema does not compile: ${err instanceof Error ? err.message : String(err)}`;
    }
    if (cacheKey) {
      validators.set(cacheKey, validate);
      if (validators.size > MAX_VALIDATORS) validators.delete(validators.keys().next().value!);
    }
  }
  if (validate(args)) return null;
  return `invalid arguments: ${describeErrors(validate.errors).replace(/^\(root\) /, "")}`;
}
