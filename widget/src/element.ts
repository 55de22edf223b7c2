/**
 * `<cockpit-widget gateway service view auth-token | token-url>`: fetches a view, renders it in
 * Shadow DOM and runs its actions. Events (bubbling, composed): `cockpit-action`, `cockpit-error`,
 * `cockpit-render`. Every widget listens for `cockpit-action` and re-fetches when the action's
 * `refresh` names its view.
 */
import { Client, SDUI_VERSION, WidgetError, type TokenProvider } from "./api";
import { h, uuid } from "./dom";
import type { ActionInfo, RenderContext } from "./node";
import { findTable, renderNode } from "./render";
import { resolve } from "./bind";
import { CSS } from "./styles";
import { validate } from "./validate";

interface ViewResponse {
  service: string;
  view: string;
  version: number;
  definition: unknown;
  data: unknown;
  actions?: ActionInfo[];
}

interface ActionResponse {
  ok: boolean;
  result: unknown;
  refresh?: string[];
}

const ATTRS = ["gateway", "service", "view", "auth-token", "token-url"] as const;
/** Where the script itself was loaded from: the default `gateway`. */
const SCRIPT_ORIGIN = (() => {
  try {
    return new URL(import.meta.url).origin;
  } catch {
    return "";
  }
})();

let sheet: CSSStyleSheet | null = null;

function message(err: WidgetError): { title: string; text: string } {
  if (err.status === 401)
    return {
      title: "This widget's key was revoked or expired",
      text: `Ask the site owner for a new key. (${err.message})`,
    };
  if (err.status === 403) return { title: "This widget's key may not show this view", text: err.message };
  if (err.status === 404) return { title: "This view does not exist", text: err.message };
  if (err.status === 429) return { title: "Too many requests", text: "Try again in a moment." };
  if (err.code === "network_error") return { title: "The gateway cannot be reached", text: err.message };
  return { title: "This view could not be loaded", text: err.message };
}

export class CockpitWidget extends HTMLElement {
  static observedAttributes = [...ATTRS];

  private readonly shadow: ShadowRoot;
  private readonly root: HTMLElement;
  private readonly notice: HTMLElement;
  private readonly content: HTMLElement;
  private provider: TokenProvider | null = null;
  private client: Client | null = null;
  private params: Record<string, string> = {};
  private current: ViewResponse | null = null;
  /** Bumped by every restart and fetch: a late answer for an older request is dropped. */
  private generation = 0;
  private restartQueued = false;

  constructor() {
    super();
    this.shadow = this.attachShadow({ mode: "open" });
    // One constructed sheet shared by every widget on the page; a <style> where that is unsupported.
    try {
      sheet ??= new CSSStyleSheet();
      if (!sheet.cssRules.length) sheet.replaceSync(CSS);
      this.shadow.adoptedStyleSheets = [sheet];
    } catch {
      this.shadow.appendChild(h("style", null, CSS));
    }
    this.notice = h("div", { part: "notice", class: "notice", role: "alert" });
    this.content = h("div", { part: "content" });
    this.root = h("div", { part: "root", class: "root" }, this.notice, this.content);
    this.shadow.appendChild(this.root);
    // A property the page set before this script defined the element shadows the accessor: take it over.
    if (Object.prototype.hasOwnProperty.call(this, "tokenProvider")) {
      const value = (this as unknown as { tokenProvider: TokenProvider | null }).tokenProvider;
      delete (this as unknown as { tokenProvider?: unknown }).tokenProvider;
      this.provider = value;
    }
  }

  /** An async function answering a token or `{token, expires_in | expires_at}`; called again before expiry. */
  get tokenProvider(): TokenProvider | null {
    return this.provider;
  }
  set tokenProvider(fn: TokenProvider | null) {
    this.provider = typeof fn === "function" ? fn : null;
    this.queueRestart();
  }

  connectedCallback() {
    document.addEventListener("cockpit-action", this.onPeerAction);
    this.queueRestart();
  }

  disconnectedCallback() {
    document.removeEventListener("cockpit-action", this.onPeerAction);
    this.client?.stop();
    this.client = null;
    this.generation++;
  }

  attributeChangedCallback(_name: string, oldValue: string | null, newValue: string | null) {
    if (oldValue !== newValue) this.queueRestart();
  }

  private readonly onPeerAction = (e: Event) => {
    const d = (e as CustomEvent<{ service?: unknown; refresh?: unknown } | null>).detail;
    if (e.target === this || !this.client || !this.current || d?.service !== this.service) return;
    if (Array.isArray(d.refresh) && d.refresh.includes(this.view)) void this.load();
  };

  /** Re-fetches the view with its current parameters. */
  refresh(): Promise<void> {
    return this.load();
  }

  private get gateway() {
    return (this.getAttribute("gateway") || SCRIPT_ORIGIN).replace(/\/+$/, "");
  }
  private get service() {
    return this.getAttribute("service") ?? "";
  }
  private get view() {
    return this.getAttribute("view") ?? "";
  }

  /** Attribute changes in one task (a framework setting all of them) cost one restart. */
  private queueRestart() {
    if (this.restartQueued) return;
    this.restartQueued = true;
    queueMicrotask(() => {
      this.restartQueued = false;
      if (this.isConnected) this.restart();
    });
  }

