/**
 * Renders a definition tree into the shadow root. Each node renders in isolation: an unknown or
 * malformed node becomes a placeholder (part `unknown`) and the rest of the tree still renders.
 */
import { formatValue, getPath, resolve, resolveObject, type Scope } from "./bind";
import { h, Malformed } from "./dom";
import { renderForm } from "./form";
import type { WidgetError } from "./api";
import type { Node, RenderContext } from "./node";

const str = (v: unknown) => formatValue(v);
const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function need<T>(v: T | undefined | null, what: string): T {
  if (v === undefined || v === null) throw new Malformed(`missing ${what}`);
  return v;
}

function needArray(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new Malformed(`${what} is not a list`);
  return v;
}

function placeholder(type: unknown, reason: string) {
  const name = typeof type === "string" ? type : "?";
  return h(
    "div",
    { part: "unknown", "data-type": name, title: reason },
    `This part of the view (${name}) cannot be shown.`,
  );
}

export function renderNode(node: unknown, scope: Scope, ctx: RenderContext): globalThis.Node {
  if (!isObj(node)) return placeholder(undefined, "not a node");
  const render = RENDERERS[node.type as string];
  if (typeof node.type !== "string" || !render || !Object.hasOwn(RENDERERS, node.type))
    return placeholder(node.type, "unknown type");
  try {
    return render(node, scope, ctx);
  } catch (err) {
    // Same treatment for a node the widget knows but cannot draw (a missing prop, a wrong shape).
    return placeholder(node.type, err instanceof Error ? err.message : "malformed");
  }
}

function children(node: Node, scope: Scope, ctx: RenderContext) {
  return (Array.isArray(node.children) ? node.children : []).map((c) => renderNode(c, scope, ctx));
}

function badge(value: unknown, tones: unknown) {
  const text = str(value);
  const tone = isObj(tones) && typeof tones[text] === "string" ? tones[text] : "neutral";
  return h("span", { part: `badge badge-${tone}`, class: "badge", "data-tone": tone }, text);
}

function button(node: Node, scope: Scope, ctx: RenderContext) {
  const action = need(node.action, "action") as string;
  const label = str(resolve(need(node.label, "label"), scope));
  const variant = node.variant === "primary" || node.variant === "danger" ? node.variant : "secondary";
  const el = h("button", { type: "button", part: `button ${variant}`, class: `btn ${variant}` }, label);
  el.addEventListener("click", async () => {
    const confirmText = node.confirm === undefined ? null : str(resolve(node.confirm, scope));
    if (confirmText && !window.confirm(confirmText)) return;
    el.disabled = true;
    try {
      await ctx.run(action, resolveObject(node.input, scope));
    } catch (err) {
      ctx.notify(err as WidgetError);
    } finally {
      el.disabled = false;
    }
  });
  return el;
}

function table(node: Node, scope: Scope, ctx: RenderContext) {
  const columns = needArray(node.columns, "columns").filter(isObj);
  const rowActions = Array.isArray(node.row_actions) ? node.row_actions : [];
  const index = ctx.tableIndex++;
  const body = h("tbody");
  const addRows = (rows: unknown[], sc: Scope) => {
    for (const row of rows) {
      const rs = { ...sc, row };
      body.appendChild(
        h(
          "tr",
          { part: "tr" },
          columns.map((c) => {
            const v = getPath(row, String(c.key));
            const cell = c.format === "badge" ? badge(v, c.tones) : formatValue(v, c.format, resolve(c.currency, rs));
            return h("td", { part: "td", "data-key": String(c.key) }, cell);
          }),
          rowActions.length
            ? h(
                "td",
                { part: "td row-actions" },
                rowActions.map((b) => renderNode(b, rs, ctx)),
              )
            : null,
        ),
      );
    }
  };
  const rows = resolve(node.rows, scope);
  const list = Array.isArray(rows) ? rows : [];
  addRows(list, scope);
  const empty = h(
    "p",
    { part: "empty", class: "empty", hidden: list.length > 0 },
    typeof node.empty === "string" ? node.empty : "Nothing here yet.",
  );
  const more = h("button", { type: "button", part: "button load-more", class: "btn secondary" }, "Load more");
  let next = resolve(node.next, scope);
  more.hidden = next === null || next === undefined || next === "";
  more.addEventListener("click", async () => {
    more.disabled = true;
    try {
      const page = await ctx.loadMore(index, String(next));
      addRows(page.rows, page.scope);
      next = page.next;
      more.hidden = next === null || next === undefined || next === "";
    } catch (err) {
      ctx.notify(err as WidgetError);
    } finally {
      more.disabled = false;
    }
  });
  return h(
    "div",
    { part: "table-wrap", class: "table-wrap" },
    h(
      "table",
      { part: "table" },
      h(
        "thead",
        null,
        h(
          "tr",
          null,
          columns.map((c) => h("th", { part: "th", scope: "col" }, str(c.label ?? c.key))),
          rowActions.length ? h("th", { part: "th" }, h("span", { class: "sr" }, "Actions")) : null,
        ),
      ),
      body,
    ),
    empty,
    more,
  );
}

