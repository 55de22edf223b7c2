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
  if (!res.ok) {
    const error = (body as ErrorBody | null)?.error;
    if (res.status === 401 && typeof window !== "undefined") {
      // The session expired while the page was open: send the user back to sign in.
      window.location.assign("/login");
    }
    throw new ApiError(error?.message ?? `Request failed (${res.status})`, res.status, error?.code ?? null, error?.param ?? null);
  }
  return body as T;
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
