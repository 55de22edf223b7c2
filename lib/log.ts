import pino from "pino";
import { env } from "./env";
import { redactSecrets } from "./log-redact.mjs";
import { safeErr } from "./log-serializers";

/**
 * Structured logs on stderr (stdout is the CLI's JSON). Secrets are redacted by path and every line
 * goes through redactSecrets last; errors never carry statement parameters (safeErr).
 */
export const log = pino(
  {
    level: env.LOG_LEVEL,
    base: undefined,
    serializers: { err: safeErr },
    hooks: { streamWrite: redactSecrets },
    redact: {
      paths: [
        "authorization",
        "*.authorization",
        "headers",
        "*.headers",
        "key",
        "*.key",
        "token",
        "*.token",
        "password",
        "*.password",
        "secret",
        "*.secret",
      ],
      censor: "[redacted]",
    },
  },
  pino.destination({ dest: 2, sync: false }),
);
