import type { PublicTool } from "@/lib/tools/to-public-tool";
import type { ToolExecution } from "@/lib/sandbox";
import { fetchJson, type ListPage } from "@/components/panel/fetch-json";

export type { PublicTool, ToolExecution };
export type ToolPage = ListPage<PublicTool>;

/** One page holds every tool a company realistically keeps; the API's maximum. */
export const TOOLS_PAGE_SIZE = 100;

export interface ToolBody {
  name?: string;
  description?: string;
  json_schema?: Record<string, unknown>;
  python_code?: string;
  is_active?: boolean;
}

export function fetchTools(): Promise<ToolPage> {
  return fetchJson<ToolPage>(`/api/panel/tools?limit=${TOOLS_PAGE_SIZE}&order=asc`);
}

export function createToolRequest(body: ToolBody): Promise<PublicTool> {
  return fetchJson<PublicTool>("/api/panel/tools", { method: "POST", body: JSON.stringify(body) });
}

export function updateToolRequest(id: string, body: ToolBody): Promise<PublicTool> {
  return fetchJson<PublicTool>(`/api/panel/tools/${encodeURIComponent(id)}`, {
    method: "PATCH",
    body: JSON.stringify(body),
  });
}

export function deleteToolRequest(id: string): Promise<{ id: string; deleted: true }> {
  return fetchJson(`/api/panel/tools/${encodeURIComponent(id)}`, { method: "DELETE" });
}

export function runToolRequest(body: {
  name: string;
  python_code: string;
  json_schema?: Record<string, unknown>;
  args: Record<string, unknown>;
}): Promise<ToolExecution> {
  return fetchJson<ToolExecution>("/api/panel/tools/run", { method: "POST", body: JSON.stringify(body) });
}

export function checkSchemaRequest(
  jsonSchema: unknown,
  signal?: AbortSignal,
): Promise<{ ok: boolean; error: string | null }> {
  return fetchJson("/api/panel/tools/check-schema", {
    method: "POST",
    body: JSON.stringify({ json_schema: jsonSchema }),
    signal,
  });
}
