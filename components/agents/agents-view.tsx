"use client";

import { useState } from "react";
import { usePanelAction } from "@/components/panel/use-panel-action";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
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
        <form
          className="flex flex-wrap items-end gap-3 px-5 pb-5"
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
        {error && <ErrorMessage className="mx-5 mb-5">{error}</ErrorMessage>}
      </Card>

      <Card>
        <CardHeader title="Agents" />
        <Table>
          <THead>
            <TR>
              <TH>Agent</TH>
              <TH>Topics</TH>
              <TH>Webhooks</TH>
              <TH>Recent events</TH>
              <TH align="right">Status</TH>
            </TR>
          </THead>
          <TBody>
            {agents.map((a) => (
              <TR key={a.id} data-testid="agent-row">
                <TD>
                  <div className="font-medium">{a.name}</div>
                  <div className="text-xs text-slate-500">
                    {a.id} · {a.profile_name}
                  </div>
                </TD>
                <TD className="text-xs">{a.topics.length ? a.topics.join(", ") : "—"}</TD>
                <TD className="text-xs">{a.webhooks.length ? a.webhooks.map((w) => w.name).join(", ") : "—"}</TD>
                <TD className="text-xs">
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
      </Card>
    </div>
  );
}
