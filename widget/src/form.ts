/**
 * A `form` node: inputs from the action's `input_schema`, checked by validate.ts before sending; a
 * 400's `param` is shown at its field. One idempotency key per submit, reused by the retry after a
 * 401.
 */
import { resolveObject, type Scope } from "./bind";
import { h, Malformed, uuid } from "./dom";
import type { Node, RenderContext } from "./node";
import { validate, type Schema } from "./validate";
import type { WidgetError } from "./api";

interface Field {
  el: HTMLElement;
  read(): unknown;
  reset(): void;
}

let uid = 0;

const humanize = (name: string) => name.replace(/[_-]+/g, " ").replace(/^./, (c) => c.toUpperCase());
const typeOf = (s: Schema) => (Array.isArray(s.type) ? s.type.find((t) => t !== "null") : s.type);

function control(name: string, path: string, schema: Schema, required: boolean): Field {
  const id = `f${++uid}`;
  const label = (schema.title ?? humanize(name)) + (required ? " *" : "");
  const type = typeOf(schema);
  const error = h("div", {
    part: "field-error",
    class: "field-error",
    id: `${id}e`,
    "data-error-for": path,
    role: "alert",
  });
  const hint = schema.description ? h("div", { part: "hint", class: "muted small" }, schema.description) : null;
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  let read: () => unknown;
  let reset: () => void;

  if (type === "array" && schema.items && typeOf(schema.items) === "object") {
    return group(name, path, schema, label, error);
  }
  if (Array.isArray(schema.enum)) {
    const sel = h(
      "select",
      { part: "input", id },
      required ? null : h("option", { value: "" }, "—"),
      schema.enum.map((v) => h("option", { value: String(v) }, String(v))),
    );
    const initial = schema.default !== undefined ? String(schema.default) : sel.value;
    sel.value = initial;
    input = sel;
    read = () => (sel.value === "" ? undefined : schema.enum!.find((v) => String(v) === sel.value));
    reset = () => (sel.value = initial);
  } else if (type === "boolean") {
    const box = h("input", { part: "input checkbox", id, type: "checkbox", checked: schema.default === true });
    input = box;
    read = () => box.checked;
    reset = () => (box.checked = schema.default === true);
  } else if (type === "number" || type === "integer") {
    const num = h("input", {
      part: "input",
      id,
      type: "number",
      step: type === "integer" ? "1" : "any",
      min: schema.minimum,
      max: schema.maximum,
    });
    input = num;
    read = () =>
      num.value.trim() === "" ? undefined : Number.isFinite(Number(num.value)) ? Number(num.value) : num.value;
    reset = () => (num.value = schema.default === undefined ? "" : String(schema.default));
  } else if (type === "string") {
    const text = h("input", {
      part: "input",
      id,
      type: schema.format === "date" ? "date" : "text",
      maxlength: schema.maxLength,
    });
    input = text;
    read = () => (text.value === "" ? undefined : text.value);
    reset = () => (text.value = typeof schema.default === "string" ? schema.default : "");
  } else {
    // An object or a list of plain values: typed as JSON, checked against the schema like the rest.
    const area = h("textarea", { part: "input", id, rows: "2", placeholder: "JSON" });
    input = area;
    read = () => {
      if (area.value.trim() === "") return undefined;
      try {
        return JSON.parse(area.value) as unknown;
      } catch {
        return area.value;
      }
    };
    reset = () => (area.value = "");
  }
  reset();
  input.setAttribute("name", path);
  input.setAttribute("aria-describedby", `${id}e`);
  if (required) input.setAttribute("aria-required", "true");
  const el = h(
    "div",
    { part: "field", class: type === "boolean" ? "field inline" : "field", "data-field": path },
    h("label", { part: "label", for: id }, label),
    input,
    hint,
    error,
  );
  return { el, read, reset };
}

