import { redactSecrets } from "@/lib/log-redact.mjs";

/** An error's message for a span's status, with the secrets logs never show removed too. */
export const errorMessage = (err: unknown): string => redactSecrets(err instanceof Error ? err.message : String(err));
