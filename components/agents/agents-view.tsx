"use client";

import Link from "next/link";
import { useState } from "react";
import { CopyId } from "@/components/panel/copy-id";
import { usePanelAction } from "@/components/panel/use-panel-action";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { ErrorMessage, FieldHint, Input, Label, Select } from "@/components/ui/input";
import { Table, TBody, TD, TH, THead, TR } from "@/components/ui/table";
import { postJson } from "@/components/webhooks/post-json";
import type { AgentRow } from "./agent-row";
import { EditAgentDialog } from "./edit-agent-dialog";

export function AgentsView({ agents, profiles }: { agents: AgentRow[]; profiles: { id: string; name: string }[] }) {
  const [name, setName] = useState("");
  const [profileId, setProfileId] = useState(profiles[0]?.id ?? "");
  const [topics, setTopics] = useState("");
  const { busy, error, run: act } = usePanelAction();

  return (
    <div className="space-y-6">
      <Card>
        <CardHeader
          title="New agent"
          description="An agent runs its profile (and the profile's model) on every event that wakes it."
        />
        {profiles.length === 0 ? (
          <div data-testid="agents-need-profile">
            <EmptyState
              title="Create a profile first"
              action={
                <Link
                  href="/profiles"
                  className="inline-flex items-center rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white shadow-xs hover:bg-indigo-500"
                >
                  Go to Profiles
                </Link>
              }
            >
              An agent answers each event with a profile: its system prompt, model and tools. This company has no active
              profile with a model yet; create one on the Profiles page, then come back to create the agent.
            </EmptyState>
          </div>
        ) : (
          <form
            className="flex flex-wrap items-end gap-3 px-5 pt-4 pb-5"
            onSubmit={(e) => {
              e.preventDefault();
              const list = topics
                .split(",")
                .map((t) => t.trim())
                .filter(Boolean);
              void act(async () => {
                await postJson("/api/panel/agents", { name, conductor_profile_id: profileId, topics: list });
                setName("");
                setTopics("");
              });
            }}
          >
            <div>
              <Label htmlFor="agent-name">Name</Label>
              <Input id="agent-name" value={name} onChange={(e) => setName(e.target.value)} required />
            </div>
            <div>
              <Label htmlFor="agent-profile">Profile</Label>
              <Select id="agent-profile" value={profileId} onChange={(e) => setProfileId(e.target.value)}>
                {profiles.map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
              </Select>
            </div>
            <div>
              <Label htmlFor="agent-topics">Topics</Label>
              <Input
                id="agent-topics"
                value={topics}
                onChange={(e) => setTopics(e.target.value)}
                placeholder="orders.*, billing.>"
              />
              <FieldHint>* one segment, &gt; last for the rest</FieldHint>
            </div>
            <Button type="submit" disabled={busy || !profileId}>
              Create agent
            </Button>
          </form>
        )}
        {error && <ErrorMessage className="mx-5 mb-5">{error}</ErrorMessage>}
      </Card>

      <Card>
        <CardHeader title="Agents" />
        {agents.length === 0 ? (
          <EmptyState title="No agents yet">
            {profiles.length === 0
              ? "Once a profile exists, an agent made above wakes on webhook events and answers them with it."
              : "Create one above, then bind a webhook endpoint to it on the Webhooks page or give it topics to hear the company bus."}
          </EmptyState>
        ) : (
          <Table stackOnPhone>
            <THead>
              <TR>
                <TH>Agent</TH>
                <TH className="hidden md:table-cell">Topics</TH>
                <TH className="hidden lg:table-cell">Webhooks</TH>
                <TH className="hidden lg:table-cell">Recent events</TH>
                <TH align="right">Status</TH>
              </TR>
            </THead>
            <TBody>
              {agents.map((a) => (
                <TR key={a.id} data-testid="agent-row">
                  <TD className="sm:max-w-72">
                    <div className="truncate font-medium">{a.name}</div>
                    <div className="truncate text-xs text-slate-500">
                      {a.profile_name}
                      <span className="md:hidden"> · {a.topics.length ? a.topics.join(", ") : "no topics"}</span>
                    </div>
                    <CopyId id={a.id} label="agent id" className="mt-1" />
                  </TD>
                  <TD className="hidden text-xs md:table-cell">{a.topics.length ? a.topics.join(", ") : "—"}</TD>
                  <TD className="hidden text-xs lg:table-cell">
                    {a.webhooks.length ? a.webhooks.map((w) => w.name).join(", ") : "—"}
                  </TD>
                  <TD className="hidden text-xs lg:table-cell">
                    {a.recent_events.length === 0
                      ? "—"
                      : a.recent_events.map((e) => (
                          <div key={e.id}>
                            {e.event_topic}:{" "}
                            {e.thread_id ? (
                              <a
                                className="text-indigo-600 hover:underline"
                                href={`/threads?source=webhook&thread=${e.thread_id}`}
                              >
                                {e.status}
                              </a>
                            ) : (
                              e.status
                            )}
                          </div>
                        ))}
                  </TD>
                  <TD align="right">
                    <Badge tone={a.is_active ? "green" : "neutral"} data-testid="agent-status">
                      {a.is_active ? "active" : "paused"}
                    </Badge>{" "}
                    <EditAgentDialog agent={a} profiles={profiles} />{" "}
                    <Button
                      size="sm"
                      variant="secondary"
                      disabled={busy}
                      onClick={() =>
                        void act(() => postJson(`/api/panel/agents/${a.id}`, { is_active: !a.is_active }, "PATCH"))
                      }
                    >
                      {a.is_active ? "Pause" : "Resume"}
                    </Button>
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