function board(node: Node, scope: Scope, ctx: RenderContext) {
  const columns = needArray(resolve(node.columns, scope), "columns").filter(isObj);
  const idKey = String(need(node.column_id, "column_id"));
  const titleKey = String(need(node.column_title, "column_title"));
  const cardsKey = String(need(node.cards, "cards"));
  if (!isObj(node.card)) throw new Malformed("missing card");
  const card = node.card;
  const stats = Array.isArray(node.column_stats) ? node.column_stats.filter(isObj) : [];
  const move = isObj(node.move) && typeof node.move.action === "string" ? node.move : null;
  const field = (c: Record<string, unknown>, key: unknown) => (typeof key === "string" ? getPath(c, key) : undefined);

  return h(
    "div",
    { part: "board", class: "board" },
    columns.map((col) => {
      const id = str(getPath(col, idKey));
      const title = str(getPath(col, titleKey));
      const cs = { ...scope, column: col };
      const cards = getPath(col, cardsKey);
      return h(
        "section",
        { part: "column", class: "column", "data-column": id, "aria-label": title },
        h("h3", { part: "column-title" }, title),
        stats.length
          ? h(
              "dl",
              { part: "column-stats", class: "column-stats" },
              stats.map((s) =>
                h(
                  "div",
                  null,
                  h("dt", null, str(s.label)),
                  h("dd", null, formatValue(resolve(s.value, cs), s.format, resolve(s.currency, cs))),
                ),
              ),
            )
          : null,
        h(
          "ul",
          { part: "cards", class: "cards" },
          (Array.isArray(cards) ? cards : []).filter(isObj).map((c) => {
            const cardTitle = str(field(c, card.title));
            const currency = field(c, card.currency) ?? card.currency;
            const value = field(c, card.value);
            return h(
              "li",
              { part: "card", class: "card" },
              h("div", { part: "card-title", class: "card-title" }, cardTitle),
              card.subtitle ? h("div", { part: "card-subtitle", class: "muted" }, str(field(c, card.subtitle))) : null,
              value !== undefined ? h("div", { part: "card-value" }, formatValue(value, card.format, currency)) : null,
              move ? moveSelect(move, columns, col, idKey, titleKey, c, cardTitle, scope, ctx) : null,
            );
          }),
        ),
      );
    }),
  );
}

function moveSelect(
  move: Record<string, unknown>,
  columns: Record<string, unknown>[],
  current: Record<string, unknown>,
  idKey: string,
  titleKey: string,
  card: Record<string, unknown>,
  cardTitle: string,
  scope: Scope,
  ctx: RenderContext,
) {
  const others = columns.filter((c) => c !== current);
  const select = h(
    "select",
    { part: "move", "aria-label": `Move ${cardTitle}` },
    h("option", { value: "" }, "Move to…"),
    others.map((c) => h("option", { value: str(getPath(c, idKey)) }, str(getPath(c, titleKey)))),
  );
  select.addEventListener("change", async () => {
    const target = others.find((c) => str(getPath(c, idKey)) === select.value);
    if (!target) return;
    select.disabled = true;
    try {
      await ctx.run(String(move.action), resolveObject(move.input, { ...scope, card, column: target }));
    } catch (err) {
      ctx.notify(err as WidgetError);
      select.value = "";
    } finally {
      select.disabled = false;
    }
  });
  return select;
}

function filter(node: Node, _scope: Scope, ctx: RenderContext) {
  const param = String(need(node.param, "param"));
  const options = needArray(node.options, "options").filter(isObj);
  const select = h(
    "select",
    { part: "filter-select" },
    options.map((o) => h("option", { value: str(o.value) }, str(o.label ?? o.value))),
  );
  select.value = ctx.params[param] ?? "";
  select.addEventListener("change", () => ctx.setParam(param, select.value));
  return h("label", { part: "filter", class: "filter" }, h("span", null, str(node.label ?? param)), select);
}

const RENDERERS: Record<string, (node: Node, scope: Scope, ctx: RenderContext) => globalThis.Node> = {
  page: (n, s, c) => {
    const title = n.title === undefined ? "" : str(resolve(n.title, s));
    return h(
      "section",
      { part: "page", class: "page" },
      title ? h("h2", { part: "title" }, title) : null,
      children(n, s, c),
    );
  },
  stack: (n, s, c) =>
    h("div", { part: "stack", class: n.direction === "horizontal" ? "stack row" : "stack" }, children(n, s, c)),
  text: (n, s) => {
    const variant = n.variant === "heading" || n.variant === "muted" ? n.variant : "body";
    return h(
      variant === "heading" ? "h3" : "p",
      { part: `text ${variant}`, class: `text ${variant}` },
      str(resolve(need(n.value, "value"), s)),
    );
  },
  stat: (n, s) =>
    h(
      "div",
      { part: "stat", class: "stat" },
      h("span", { part: "stat-label", class: "muted" }, str(need(n.label, "label"))),
      h(
        "span",
        { part: "stat-value", class: "stat-value" },
        formatValue(resolve(need(n.value, "value"), s), n.format, resolve(n.currency, s)),
      ),
    ),
  badge: (n, s) => badge(resolve(need(n.value, "value"), s), n.tones),
  table,
  board,
  form: (n, s, c) => renderForm(n, s, c),
  button,
  filter,
  empty: (n) => h("div", { part: "empty", class: "empty" }, str(need(n.message, "message"))),
};

/** The `index`-th table of a definition, in the order renderNode meets them. */
export function findTable(node: unknown, index: number, counter = { n: 0 }): Node | null {
  if (!isObj(node)) return null;
  if (node.type === "table") return counter.n++ === index ? node : null;
  if ((node.type === "page" || node.type === "stack") && Array.isArray(node.children)) {
    for (const c of node.children) {
      const found = findTable(c, index, counter);
      if (found) return found;
    }
  }
  return null;
}