  private restart() {
    this.client?.stop();
    this.client = null;
    this.current = null;
    this.params = {};
    const missing = ["service", "view"].filter((a) => !this.getAttribute(a));
    if (!this.provider && !this.getAttribute("token-url") && !this.getAttribute("auth-token"))
      missing.push("auth-token or token-url");
    if (missing.length) {
      this.showError(new WidgetError(0, "missing_attribute", `Missing: ${missing.join(", ")}`), false);
      return;
    }
    this.client = new Client(
      {
        gateway: this.gateway,
        service: this.service,
        view: this.view,
        authToken: this.getAttribute("auth-token"),
        tokenUrl: this.getAttribute("token-url"),
        tokenProvider: this.provider,
      },
      (err) => this.fail(err),
    );
    void this.load();
  }

  private viewPath(params: Record<string, string>) {
    const q = new URLSearchParams({ ...params, sdui: String(SDUI_VERSION) });
    return `/v1/sdk/view/${encodeURIComponent(this.service)}/${encodeURIComponent(this.view)}?${q}`;
  }

  private async fetchView(params: Record<string, string>): Promise<ViewResponse> {
    if (!this.client) throw new WidgetError(0, "not_connected", "The widget is not connected");
    return (await this.client.call(this.viewPath(params))) as ViewResponse;
  }

  private async load(): Promise<void> {
    const gen = ++this.generation;
    if (!this.current) {
      this.content.replaceChildren(
        h(
          "div",
          { part: "loading", class: "state muted", role: "status" },
          h("span", { class: "spinner" }),
          "Loading…",
        ),
      );
    }
    this.setAttribute("aria-busy", "true");
    try {
      const view = await this.fetchView(this.params);
      if (gen !== this.generation) return;
      this.current = view;
      this.render(view);
    } catch (err) {
      if (gen === this.generation) this.fail(err);
    } finally {
      if (gen === this.generation) this.removeAttribute("aria-busy");
    }
  }

  private render(view: ViewResponse) {
    this.notice.textContent = "";
    const ctx: RenderContext = {
      actions: new Map((view.actions ?? []).map((a) => [a.name, a])),
      params: this.params,
      tableIndex: 0,
      run: (action, input, key) => this.runAction(action, input, key),
      notify: (err) => {
        this.notice.textContent = err.message;
      },
      setParam: (param, value) => {
        if (value === "") delete this.params[param];
        else this.params[param] = value;
        void this.load();
      },
      loadMore: async (index, cursor) => {
        const page = await this.fetchView({ ...this.params, after: cursor });
        const node = findTable(page.definition, index);
        const scope = { data: page.data };
        const rows = node ? resolve(node.rows, scope) : [];
        return { rows: Array.isArray(rows) ? rows : [], next: node ? resolve(node.next, scope) : null, scope };
      },
    };
    const def = view.definition;
    const empty =
      !def ||
      (typeof def === "object" &&
        Array.isArray((def as { children?: unknown }).children) &&
        !(def as { children: unknown[] }).children.length);
    this.content.replaceChildren(
      empty
        ? h("div", { part: "empty", class: "empty" }, "Nothing to show yet.")
        : renderNode(def, { data: view.data }, ctx),
    );
    this.dispatchEvent(
      new CustomEvent("cockpit-render", {
        bubbles: true,
        composed: true,
        detail: { service: view.service, view: view.view, version: view.version },
      }),
    );
  }

  private async runAction(action: string, input: Record<string, unknown>, idempotencyKey = uuid()) {
    this.notice.textContent = "";
    if (!this.client) throw new WidgetError(0, "not_connected", "The widget is not connected");
    // Forms check before calling; buttons and board moves are checked here, against the same schema.
    const invalid = validate(this.current?.actions?.find((a) => a.name === action)?.input_schema, input)[0];
    if (invalid)
      throw new WidgetError(
        400,
        "invalid_input",
        invalid.path ? `${invalid.path}: ${invalid.message}` : invalid.message,
        invalid.path || null,
      );
    let res: ActionResponse;
    try {
      res = (await this.client.call("/v1/sdk/action", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ service: this.service, action, input, idempotency_key: idempotencyKey }),
      })) as ActionResponse;
    } catch (err) {
      const e = this.toError(err);
      this.emitError(e);
      // A revoked key ends the widget; anything else is the form's or button's to show.
      if (e.status === 401) this.showError(e, false);
      throw e;
    }
    this.dispatchEvent(
      new CustomEvent("cockpit-action", {
        bubbles: true,
        composed: true,
        detail: { service: this.service, action, input, result: res.result, refresh: res.refresh ?? [] },
      }),
    );
    if (Array.isArray(res.refresh) && res.refresh.includes(this.view)) await this.load();
    return res.result;
  }

  private toError(err: unknown): WidgetError {
    return err instanceof WidgetError
      ? err
      : new WidgetError(0, "internal", err instanceof Error ? err.message : String(err));
  }

  private emitError(e: WidgetError) {
    this.dispatchEvent(new CustomEvent("cockpit-error", { bubbles: true, composed: true, detail: e.detail }));
  }

  private fail(err: unknown) {
    const e = this.toError(err);
    this.emitError(e);
    this.showError(e, e.status !== 401);
  }

  private showError(e: WidgetError, retry: boolean) {
    this.generation++;
    this.current = null;
    if (e.status === 401) {
      this.client?.stop();
    }
    const { title, text } = message(e);
    this.notice.textContent = "";
    this.content.replaceChildren(
      h(
        "div",
        { part: "error", class: "state error", role: "alert", "data-status": e.status, "data-code": e.code },
        h("strong", null, title),
        h("span", { class: "muted" }, text),
        retry
          ? h(
              "button",
              { type: "button", part: "button retry", class: "btn secondary", onclick: () => this.restart() },
              "Try again",
            )
          : null,
      ),
    );
  }
}
