"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger } from "@/components/ui/dialog";
import { ErrorMessage, FieldHint, Input, Label } from "@/components/ui/input";
import { errorMessage } from "@/components/panel/fetch-json";
import { queryKeys } from "@/lib/query-keys";
import { createToolRequest, updateToolRequest, type PublicTool, type ToolBody } from "./api";
import { PythonEditor } from "./python-editor";
import { SchemaEditor, type SchemaState } from "./schema-editor";
import { TryTool } from "./try-tool";

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

const TEMPLATE = {
  name: "add",
  description: "Adds two numbers.",
  schema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
  code: 'def add(a, b):\n    """Called with the arguments as keyword arguments; return anything JSON can hold."""\n    return a + b\n',
};

/** Create (no `tool`) or edit dialog: the schema and code editors and the test-run box. */
export function ToolDialog({ tool }: { tool?: PublicTool }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        {tool ? (
          <Button variant="ghost" size="sm" aria-label={`Edit ${tool.name}`} data-testid="edit-tool">
            Edit
          </Button>
        ) : (
          <Button data-testid="create-tool">
            <svg viewBox="0 0 20 20" fill="currentColor" className="-ml-0.5 size-4" aria-hidden="true">
              <path d="M10.75 4.75a.75.75 0 0 0-1.5 0v4.5h-4.5a.75.75 0 0 0 0 1.5h4.5v4.5a.75.75 0 0 0 1.5 0v-4.5h4.5a.75.75 0 0 0 0-1.5h-4.5v-4.5Z" />
            </svg>
            Create tool
          </Button>
        )}
      </DialogTrigger>
      {open && <ToolForm tool={tool} onDone={() => setOpen(false)} />}
    </Dialog>
  );
}

function ToolForm({ tool, onDone }: { tool?: PublicTool; onDone: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(tool?.name ?? TEMPLATE.name);
  const [description, setDescription] = useState(tool?.description ?? TEMPLATE.description);
  const initialSchema = JSON.stringify(tool?.json_schema ?? TEMPLATE.schema, null, 2);
  const [schemaText, setSchemaText] = useState(initialSchema);
  const [schemaState, setSchemaState] = useState<SchemaState>({ status: "checking" });
  const [code, setCode] = useState(tool?.python_code ?? TEMPLATE.code);
  const [formError, setFormError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: ToolBody) => (tool ? updateToolRequest(tool.id, body) : createToolRequest(body)),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.tools.all });
      onDone();
    },
  });

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!NAME_RE.test(name))
      return setFormError(
        "The name must be a Python identifier: a letter or _, then letters, digits or _ (at most 64).",
      );
    if (schemaState.status !== "valid")
      return setFormError(schemaState.status === "checking" ? "The schema is still being checked." : schemaState.error);
    setFormError(null);
    const body: ToolBody = { name, description, json_schema: schemaState.schema, python_code: code };
    if (tool) {
      // PATCH only what changed: an unchanged name and code are not re-checked in the sandbox.
      if (name === tool.name) delete body.name;
      if (description === tool.description) delete body.description;
      if (schemaText === initialSchema) delete body.json_schema;
      if (code === tool.python_code) delete body.python_code;
      if (Object.keys(body).length === 0) return onDone();
    }
    save.mutate(body);
  }

  return (
    <DialogContent
      title={tool ? "Edit tool" : "Create tool"}
      className="sm:max-w-4xl"
      dismissible={false}
      data-testid="tool-dialog"
    >
      <form onSubmit={onSubmit} noValidate className="space-y-5">
        <div className="grid gap-5 sm:grid-cols-2">
          <div>
            <Label htmlFor="tool-name">Name</Label>
            <Input
              id="tool-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              maxLength={64}
              autoComplete="off"
              spellCheck={false}
              className="mt-1.5 font-mono"
            />
            <FieldHint>The Python function the code defines, and the function name the model calls.</FieldHint>
          </div>
          <div>
            <Label htmlFor="tool-description">Description</Label>
            <Input
              id="tool-description"
              value={description}
              onChange={(e) => setDescription(e.target.value)}
              maxLength={4000}
              className="mt-1.5"
            />
            <FieldHint>What the model reads to decide when to call it.</FieldHint>
          </div>
        </div>
        <div>
          <Label htmlFor="tool-schema">Arguments (JSON Schema)</Label>
          <SchemaEditor id="tool-schema" value={schemaText} onChange={setSchemaText} onState={setSchemaState} />
        </div>
        <div>
          <Label htmlFor="tool-code">Python code</Label>
          <PythonEditor id="tool-code" value={code} onChange={setCode} />
          <FieldHint data-testid="stdlib-note">
            Define a function named <code className="font-mono">{name || "…"}</code>; it is called with the arguments as
            keyword arguments and its return value must be JSON-serialisable. It runs in an isolated sandbox with only
            the Python standard library (no numpy, pandas or network), 10 s at most.
          </FieldHint>
        </div>
        <TryTool name={name} code={code} schema={schemaState.status === "valid" ? schemaState.schema : null} />
        <ErrorMessage data-testid="tool-error">
          {formError ?? (save.isError ? errorMessage(save.error) : null)}
        </ErrorMessage>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary">Cancel</Button>
          </DialogClose>
          <Button type="submit" disabled={save.isPending} data-testid="save-tool">
            {save.isPending && <Spinner />}
            {tool ? "Save tool" : "Create tool"}
          </Button>
        </DialogFooter>
      </form>
    </DialogContent>
  );
}
