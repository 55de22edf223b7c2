import { z } from "zod";
import { storableText } from "@/lib/persistence/pg-text";
import { TopicPatterns } from "./topics";

export const AgentName = storableText(z.string().trim().min(1).max(200));
const ConductorProfileId = z.string().min(1).max(100);

export const CreateAgentInput = z.strictObject({
  name: AgentName,
  conductor_profile_id: ConductorProfileId,
  topics: TopicPatterns.default([]),
});
export type CreateAgentInput = z.infer<typeof CreateAgentInput>;

/** Body of PATCH /api/panel/agents/{id}: any of the fields, validated as at creation; at least one. */
export const UpdateAgentInput = z
  .strictObject({
    name: AgentName,
    conductor_profile_id: ConductorProfileId,
    topics: TopicPatterns,
    is_active: z.boolean(),
  })
  .partial()
  .refine((o) => Object.keys(o).length > 0, "give at least one of name, conductor_profile_id, topics, is_active");
export type UpdateAgentInput = z.infer<typeof UpdateAgentInput>;
