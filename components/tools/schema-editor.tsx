"use client";

import { useEffect, useState } from "react";
import { Textarea } from "@/components/ui/input";
import { errorMessage } from "@/components/panel/fetch-json";
import { checkSchemaRequest } from "./api";

export type SchemaState =
  { status: "checking" } | { status: "valid"; schema: Record<string, unknown> } | { status: "invalid"; error: string };

/** JSON first (in the browser, at once), then the server's Ajv check (debounced): the API's own rules. */
const DEBOUNCE_MS = 300;

export function parseSchemaText(
  text: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: `Not valid JSON: ${errorMessage(err)}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, error: "The schema must be a JSON object." };
  return { ok: true, value: value as Record<string, unknown> };
}

export function SchemaEditor({
  id,
  value,
  onChange,
  onState,
}: {
  id: string;
  value: string;
  onChange: (next: string) => void;
  onState: (s: SchemaState) => void;
}) {
  const [state, setState] = useState<SchemaState>({ status: "checking" });

  useEffect(() => {
    const parsed = parseSchemaText(value);
    const report = (s: SchemaState) => {
      setState(s);
      onState(s);
    };
    if (!parsed.ok) {
      report({ status: "invalid", error: parsed.error });
      return;
    }
    report({ status: "checking" });
    const controller = new AbortController();
    const timer = setTimeout(() => {
      checkSchemaRequest(parsed.value, controller.signal)
        .then((res) =>
          report(
            res.ok
              ? { status: "valid", schema: parsed.value }
              : { status: "invalid", error: `json_schema ${res.error}` },
          ),
        )
        .catch((err: unknown) => {
          if (!controller.signal.aborted)
            report({ status: "invalid", error: `Could not check the schema: ${errorMessage(err)}` });
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // onState is the parent's state setter (stable): the check depends on the text only.
  }, [value]);

  return (
    <>
      <Textarea
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        rows={8}
        spellCheck={false}
        className="mt-1.5 font-mono text-xs leading-5"
        aria-invalid={state.status === "invalid"}
        aria-describedby={`${id}-status`}
      />
      <p
        id={`${id}-status`}
        aria-live="polite"
        className="mt-1 text-xs"
        data-testid="schema-status"
        data-status={state.status}
      >
        {state.status === "checking" && <span className="text-slate-500">Checking…</span>}
        {state.status === "valid" && (
          <span className="text-emerald-700">Valid JSON Schema for the arguments object.</span>
        )}
        {state.status === "invalid" && <span className="text-rose-700">{state.error}</span>}
      </p>
    </>
  );
}
