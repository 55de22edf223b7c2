/**
 * A small JSON Schema validator for the subset built-in action schemas use (Ajv would dwarf the
 * bundle): `type`, `required`, `properties`, `additionalProperties: false`, `items`, `enum`,
 * `const`, min/max and exclusive bounds, `minLength`, `maxLength`, `pattern`, `minItems`,
 * `maxItems`, `format: "date"`. Others are ignored: the server checks.
 */
export interface Schema {
  type?: string | string[];
  title?: string;
  description?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  format?: string;
  default?: unknown;
}

export interface SchemaError {
  /** Dotted path of the field (`amount`, `lines.0.quantity`); "" for the whole input. */
  path: string;
  message: string;
}

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function matchesType(v: unknown, type: string): boolean {
  if (type === "integer") return typeof v === "number" && Number.isInteger(v);
  if (type === "number") return typeof v === "number" && Number.isFinite(v);
  return typeOf(v) === type;
}

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

export function validate(
  schema: Schema | undefined,
  value: unknown,
  path = "",
  errors: SchemaError[] = [],
): SchemaError[] {
  if (!schema || typeof schema !== "object") return errors;
  const fail = (message: string) => errors.push({ path, message });
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length && !types.some((t) => matchesType(value, t))) {
    fail(
      `Must be ${types.map((t) => (t === "integer" ? "a whole number" : t === "array" ? "a list" : `a ${t}`)).join(" or ")}`,
    );
    return errors;
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) fail(`Must be one of: ${schema.enum.join(", ")}`);
  if ("const" in schema && schema.const !== value) fail(`Must be ${String(schema.const)}`);
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) fail(`Must be at least ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) fail(`Must be at most ${schema.maximum}`);
    if (schema.exclusiveMinimum !== undefined && value <= schema.exclusiveMinimum)
      fail(`Must be more than ${schema.exclusiveMinimum}`);
    if (schema.exclusiveMaximum !== undefined && value >= schema.exclusiveMaximum)
      fail(`Must be less than ${schema.exclusiveMaximum}`);
  }
  if (typeof value === "string") {
    // Length in code points, as JSON Schema counts it.
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength)
      fail(schema.minLength === 1 ? "Required" : `Must be at least ${schema.minLength} characters`);
    if (schema.maxLength !== undefined && length > schema.maxLength)
      fail(`Must be at most ${schema.maxLength} characters`);
    const re = schema.pattern === undefined ? undefined : safeRegExp(schema.pattern);
    if (re && !re.test(value)) fail("Has the wrong format");
    if (schema.format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(value)) fail("Must be a date (YYYY-MM-DD)");
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems)
      fail(`Needs at least ${schema.minItems} item${schema.minItems === 1 ? "" : "s"}`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) fail(`Takes at most ${schema.maxItems} items`);
    if (schema.items) value.forEach((item, i) => validate(schema.items, item, join(path, i), errors));
  }
  if (typeOf(value) === "object") {
    const obj = value as Record<string, unknown>;
    const props = schema.properties ?? {};
    for (const key of schema.required ?? []) {
      if (obj[key] === undefined) errors.push({ path: join(path, key), message: "Required" });
    }
    for (const [key, v] of Object.entries(obj)) {
      if (props[key]) validate(props[key], v, join(path, key), errors);
      else if (schema.additionalProperties === false) errors.push({ path: join(path, key), message: "Not allowed" });
      else if (typeof schema.additionalProperties === "object")
        validate(schema.additionalProperties, v, join(path, key), errors);
    }
  }
  return errors;
}

function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, "u");
  } catch {
    // A pattern this browser cannot compile is left to the server.
    return undefined;
  }
}
