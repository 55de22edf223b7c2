import { AppError } from "@/lib/errors";
import { isStorableText } from "@/lib/persistence/pg-text";

type Params = Record<string, string | string[] | undefined>;

/**
 * The route's path parameters. One holding what no stored id or slug can contain (a NUL, an
 * unpaired surrogate: `%00`, `%ED%A0%80`) names nothing: 404 here, not a failed query later.
 */
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

/**
 * A parameter that may arrive percent-encoded once more (a slug holding `/`): decoded when it is
 * valid percent-encoding, as it came otherwise (then it names nothing and the lookup says 404).
 */
export function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
