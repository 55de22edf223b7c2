"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ErrorMessage, FieldHint, Input, Label } from "@/components/ui/input";
import { EmptyState } from "@/components/ui/empty-state";
import { PageHeader } from "@/components/ui/page-header";
import { createWidgetKey, type ServiceSummary } from "./api";
import { CopyBlock } from "./copy-block";
import { backendSnippet, directSnippet, tokenUrlSnippet } from "./snippets";
import { WidgetPreview } from "./widget-preview";

const KEY_RE = /^sk-cp-[0-9A-Za-z]{40}$/;

/**
 * /widgets: every service's views with a live preview and embed code. Both use a view + action key
 * made here, never the admin's session, so the preview shows what the embedded widget will.
 */
export function WidgetsView({ services }: { services: ServiceSummary[] }) {
  const [gateway, setGateway] = useState("");
  const [key, setKey] = useState("");
  const [created, setCreated] = useState(false);
  const create = useMutation({
    mutationFn: createWidgetKey,
    onSuccess: (k) => {
      setKey(k.key);
      setCreated(true);
    },
  });
  // The gateway is this server: the page's own origin as the browser sees it (behind any proxy).
  useEffect(() => setGateway(window.location.origin), []);
  const usableKey = KEY_RE.test(key) ? key : null;

  return (
    <>
      <PageHeader
        title="Widgets"
        description="Embed your services' views on any web site with <cockpit-widget>. The previews below run the real widget script with a view + action key."
      />
      <Card className="mb-8">
        <CardHeader
          title="Widget key"
          description="A key with the view and action scopes only. Keep it on your backend and hand the widget short-lived tokens (token-url)."
          actions={
            <Button onClick={() => create.mutate()} disabled={create.isPending} data-testid="create-widget-key">
              {create.isPending && <Spinner />}
              Create a view + action key
            </Button>
          }
        />
        <div className="px-5 py-4">
          <ErrorMessage className="mb-3">{create.error?.message}</ErrorMessage>
          <Label htmlFor="widget-key">Key used by the previews and snippets</Label>
          <Input
            id="widget-key"
            data-testid="widget-key"
            className="mt-1.5 font-mono text-xs"
            placeholder="Create a key above, or paste a view + action key (sk-cp-…)"
            value={key}
            onChange={(e) => {
              setKey(e.target.value.trim());
              setCreated(false);
            }}
            spellCheck={false}
            autoComplete="off"
          />
          {created && (
            <FieldHint className="text-amber-700" role="note">
              New key: shown this once (only a hash is kept). Copy it into your backend&apos;s configuration now.
            </FieldHint>
          )}
          {key && !usableKey && (
            <FieldHint className="text-rose-700">That is not an SDK key (sk-cp- and 40 letters or digits).</FieldHint>
          )}
          {gateway && (
            <CopyBlock
              label="Your backend: the token URL the widget calls"
              code={backendSnippet(gateway, usableKey)}
              testId="snippet-backend"
            />
          )}
        </div>
      </Card>

      {services.length === 0 && (
        <Card>
          <EmptyState title="No services to embed">
            A widget shows a view of a service registered with this gateway (lib/sdk/services). Once one is registered,
            its views, live previews and embed code appear here.
          </EmptyState>
        </Card>
      )}
      {services.map((s) => (
        <section key={s.service} className="mb-8" aria-labelledby={`svc-${s.service}`}>
          <h2 id={`svc-${s.service}`} className="mb-3 text-base font-semibold text-slate-900">
            {s.title} <span className="font-mono text-xs font-normal text-slate-500">{s.service}</span>
          </h2>
          <div className="grid gap-6">
            {s.views.map((v) => (
              <Card key={v.name} aria-label={`${s.title} · ${v.title}`} data-testid="view-card">
                <CardHeader
                  title={`${s.title} · ${v.title}`}
                  description={<code className="font-mono text-xs">{`${s.service}/${v.name}`}</code>}
                />
                <div className="grid gap-4 px-5 py-4">
                  <div className="min-w-0">
                    <div className="mb-1.5 text-xs font-medium text-slate-600">Live preview</div>
                    {gateway && usableKey ? (
                      <WidgetPreview gateway={gateway} service={s.service} view={v.name} authToken={usableKey} />
                    ) : (
                      <p className="rounded-md border border-dashed border-slate-300 px-4 py-8 text-center text-sm text-slate-500">
                        Create a view + action key above to see the live widget.
                      </p>
                    )}
                  </div>
                  {gateway && (
                    <div className="min-w-0">
                      <CopyBlock
                        label="Your page (token-url: no key in the page)"
                        code={tokenUrlSnippet(gateway, s.service, v.name)}
                        testId="snippet-token-url"
                      />
                      <CopyBlock
                        label="Or the key in the page (only where everyone may use it)"
                        code={directSnippet(gateway, s.service, v.name, usableKey)}
                        testId="snippet-direct"
                      />
                    </div>
                  )}
                </div>
              </Card>
            ))}
          </div>
        </section>
      ))}
    </>
  );
}
