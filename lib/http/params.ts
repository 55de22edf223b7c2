import { AppError } from "@/lib/errors";
import { isStorableText } from "@/lib/persistence/pg-text";

type Params = Record<string, string | string[] | undefined>;

// A parameter holding what no id or slug can contain (NUL, an unpaired surrogate) is a 404 here,
// not a failed query.
export async function readParams<P extends Params>(params: Promise<Params> | undefined): Promise<P> {
  // Next.js passes no params to a route without dynamic segments (and the fast lane passes {}).
  const p = (await params) ?? {};
  for (const value of Object.values(p)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v !== undefined && !isStorableText(v))
        throw new AppError("not_found", "No resource found at this path", { wireCode: "not_found" });
    }
  }
  return p as P;
}

// Decoded once more when it is valid percent-encoding (a slug holding `/`), else kept: then it
// names nothing.
export function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
