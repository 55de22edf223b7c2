import { AppError } from "@/lib/errors";

export const webhookNotFound = (id: string) =>
  new AppError("not_found", `No webhook found with id '${id}'`, { wireCode: "webhook_not_found" });
