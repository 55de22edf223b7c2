"use client";

import { useState } from "react";
import { CopyId } from "@/components/panel/copy-id";
import { usePanelAction } from "@/components/panel/use-panel-action";
import { EmptyState } from "@/components/ui/empty-state";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ErrorMessage, Input, Label, Select } from "@/components/ui/input";
import { Table, TBody, TD, TH, THead, TR } from "@/components/ui/table";
import type { PublicAgent } from "@/lib/agents/to-public";
import type { PublicEvent, PublicWebhook } from "@/lib/webhooks/to-public";
import { postJson } from "./post-json";

interface Secret {
  webhook_id: string;
  secret: string;
  url: string;
}

const STATUS_TONE: Record<string, BadgeTone> = {
  accepted: "neutral",
  routed: "indigo",
  processing: "amber",
  done: "green",
  failed: "red",
  dead: "red",
};

/** The endpoint's full URL, shown once with a copy button (the secret is not stored). */
function SecretBox({ secret }: { secret: Secret }) {
  const url = `${window.location.origin}${secret.url}`;
  const [copied, setCopied] = useState(false);
  return (
    <div className="mt-4 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm" data-testid="webhook-secret">
      <p className="mb-2 text-amber-900">Copy this URL now: its secret is not shown again.</p>
      <div className="flex items-center gap-2">
        <code className="min-w-0 flex-1 truncate rounded bg-white px-2 py-1 text-xs" data-testid="webhook-url">
          {url}
        </code>
        <Button
          size="sm"
          variant="secondary"
          onClick={() => {
            void navigator.clipboard?.writeText(url).then(() => setCopied(true));
          }}
        >
          {copied ? "Copied" : "Copy"}
        </Button>
      </div>
    </div>
  );
}

