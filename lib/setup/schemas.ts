import { z } from "zod";
import { Email, Password } from "@/lib/users/schemas";

export const CompleteSetupInput = z.object({
  token: z.string().min(1).max(200),
  email: Email,
  password: Password,
});
export type CompleteSetupInput = z.infer<typeof CompleteSetupInput>;
