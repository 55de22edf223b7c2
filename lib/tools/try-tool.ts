import "server-only";
import { runTool, type ToolExecution } from "@/lib/sandbox";
import { jsonSchemaProblem, toolArgsProblem } from "./json-schema";
import type { TryToolInput } from "./schemas";

/**
 * The panel's "Run with these arguments": the draft runs in the company's sandbox as the loop
 * would, arguments checked against a valid draft schema first. A tool failure is `ok: false`, never
 * an error response.
 */
export async function tryTool(args: { companyId: string; input: TryToolInput }): Promise<ToolExecution> {
  const { companyId, input } = args;
  if (input.json_schema && jsonSchemaProblem(input.json_schema) === null) {
    const problem = toolArgsProblem(input.json_schema, input.args);
    if (problem) return { ok: false, error: problem, stdout: "", cpuMs: 0, wallMs: 0 };
  }
  return runTool({ companyId, name: input.name, code: input.python_code, args: input.args });
}
