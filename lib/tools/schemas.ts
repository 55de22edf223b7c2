import { z } from "zod";
import { PageQuery } from "@/lib/pagination";
import { isStorableJson, storableText, UNSTORABLE_MESSAGE } from "@/lib/persistence/pg-text";
import { jsonSchemaProblem } from "./json-schema";

/** Python's hard keywords: a function cannot bear these names (soft ones like `match` can). */
const PYTHON_KEYWORDS = new Set(
  "False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield".split(
    " ",
  ),
);

/** The Python function and the OpenAI function name: identifier characters (OpenAI allows `-`, Python does not), ≤ 64. */
const TOOL_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const ToolName = z
  .string()
  .regex(TOOL_NAME_RE, "must be a Python identifier: a letter or _, then letters, digits or _, at most 64 characters")
  .refine((n) => !PYTHON_KEYWORDS.has(n), "must not be a Python keyword");

const MAX_TOOL_CODE_CHARS = 100_000;
const MAX_TOOL_SCHEMA_CHARS = 64_000;

const Description = storableText(z.string().max(4000));
const PythonCode = storableText(z.string().min(1).max(MAX_TOOL_CODE_CHARS));

/** An object schema that Ajv compiles in strict mode (lib/tools/json-schema.ts). */
const ToolJsonSchema = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  const text = JSON.stringify(schema);
  if (text.length > MAX_TOOL_SCHEMA_CHARS)
    return ctx.addIssue({ code: "custom", message: `must be at most ${MAX_TOOL_SCHEMA_CHARS} characters of JSON` });
  if (!isStorableJson(schema)) return ctx.addIssue({ code: "custom", message: UNSTORABLE_MESSAGE });
  const problem = jsonSchemaProblem(schema);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

/** Body of POST /v1/tools (SPEC). `description` may be omitted (empty); the rest is required. */
export const CreateToolInput = z.strictObject({
  name: ToolName,
  description: Description.default(""),
  json_schema: ToolJsonSchema,
  python_code: PythonCode,
});
export type CreateToolInput = z.infer<typeof CreateToolInput>;

/** Body of PATCH /v1/tools/{id}: any subset of the fields, `is_active` included. */
export const UpdateToolInput = z
  .strictObject({
    name: ToolName,
    description: Description,
    json_schema: ToolJsonSchema,
    python_code: PythonCode,
    is_active: z.boolean(),
  })
  .partial();
export type UpdateToolInput = z.infer<typeof UpdateToolInput>;

export const ToolListQuery = PageQuery;

/** Body of the panel's "Run with these arguments" box: the editor's draft, run as the loop would. */
export const TryToolInput = z.strictObject({
  name: ToolName,
  python_code: PythonCode,
  /** Optional: when given and valid, the arguments are checked against it first, as the loop does. */
  json_schema: z.record(z.string(), z.unknown()).optional(),
  args: z.record(z.string(), z.unknown()),
});
export type TryToolInput = z.infer<typeof TryToolInput>;

/** Body of the panel's live schema check. */
export const CheckToolSchemaInput = z.strictObject({ json_schema: z.unknown() });