function group(name: string, path: string, schema: Schema, label: string, error: HTMLElement): Field {
  const item = schema.items!;
  const props = item.properties ?? {};
  const req = new Set(item.required ?? []);
  const rows: { el: HTMLElement; fields: [string, Field][] }[] = [];
  const list = h("div", { part: "group-rows", class: "group-rows" });
  const addRow = () => {
    const i = rows.length;
    const fields = Object.entries(props).map(
      ([k, s]) => [k, control(k, `${path}.${i}.${k}`, s, req.has(k))] as [string, Field],
    );
    const remove = h(
      "button",
      { type: "button", part: "button secondary remove", class: "btn secondary", "aria-label": `Remove line ${i + 1}` },
      "Remove",
    );
    const row = {
      el: h(
        "div",
        { part: "group-row", class: "group-row" },
        fields.map(([, f]) => f.el),
        remove,
      ),
      fields,
    };
    remove.addEventListener("click", () => {
      rows.splice(rows.indexOf(row), 1);
      row.el.remove();
    });
    rows.push(row);
    list.appendChild(row.el);
  };
  const min = Math.max(1, schema.minItems ?? 1);
  const reset = () => {
    rows.splice(0).forEach((r) => r.el.remove());
    for (let i = 0; i < min; i++) addRow();
  };
  reset();
  const add = h(
    "button",
    { type: "button", part: "button secondary add", class: "btn secondary", onclick: addRow },
    "Add line",
  );
  const el = h(
    "fieldset",
    { part: "group", class: "group", "data-field": path },
    h("legend", { part: "label" }, label),
    list,
    add,
    error,
  );
  return {
    el,
    reset,
    read: () =>
      rows.map((r) => {
        const out: Record<string, unknown> = {};
        for (const [k, f] of r.fields) {
          const v = f.read();
          if (v !== undefined) out[k] = v;
        }
        return out;
      }),
  };
}

/**
 * `lines[0].amount`, `input.lines.0.amount` → `lines.0.amount`: how the server may name a field.
 * @internal
 */
export function fieldPath(param: string): string {
  return param
    .replace(/\[(\d+)\]/g, ".$1")
    .replace(/^input\./, "")
    .replace(/^\./, "");
}

export function renderForm(node: Node, scope: Scope, ctx: RenderContext) {
  const actionName = String(node.action ?? "");
  const action = ctx.actions.get(actionName);
  if (!action) throw new Malformed(`action ${actionName} is not one of the view's actions`);
  const schema: Schema = action.input_schema ?? { type: "object" };
  const props = schema.properties ?? {};
  const fixed = resolveObject(node.values, scope);
  const required = new Set(schema.required ?? []);
  const names = (Array.isArray(node.fields) ? node.fields.map(String) : Object.keys(props)).filter(
    (n) => props[n] && !(n in fixed),
  );
  const fields = names.map((n) => [n, control(n, n, props[n]!, required.has(n))] as const);
  const formError = h("div", { part: "form-error", class: "form-error", role: "alert" });
  const status = h("div", { part: "form-status", class: "muted small", role: "status" });
  const submit = h(
    "button",
    { type: "submit", part: "button primary submit", class: "btn primary" },
    typeof node.submit_label === "string" ? node.submit_label : (action.title ?? "Submit"),
  );
  const form = h(
    "form",
    { part: "form", class: "form", novalidate: true, "data-action": actionName },
    typeof node.title === "string" ? h("h3", { part: "form-title" }, node.title) : null,
    fields.map(([, f]) => f.el),
    formError,
    h("div", { class: "actions" }, submit, status),
  );

  const clearErrors = () => {
    form.querySelectorAll("[data-error-for]").forEach((e) => (e.textContent = ""));
    form.querySelectorAll("[aria-invalid]").forEach((e) => e.removeAttribute("aria-invalid"));
    formError.textContent = "";
  };
  /** Shows the message next to the field named by `path` (or its nearest named ancestor); false when none is shown. */
  const showAt = (path: string, message: string): boolean => {
    for (let p = path; p; p = p.includes(".") ? p.slice(0, p.lastIndexOf(".")) : "") {
      const slot = form.querySelector<HTMLElement>(`[data-error-for="${CSS.escape(p)}"]`);
      if (slot) {
        slot.textContent = slot.textContent ? `${slot.textContent} ${message}` : message;
        slot.parentElement?.querySelector(`[name="${CSS.escape(p)}"]`)?.setAttribute("aria-invalid", "true");
        return true;
      }
    }
    return false;
  };

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    clearErrors();
    status.textContent = "";
    const input: Record<string, unknown> = {};
    for (const [n, f] of fields) {
      const v = f.read();
      if (v !== undefined) input[n] = v;
    }
    Object.assign(input, fixed);
    const errors = validate(schema, input);
    if (errors.length) {
      for (const e of errors)
        if (!showAt(e.path, e.message)) formError.textContent += `${e.path ? `${e.path}: ` : ""}${e.message} `;
      form.querySelector<HTMLElement>("[aria-invalid]")?.focus();
      return;
    }
    submit.disabled = true;
    try {
      await ctx.run(actionName, input, uuid());
      fields.forEach(([, f]) => f.reset());
      status.textContent = "Done.";
    } catch (err) {
      const e = err as WidgetError;
      if (!(e.param && showAt(fieldPath(e.param), e.message))) formError.textContent = e.message;
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}
