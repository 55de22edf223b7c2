import { createHash } from "node:crypto";
import pkg from "@/package.json";
import { generateOpenApiDocument } from "./generate";

export interface ServedDocument {
  body: string;
  /** Strong ETag from the content hash: a new build with other schemas is a new tag. */
  etag: string;
}

let served: ServedDocument | undefined;

/** The OpenAPI document as served at /v1/openapi.json, generated once per process. */
export function getOpenApiDocument(): ServedDocument {
  if (served) return served;
  const body = JSON.stringify(generateOpenApiDocument({ version: pkg.version }));
  served = { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"` };
  return served;
}
