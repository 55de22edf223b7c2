import pino from "pino";
import { env } from "./env";
import { safeErr } from "./log-serializers";

/**
 * Structured logs on stderr (stdout belongs to the CLI's JSON output). Anything that may carry a
 * secret is redacted by path; callers never log keys, tokens or raw headers in the first place.
 * Errors never carry a statement's parameters (prompts, answers): see safeErr.
 */
export const log = pino(
  {
    level: env.LOG_LEVEL,
    base: undefined,
    serializers: { err: safeErr },
    redact: {
      paths: ["authorization", "*.authorization", "headers", "*.headers", "key", "*.key", "token", "*.token", "password", "*.password", "secret", "*.secret"],
      censor: "[redacted]",
    },
  },
  pino.destination({ dest: 2, sync: false }),
);