export function WebhooksView({
  webhooks,
  agents,
  events,
}: {
  webhooks: PublicWebhook[];
  agents: PublicAgent[];
  events: PublicEvent[];
}) {
  const [agentId, setAgentId] = useState("");
  const [name, setName] = useState("");
  const [secret, setSecret] = useState<Secret | null>(null);
  const [signing, setSigning] = useState<string | null>(null);
  const action = usePanelAction();
  const { busy, error } = action;
  const agentName = new Map(agents.map((a) => [a.id, a.name]));

  const act = async (fn: () => Promise<Secret | unknown>) => {
    const out = await action.run(fn);
    if (out && typeof out === "object" && "secret" in out) setSecret(out as Secret);
    if (out && typeof out === "object" && "signing_secret" in out)
      setSigning((out as { signing_secret: string | null }).signing_secret);
  };

  return (
    <div className="space-y-6">
      <Card>
        <CardHeader
          title="New endpoint"
          description="Bound to an agent, it wakes that agent with every event; without one it publishes to your company bus."
        />
        <form
          className="flex flex-wrap items-end gap-3 px-5 pt-4 pb-5"
          onSubmit={(e) => {
            e.preventDefault();
            void act(() => postJson<Secret>("/api/panel/webhooks", { agent_id: agentId || null, name: name || null }));
          }}
        >
          <div>
            <Label htmlFor="webhook-agent">Agent</Label>
            <Select id="webhook-agent" value={agentId} onChange={(e) => setAgentId(e.target.value)}>
              <option value="">Company bus (by topic)</option>
              {agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </Select>
          </div>
          <div>
            <Label htmlFor="webhook-name">Name</Label>
            <Input id="webhook-name" value={name} onChange={(e) => setName(e.target.value)} placeholder="Shop orders" />
          </div>
          <Button type="submit" disabled={busy}>
            Create endpoint
          </Button>
        </form>
        {error && <ErrorMessage className="mx-5 mb-5">{error}</ErrorMessage>}
        {secret && (
          <div className="px-5 pb-5">
            <SecretBox secret={secret} />
          </div>
        )}
        {signing && (
          <div
            className="mx-5 mb-5 rounded-md border border-amber-200 bg-amber-50 p-3 text-sm"
            data-testid="signing-secret"
          >
            Standard Webhooks signing secret (shown once):{" "}
            <code className="rounded bg-white px-1.5 py-0.5 text-xs">{signing}</code>
          </div>
        )}
      </Card>

      <Card>
        <CardHeader
          title="Endpoints"
          description="POST {event_topic, payload} to the URL; rotating keeps the previous secret working for the grace period, and a paused endpoint refuses deliveries (403)."
        />
        {webhooks.length === 0 ? (
          <EmptyState title="No endpoints yet">
            <p>
              A webhook endpoint is a secret URL that other systems (a shop, a CRM, a CI job) POST events to. Each event
              wakes the agent the endpoint is bound to, or goes to your company bus where agents pick it up by topic.
            </p>
            <p className="mt-2">
              To make one, pick an agent (or the company bus) and a name under{" "}
              <span className="font-medium text-slate-700">New endpoint</span> above, press{" "}
              <span className="font-medium text-slate-700">Create endpoint</span>, and copy the URL it shows once.
              {agents.length === 0 && (
                <>
                  {" "}
                  No agent yet?{" "}
                  <a className="font-medium text-indigo-600 hover:underline" href="/agents">
                    Create one on Agents
                  </a>
                  .
                </>
              )}
            </p>
          </EmptyState>
        ) : (
          <Table stackOnPhone>
            <THead>
              <TR>
                <TH>Name</TH>
                <TH>Routes to</TH>
                <TH>Status</TH>
                <TH align="right">Secret</TH>
              </TR>
            </THead>
            <TBody>
              {webhooks.map((w) => (
                <TR key={w.id} data-testid="webhook-row">
                  <TD className="sm:max-w-64">
                    <div className="truncate">{w.name}</div>
                    <CopyId id={w.id} label="webhook id" className="mt-1" />
                  </TD>
                  <TD>
                    <Select
                      aria-label={`Routes ${w.name} to`}
                      className="w-auto py-1 text-xs"
                      value={w.agent_id ?? ""}
                      disabled={busy}
                      onChange={(e) =>
                        void act(() =>
                          postJson(`/api/panel/webhooks/${w.id}`, { agent_id: e.target.value || null }, "PATCH"),
                        )
                      }
                    >
                      <option value="">Company bus</option>
                      {w.agent_id && !agentName.has(w.agent_id) && <option value={w.agent_id}>{w.agent_id}</option>}
                      {agents.map((a) => (
                        <option key={a.id} value={a.id}>
                          {a.name}
                        </option>
                      ))}
                    </Select>
                  </TD>
                  <TD>
                    <Badge tone={w.is_active ? "green" : "neutral"} data-testid="webhook-status">
                      {w.is_active ? "active" : "paused"}
                    </Badge>{" "}
                    <Button
                      size="sm"
                      variant="secondary"
                      disabled={busy}
                      onClick={() =>
                        void act(() => postJson(`/api/panel/webhooks/${w.id}`, { is_active: !w.is_active }, "PATCH"))
                      }
                    >
                      {w.is_active ? "Pause" : "Resume"}
                    </Button>
                  </TD>
                  <TD align="right">
                    <Button
                      size="sm"
                      variant="ghost"
                      disabled={busy}
                      onClick={() =>
                        void act(() =>
                          postJson(`/api/panel/webhooks/${w.id}/signature`, { required: !w.require_signature }),
                        )
                      }
                    >
                      {w.require_signature ? "Accept unsigned" : "Require signatures"}
                    </Button>{" "}
                    <Button
                      size="sm"
                      variant="secondary"
                      disabled={busy}
                      onClick={() => void act(() => postJson<Secret>(`/api/panel/webhooks/${w.id}/rotate`, {}))}
                    >
                      Rotate
                    </Button>
                  </TD>
                </TR>
              ))}
            </TBody>
          </Table>
        )}
      </Card>

      <Card>
        <CardHeader title="Event log" description="The latest events, their status and the runs they woke." />
        {events.length === 0 ? (
          <EmptyState title="No events yet">
            Events appear here when something POSTs{" "}
            <code className="font-mono text-xs">{"{event_topic, payload}"}</code> to one of your endpoint URLs.
          </EmptyState>
        ) : (
          <Table stackOnPhone>
            <THead>
              <TR>
                <TH>Event</TH>
                <TH>Status</TH>
                <TH>Runs</TH>
                <TH>Payload</TH>
                <TH align="right" />
              </TR>
            </THead>
            <TBody>
              {events.map((e) => (
                <TR key={e.id} data-testid="event-row">
                  <TD>
                    <div className="font-medium">{e.event_topic}</div>
                    <div className="text-xs text-slate-500">
                      {e.id} · {new Date(e.created_at * 1000).toLocaleString()}
                    </div>
                  </TD>
                  <TD>
                    <Badge tone={STATUS_TONE[e.status] ?? "neutral"} data-testid="event-status">
                      {e.status}
                    </Badge>
                    {e.error && (
                      <div className="mt-1 max-w-xs truncate text-xs text-rose-700" title={e.error}>
                        {e.error}
                      </div>
                    )}
                  </TD>
                  <TD>
                    {e.runs.length === 0 ? (
                      <span className="text-xs text-slate-500">none</span>
                    ) : (
                      e.runs.map((r) => (
                        <div key={r.agent_id} className="text-xs">
                          {agentName.get(r.agent_id) ?? r.agent_id}:{" "}
                          {r.thread_id ? (
                            <a
                              className="text-indigo-600 hover:underline"
                              href={`/threads?source=webhook&thread=${r.thread_id}`}
                            >
                              {r.status}
                            </a>
                          ) : (
                            r.status
                          )}
                        </div>
                      ))
                    )}
                  </TD>
                  <TD>
                    <details>
                      <summary className="cursor-pointer text-xs text-slate-600">show</summary>
                      <pre className="mt-1 max-h-48 max-w-md overflow-auto rounded bg-slate-50 p-2 text-xs">
                        {JSON.stringify(e.payload, null, 2)}
                      </pre>
                    </details>
                  </TD>
                  <TD align="right">
                    {(e.status === "failed" || e.status === "dead") && (
                      <Button
                        size="sm"
                        variant="secondary"
                        disabled={busy}
                        onClick={() => void act(() => postJson(`/api/panel/webhook-events/${e.id}/replay`, {}))}
                      >
                        Replay
                      </Button>
                    )}
                  </TD>
                </TR>
              ))}
            </TBody>
          </Table>
        )}
      </Card>
    </div>
  );
}
