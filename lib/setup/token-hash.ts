import { createHash } from "node:crypto";

/** Setup tokens are stored as their SHA-256: a database dump holds no usable link. */
export const setupTokenHash = (token: string) => createHash("sha256").update(token).digest("base64url");
