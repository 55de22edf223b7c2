"use client";

import { useState, type FormEvent } from "react";
import { usePanelAction } from "@/components/panel/use-panel-action";
import { Button, Spinner } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogTrigger } from "@/components/ui/dialog";
import { ErrorMessage, FieldHint, Input, Label, Select } from "@/components/ui/input";
import { postJson } from "@/components/webhooks/post-json";
import type { AgentRow } from "./agent-row";

/** Edit an agent's name, profile and topics; `profiles` = those a new agent may run (active, with a model). */
export function EditAgentDialog({ agent, profiles }: { agent: AgentRow; profiles: { id: string; name: string }[] }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogTrigger asChild>
        <Button size="sm" variant="ghost" aria-label={`Edit ${agent.name}`} data-testid="edit-agent">
          Edit
        </Button>
      </DialogTrigger>
      {open && <EditAgentForm agent={agent} profiles={profiles} onDone={() => setOpen(false)} />}
    </Dialog>
  );
}

function EditAgentForm({
  agent,
  profiles,
  onDone,
}: {
  agent: AgentRow;
  profiles: { id: string; name: string }[];
  onDone: () => void;
}) {
  const { busy, error, setError, run } = usePanelAction();
  // Keep the agent's current profile selectable even when no longer offered, so saving another
  // field keeps it.
  const options = profiles.some((p) => p.id === agent.conductor_profile_id)
    ? profiles
    : [{ id: agent.conductor_profile_id, name: agent.profile_name }, ...profiles];

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get("name") ?? "").trim();
    if (!name) return setError("Give the agent a name.");
    const profileId = String(form.get("conductor_profile_id") ?? "");
    const topics = String(form.get("topics") ?? "")
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    // Only what changed: an unchanged profile is not checked again (it may have lost its model since).
    const body: Record<string, unknown> = {};
    if (name !== agent.name) body.name = name;
    if (profileId !== agent.conductor_profile_id) body.conductor_profile_id = profileId;
    if (topics.join(",") !== agent.topics.join(",")) body.topics = topics;
    if (Object.keys(body).length === 0) return onDone();
    const saved = await run(async () => {
      await postJson(`/api/panel/agents/${agent.id}`, body, "PATCH");
      return true;
    });
    if (saved) onDone();
  }

  return (
    <DialogContent title="Edit agent" description={agent.id} data-testid="agent-dialog">
      <form onSubmit={(e) => void onSubmit(e)} noValidate className="space-y-5">
        <div>
          <Label htmlFor="edit-agent-name">Name</Label>
          <Input
            id="edit-agent-name"
            name="name"
            maxLength={200}
            defaultValue={agent.name}
            autoComplete="off"
            className="mt-1.5"
            autoFocus
          />
        </div>
        <div>
          <Label htmlFor="edit-agent-profile">Profile</Label>
          <Select
            id="edit-agent-profile"
            name="conductor_profile_id"
            defaultValue={agent.conductor_profile_id}
            className="mt-1.5"
          >
            {options.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </Select>
          <FieldHint>The agent runs this profile and its model.</FieldHint>
        </div>
        <div>
          <Label htmlFor="edit-agent-topics">Topics</Label>
          <Input
            id="edit-agent-topics"
            name="topics"
            defaultValue={agent.topics.join(", ")}
            placeholder="orders.*, billing.>"
            className="mt-1.5"
          />
          <FieldHint>
            Comma-separated; * one segment, &gt; last for the rest. Empty: woken only by its bound webhooks.
          </FieldHint>
        </div>
        <ErrorMessage data-testid="agent-error">{error}</ErrorMessage>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary">Cancel</Button>
          </DialogClose>
          <Button type="submit" disabled={busy}>
            {busy && <Spinner />}
            Save agent
          </Button>
        </DialogFooter>
      </form>
    </DialogContent>
  );
}
