import type { OpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { registerAccountPaths } from "./account";
import { registerChatPaths } from "./chat";
import { registerGuardrailPaths } from "./guardrails";
import { registerKnowledgePaths } from "./knowledge";
import { registerMessagesPaths } from "./messages";
import { registerProfilePaths } from "./profiles";
import { registerPublicPaths } from "./public";
import { registerResponsesPaths } from "./responses";
import { registerSdkPaths } from "./sdk";
import { registerThreadPaths } from "./threads";
import { registerToolPaths } from "./tools";

/**
 * One module per route family, in the order the reference shows them. A new /v1 route is
 * registered in its family's module (or a new module listed here) with the zod schemas the route
 * parses with; lib/openapi/openapi.test.ts fails while one is missing.
 */
export const PATH_FAMILIES: ((registry: OpenAPIRegistry) => void)[] = [
  registerChatPaths,
  registerResponsesPaths,
  registerMessagesPaths,
  registerThreadPaths,
  registerProfilePaths,
  registerToolPaths,
  registerKnowledgePaths,
  registerGuardrailPaths,
  registerAccountPaths,
  registerSdkPaths,
  registerPublicPaths,
];
