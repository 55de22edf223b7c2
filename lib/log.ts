import pino from "pino";
import { env } from "./env";
import { redactSecrets } from "./log-redact.mjs";
import { safeErr } from "./log-serializers";

/**
 * Structured logs on stderr (stdout belongs to the CLI's JSON output). Anything that may carry a
 * secret is redacted by path; callers never log keys, tokens or raw headers in the first place.
 * Errors never carry a statement's parameters (prompts, answers): see safeErr. Every line is passed
 * through redactSecrets last, for what a path or message carries (a trigger URL's secret, a key
 * quoted in an error).
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
