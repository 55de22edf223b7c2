"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { ErrorMessage, Label, Textarea } from "@/components/ui/input";
import { errorMessage } from "@/components/panel/fetch-json";
import { runToolRequest } from "./api";
import { parseSchemaText } from "./schema-editor";

/** "Run with these arguments": the draft runs in the company's sandbox as a tool call would, arguments checked first. */
export function TryTool({
  name,
  code,
  schema,
}: {
  name: string;
  code: string;
  schema: Record<string, unknown> | null;
}) {
  const [argsText, setArgsText] = useState("{}");
  const [argsError, setArgsError] = useState<string | null>(null);
  const run = useMutation({ mutationFn: runToolRequest });
  // The box sits low in a tall dialog: bring the progress, then the outcome, into view as each appears.
  const outcomeRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (run.isIdle) return;
    outcomeRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }, [run.isIdle, run.isPending, run.data, run.error]);

  function onRun() {
    const parsed = parseSchemaText(argsText);
    if (!parsed.ok) return setArgsError(parsed.error.replace("The schema", "The arguments"));
    setArgsError(null);
    run.mutate({ name, python_code: code, args: parsed.value, ...(schema ? { json_schema: schema } : {}) });
  }

  const out = run.data;
  return (
    <div className="rounded-lg bg-slate-50 p-4 ring-1 ring-slate-200 ring-inset" data-testid="try-tool">
      <Label htmlFor="tool-args">Run with these arguments</Label>
      <div className="mt-1.5 flex items-start gap-3">
        <Textarea
          id="tool-args"
          value={argsText}
          onChange={(e) => setArgsText(e.target.value)}
          rows={3}
          spellCheck={false}
          className="font-mono text-xs"
        />
        <Button
          type="button"
          variant="secondary"
          onClick={onRun}
          disabled={run.isPending || !name || !code}
          data-testid="run-tool"
        >
          {run.isPending && <Spinner />}
          Run
        </Button>
      </div>
      <div ref={outcomeRef} className="scroll-mb-4">
        <ErrorMessage className="mt-3">{argsError ?? (run.isError ? errorMessage(run.error) : null)}</ErrorMessage>
        {run.isPending && (
          <p
            role="status"
            className="mt-3 flex items-center gap-2 text-xs text-slate-600"
            data-testid="tool-run-pending"
          >
            <Spinner className="size-3.5" />
            Starting the Python sandbox and running the code: the first run takes a few seconds, later ones are quick.
          </p>
        )}
        {out && !run.isPending && (
          <dl
            className="mt-3 grid grid-cols-[6rem_1fr] gap-x-3 gap-y-2 text-xs"
            data-testid="tool-run-result"
            data-ok={String(out.ok)}
          >
            {out.ok ? (
              <>
                <dt className="font-medium text-slate-600">Result</dt>
                <dd>
                  <pre className="font-mono whitespace-pre-wrap text-slate-900" data-testid="tool-run-value">
                    {JSON.stringify(out.result, null, 2)}
                  </pre>
                </dd>
              </>
            ) : (
              <>
                <dt className="font-medium text-rose-700">Error</dt>
                <dd>
                  <pre className="font-mono whitespace-pre-wrap text-rose-700" data-testid="tool-run-error">
                    {out.error}
                  </pre>
                </dd>
              </>
            )}
            <dt className="font-medium text-slate-600">stdout</dt>
            <dd>
              <pre
                className="max-h-40 overflow-auto font-mono whitespace-pre-wrap text-slate-700"
                data-testid="tool-run-stdout"
              >
                {out.stdout || "(nothing printed)"}
              </pre>
            </dd>
            <dt className="font-medium text-slate-600">Time</dt>
            <dd className="text-slate-700" data-testid="tool-run-time">
              {out.cpuMs.toFixed(1)} ms CPU · {out.wallMs.toFixed(1)} ms wall
            </dd>
          </dl>
        )}
      </div>
    </div>
  );
}
