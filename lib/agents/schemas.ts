import { z } from "zod";
import { storableText } from "@/lib/persistence/pg-text";
import { TopicPatterns } from "./topics";

export const AgentName = storableText(z.string().trim().min(1).max(200));

export const CreateAgentInput = z.strictObject({
  name: AgentName,
  conductor_profile_id: z.string().min(1).max(100),
  topics: TopicPatterns.default([]),
});
export type CreateAgentInput = z.infer<typeof CreateAgentInput>;
