import { describe, expect, it } from "vitest";
import { redactSecrets } from "./log-redact.mjs";

const KEY = "sk-cp-Q2hhcmFjdGVyc0FyZVJhbmRvbUhlcmUxMjM0NTY";
const WEBHOOK = "whs_4fQ8zLmN2pR7sT1vW3xY5aB6cD8eF0gH2iJ4kL6m";
const JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJrZXlfMSIsImNpZCI6ImNvXzEifQ.c2lnbmF0dXJlLWJ5dGVzLWhlcmU";

describe("redactSecrets", () => {
  it("removes a trigger secret from a path, a full URL, a JSON field and a percent-encoded callbackUrl", () => {
    for (const line of [
      `{"path":"/v1/public/triggers/co_1/${WEBHOOK}","status":202}`,
      `POST http://127.0.0.1:3000/v1/public/triggers/co_1/anything-at-all?x=1`,
      `callbackUrl=%2Fv1%2Fpublic%2Ftriggers%2Fco_1%2Fsecret-value-here`,
    ]) {
      const out = redactSecrets(line);
      expect(out).not.toMatch(/whs_4fQ8|anything-at-all|secret-value-here/);
      expect(out).toContain("co_1");
      expect(out).toContain("[redacted]");
    }
  });

  it("removes secret-named query parameters and keeps the others", () => {
    const out = redactSecrets(`GET /v1/models?limit=5&api_key=abc123&token=t0k&client_secret=s&password=p&after=m_1`);
    expect(out).toBe(
      `GET /v1/models?limit=5&api_key=[redacted]&token=[redacted]&client_secret=[redacted]&password=[redacted]&after=m_1`,
    );
  });

  it("removes header values and credentials in free text", () => {
    expect(redactSecrets(`{"authorization":"Bearer ${KEY}","accept":"*/*"}`)).toBe(
      `{"authorization":"[redacted]","accept":"*/*"}`,
    );
    expect(redactSecrets(`cookie: next-auth.session-token=abc.def; other=1`)).toBe(`cookie: [redacted]`);
    expect(redactSecrets(`x-api-key: ${KEY}`)).toBe(`x-api-key: [redacted]`);
    expect(redactSecrets(`failed with Bearer ${JWT} at step 2`)).toBe(`failed with Bearer [redacted] at step 2`);
  });

  it("removes the password of a URL's user info", () => {
    expect(
      redactSecrets(`connect ECONNREFUSED postgres://app:s3cr3t-pw@db:5432/x and redis://:hunter22@cache:6379`),
    ).toBe(`connect ECONNREFUSED postgres://app:[redacted]@db:5432/x and redis://:[redacted]@cache:6379`);
  });

  it("removes key, webhook-secret and JWT shaped strings anywhere, and keeps a key's public prefix", () => {
    const out = redactSecrets(`key ${KEY} secret ${WEBHOOK} token ${JWT} prefix sk-cp-Q2hhc`);
    for (const s of [KEY, WEBHOOK, JWT, KEY.slice(6, 22), WEBHOOK.slice(4, 20), JWT.split(".")[2]!])
      expect(out).not.toContain(s);
    expect(out).toContain("prefix sk-cp-Q2hhc");
  });

  it("leaves ordinary lines untouched, route patterns included", () => {
    const routes =
      "ready (fast lane: POST /v1/public/triggers/[companyId]/[secret]) see /v1/public/triggers/{company_id}/{secret}";
    expect(redactSecrets(routes)).toBe(routes);
    const line = `{"level":30,"requestId":"req_1","method":"GET","path":"/v1/threads/thr_1/runs","status":200,"ms":3.2}`;
    expect(redactSecrets(line)).toBe(line);
  });
});
