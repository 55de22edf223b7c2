/** The OpenAI-style error body every panel endpoint returns (CONTRACT 4). */
interface ErrorBody {
  error?: { message?: string; type?: string; code?: string | null; param?: string | null };
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/**
 * fetch for the panel's JSON endpoints: same-origin cookie session, and a non-2xx answer becomes an
 * ApiError carrying the server's `error.message` so the UI can show it as is.
 */
export async function fetchJson<T>(url: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set("accept", "application/json");
  if (init.body !== undefined) headers.set("content-type", "application/json");
  const res = await fetch(url, { ...init, headers, credentials: "same-origin" });
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) throw toApiError(res.status, body);
  return body as T;
}

/** The ApiError of a failed answer; a 401 means the session expired, so the user is sent to sign in. */
export function toApiError(status: number, body: unknown): ApiError {
  const error = (body as ErrorBody | null)?.error;
  if (status === 401 && typeof window !== "undefined") window.location.assign("/login");
  return new ApiError(
    error?.message ?? `Request failed (${status})`,
    status,
    error?.code ?? null,
    error?.param ?? null,
  );
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : "Something went wrong";
}

/** The list envelope of CONTRACT 4. */
export interface ListPage<T> {
  object: "list";
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}
