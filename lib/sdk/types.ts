import type { z } from "zod";
import type { DbOrTx } from "@/db/types";

/** A node of a view's definition (widget/VOCABULARY.md): a `type` and that type's props. */
export interface SduiNode {
  type: string;
  [prop: string]: unknown;
}

/** An object JSON Schema (Ajv, strict mode): an action's input. */
export type JsonSchemaObject = {
  type: "object";
  properties: Record<string, unknown>;
  additionalProperties: false;
} & Record<string, unknown>;

export interface SdkView<Q = unknown> {
  name: string;
  title: string;
  /** The view's own query parameters (`sdui` is read before): a bad value → 400 naming it. */
  query: z.ZodType<Q>;
  /** Static: `version` is derived from it, so it must not depend on the caller or the data. */
  definition: SduiNode;
  /** Names of the service's actions the view's nodes call (listed in the view's `actions`). */
  actions: string[];
  /** The view's `data`: everything read is the company's. */
  load(db: DbOrTx, args: { companyId: string; query: Q }): Promise<Record<string, unknown>>;
}

interface ActionOutcome {
  result: Record<string, unknown>;
  /** Overrides the action's `refresh` (a no-op changes nothing: `[]`). */
  refresh?: string[];
}

export interface SdkAction<I = unknown> {
  name: string;
  title: string;
  /** Checked (Ajv) before `run`; `additionalProperties: false` at every level, so a typo is a 400. */
  inputSchema: JsonSchemaObject;
  /** Views of the same service whose data a successful run changes. */
  refresh: string[];
  /**
   * Runs inside the transaction holding the idempotency claim, so its writes and the stored result
   * commit together. `input` passed `inputSchema` (defaults applied); `actor` is an SDK key id or a
   * panel user id.
   */
  run(tx: DbOrTx, args: { companyId: string; actor: string; input: I }): Promise<ActionOutcome>;
}

/** One service: a folder under lib/sdk/services/, registered in lib/sdk/registry.ts. */
export interface SdkService {
  name: string;
  title: string;
  views: SdkView[];
  actions: SdkAction[];
}

/** Typed declarations erased to the registry's element types (the registry validates input first). */
export const defineView = <Q>(view: SdkView<Q>): SdkView => view as unknown as SdkView;
export const defineAction = <I>(action: SdkAction<I>): SdkAction => action as unknown as SdkAction;
