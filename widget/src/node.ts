/** The definition tree's node and what rendering one needs (shared by render.ts and form.ts). */
import type { WidgetError } from "./api";
import type { Scope } from "./bind";
import type { Schema } from "./validate";

export interface Node {
  type?: unknown;
  [prop: string]: unknown;
}

export interface ActionInfo {
  name: string;
  title?: string;
  input_schema?: Schema;
}

export interface RenderContext {
  actions: Map<string, ActionInfo>;
  params: Record<string, string>;
  /** Runs an action; resolves once it (and its refresh) is done; rejects with the WidgetError. */
  run(action: string, input: Record<string, unknown>, idempotencyKey?: string): Promise<unknown>;
  /** Shows a failed button or move next to the widget's content. */
  notify(err: WidgetError): void;
  setParam(param: string, value: string): void;
  /** The `index`-th table of the view fetched with `after=cursor`: its rows and next cursor. */
  loadMore(index: number, cursor: string): Promise<{ rows: unknown[]; next: unknown; scope: Scope }>;
  /** Counts tables in render order, so "Load more" finds its table in the next page's definition. */
  tableIndex: number;
}
