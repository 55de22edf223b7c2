import { extendZodWithOpenApi, type OpenAPIRegistry, type RouteConfig } from "@asteasolutions/zod-to-openapi";
import { z } from "zod";
import { ERROR_CODES } from "@/lib/errors";

// `registry.register` names a schema through the `.openapi()` method this adds to zod's prototype.
extendZodWithOpenApi(z);

export const SECURITY = { bearer: "bearerAuth", apiKey: "apiKeyAuth" } as const;

/** Error body of every /v1 route (CONTRACT 4): OpenAI's shape, which SDK clients parse. */
const ErrorBody = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.enum([...new Set(Object.values(ERROR_CODES).map((e) => e.type))] as [string, ...string[]]),
      code: z.string().nullable(),
      param: z.string().nullable().meta({ description: "The request field at fault (`messages.0.content`)" }),
    }),
  })
  .meta({ description: "OpenAI's error body; some errors add top-level fields (a failed run's `run_id`)" });

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: "Invalid request: malformed JSON or a field that fails validation (`param` names it)",
  401: "Missing, invalid, expired or revoked key or token",
  402: "The company's balance cannot cover the call",
  403: "The key lacks the scope this route needs",
  404: "No such resource in the caller's company",
  405: "Method not allowed on this path",
  408: "The request body arrived too slowly",
  409: "Conflict with the resource's state",
  413: "Body too large (`payload_too_large`)",
  415: "Upload type not allowed (`unsupported_media_type`)",
  429: "Rate limited: `Retry-After` and `x-ratelimit-*` say when to retry",
  500: "Internal error (the body names the request id)",
  502: "The provider failed: its status and message",
  503: "The server is busy or its database is away: retry after `Retry-After`",
};

/** Statuses every keyed route can answer besides its own: auth, scope, rate limit, server. */
const KEYED_ERRORS = [401, 403, 429, 500] as const;
const PUBLIC_ERRORS = [500] as const;

type ErrorStatus = keyof typeof ERROR_DESCRIPTIONS;

const RateLimitHeaders = z.object({
  "x-ratelimit-limit-requests": z.string().meta({ description: "Requests allowed per minute for this key" }),
  "x-ratelimit-remaining-requests": z.string().meta({ description: "Requests left in the current window" }),
  "x-ratelimit-reset-requests": z.string().meta({ description: "Time until the window resets (e.g. `12s`)" }),
});

/** Security schemes, the shared error body, and the error responses operations refer to. */
export function registerComponents(registry: OpenAPIRegistry) {
  registry.registerComponent("securitySchemes", SECURITY.bearer, {
    type: "http",
    scheme: "bearer",
    description:
      "An SDK key (`sk-cp-…`, from the panel's API keys page or `npm run admin -- key create`) or a short-lived JWT from `POST /v1/sdk/token`.",
  });
  registry.registerComponent("securitySchemes", SECURITY.apiKey, {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: "The same SDK key or JWT, as Anthropic's clients send it (the `/v1/messages` routes).",
  });
  const error = registry.register("Error", ErrorBody);
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    registry.registerComponent("responses", `Error${status}`, {
      description,
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    });
  }
  return { error };
}

const errorRef = (status: number) => ({ $ref: `#/components/responses/Error${status}` });

type Responses = RouteConfig["responses"];

/** A JSON response. */
export function json(description: string, schema: z.ZodType, headers?: z.ZodObject): Responses[string] {
  return { description, headers, content: { "application/json": { schema } } };
}

/** The rate-limit headers successful keyed calls carry (CONTRACT 4). */
export const rateLimited = RateLimitHeaders;

type Operation = Omit<RouteConfig, "responses" | "security"> & {
  /** Success responses by status. */
  ok: Responses;
  /** Statuses this operation answers beyond those of its kind (auth, scope, rate limit, 500). */
  errors?: ErrorStatus[];
  /** `public`: no credential (`security: []`); `apiKey`: Bearer or `x-api-key`. Default: Bearer. */
  auth?: "bearer" | "apiKey" | "public";
  /** The key scope the route requires (`null`: any valid credential). */
  scope?: string | null;
  /** The error response of a status, for routes that answer another protocol's error body. */
  errorResponse?: (status: number) => Responses[string];
};

/**
 * Registers one operation: its success responses plus the shared error responses of the statuses
 * it can answer, and its security (Bearer, the document's default, unless public or x-api-key).
 */
export function operation(registry: OpenAPIRegistry, op: Operation) {
  const { ok, errors = [], auth = "bearer", scope, errorResponse = errorRef, ...route } = op;
  const statuses = new Set<number>([...errors, ...(auth === "public" ? PUBLIC_ERRORS : KEYED_ERRORS)]);
  const responses: Responses = { ...ok };
  for (const status of [...statuses].sort((a, b) => a - b)) responses[String(status)] = errorResponse(status);
  const scopeNote = auth === "public" ? "No key." : scope ? `Scope \`${scope}\`.` : "Any valid key or token.";
  registry.registerPath({
    ...route,
    description: [route.description, scopeNote].filter(Boolean).join("\n\n"),
    ...(auth === "public" ? { security: [] } : {}),
    ...(auth === "apiKey" ? { security: [{ [SECURITY.bearer]: [] }, { [SECURITY.apiKey]: [] }] } : {}),
    responses,
  });
}

/** `{ "object": "list", data, first_id, last_id, has_more }` (CONTRACT 4). */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({
    object: z.literal("list"),
    data: z.array(item),
    first_id: z.string().nullable(),
    last_id: z.string().nullable(),
    has_more: z.boolean(),
  });
}

/** An unpaged list: `{ "object": "list", data }`. */
export function plainListOf<T extends z.ZodType>(item: T) {
  return z.object({ object: z.literal("list"), data: z.array(item) });
}

/** DELETE's answer (CONTRACT 4): `{ id, object, deleted: true }`. */
export function deletedOf(object: string) {
  return z.object({ id: z.string(), object: z.literal(object), deleted: z.literal(true) });
}

/** Path parameters, each a string named as in the route's folder (`[threadId]` → `{threadId}`). */
export function pathParams<K extends string>(...names: K[]) {
  return z.object(Object.fromEntries(names.map((n) => [n, z.string()])) as Record<K, z.ZodString>);
}

type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;

/**
 * A response object's schema, checked at compile time against `T`, what the route's mapper returns
 * (`ReturnType<typeof toPublicX>`): a field added to or dropped from the mapper fails typecheck here.
 */
export function describes<T>() {
  return <S extends z.ZodObject>(schema: S & (SameKeys<z.output<S>, T> extends true ? unknown : never)): S => schema;
}

/** Unix seconds (CONTRACT 4). */
export const unixTime = () => z.number().int().meta({ description: "Unix seconds" });

/** JSON, or server-sent events when the request says `stream: true`. */
export function jsonOrEventStream(description: string, schema: z.ZodType, headers?: z.ZodObject): Responses[string] {
  return {
    description,
    headers,
    content: {
      "application/json": { schema },
      "text/event-stream": {
        schema: { type: "string", description: "With `stream: true`: `data: <json>` frames, then `data: [DONE]`" },
      },
    },
  };
}
