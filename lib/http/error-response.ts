import { ZodError, type core } from "zod";
import { AppError, errorBody } from "@/lib/errors";
import { log } from "@/lib/log";
import { databaseUnavailable } from "@/lib/persistence/db-health";

/** `messages.0.content`: the OpenAI `param` convention for nested fields. */
function issueParam(issue: core.$ZodIssue): string | null {
  const path = [...issue.path];
  if (issue.code === "unrecognized_keys" && issue.keys.length > 0) path.push(issue.keys[0]!);
  return path.length > 0 ? path.map(String).join(".") : null;
}

export function zodToAppError(err: ZodError): AppError {
  const issue = err.issues[0]!;
  const param = issueParam(issue);
  const message =
    issue.code === "unrecognized_keys"
      ? `Unrecognized request argument supplied: ${issue.keys.join(", ")}`
      : `${param ?? "body"}: ${issue.message}`;
  return new AppError("invalid_request", message, { param, wireCode: "invalid_value" });
}

function toAppError(err: unknown, requestId: string): AppError {
  if (err instanceof AppError) return err;
  if (err instanceof ZodError) return zodToAppError(err);
  const unavailable = databaseUnavailable(err);
  if (unavailable) return unavailable;
  log.error({ err, requestId }, "unhandled error");
  return new AppError("internal", `The server had an error processing your request (request id ${requestId})`, {
    wireCode: "internal_error",
  });
}

/** A front door's own error body (the default is OpenAI's). */
export type ErrorBodyFormat = (err: AppError, requestId: string) => unknown;

/** Every error leaves through here, in the OpenAI body shape unless a front door has its own; the cause never does. */
export function toErrorResponse(err: unknown, requestId: string, format: ErrorBodyFormat = errorBody): Response {
  const appErr = toAppError(err, requestId);
  return Response.json(format(appErr, requestId), { status: appErr.status, headers: appErr.headers });
}
