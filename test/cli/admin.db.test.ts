import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { getBalance } from "@/lib/billing";
import { findKeyById } from "@/lib/keys";
import { verifyCredentials } from "@/lib/users";
import * as me from "@/app/v1/me/route";
import { callRoute } from "../support/call-route";
import { runCli } from "../support/run-cli";

describe("operator CLI (npm run admin)", () => {
  it("company create → credits grant → key create → user create → key revoke, one JSON object each", async () => {
    const company = runCli(["company", "create", "--name", "CLI Co"]);
    expect(company.code).toBe(0);
    // Exactly one JSON object on stdout, nothing else.
    expect(company.stdout.trim().split("\n")).toHaveLength(1);
    expect(company.json).toEqual({ company_id: expect.stringMatching(/^co_/), company_name: "CLI Co" });
    const companyId = company.json.company_id as string;

    const grant = runCli(["credits", "grant", "--company", companyId, "--amount", "250.5", "--note", "welcome"]);
    expect(grant.json).toEqual({ company_id: companyId, balance_ot: 250.5 });
    expect((await getBalance(db, { companyId })).balanceMicro).toBe(250_500_000);

    const key = runCli(["key", "create", "--company", companyId, "--scopes", "chat,view", "--name", "ops", "--rpm", "30"]);
    expect(key.code).toBe(0);
    expect(key.json).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^sk-cp-/),
      prefix: expect.any(String),
      scopes: ["chat", "view"],
      rate_limit_per_minute: 30,
    });
    const meRes = await callRoute(me.GET, { key: key.json.key });
    expect(meRes.json).toEqual({ company_id: companyId, company_name: "CLI Co" });

    const user = runCli(["user", "create", "--company", companyId, "--email", "Ops@Example.test", "--password", "correct horse"]);
    expect(user.json).toEqual({ user_id: expect.stringMatching(/^usr_/), email: "ops@example.test" });
    expect(await verifyCredentials(db, { email: "ops@example.test", password: "correct horse" })).not.toBeNull();
    expect(await verifyCredentials(db, { email: "ops@example.test", password: "wrong" })).toBeNull();

    const revoke = runCli(["key", "revoke", "--id", key.json.id]);
    expect(revoke.json).toEqual({ id: key.json.id, revoked: true });
    expect((await findKeyById(key.json.id))?.status).toBe("revoked");
  });

  it("errors print {error} and exit 1", () => {
    for (const args of [
      ["company", "create"],
      ["key", "create", "--company", "co_missing", "--scopes", "chat"],
      ["key", "create", "--company", "co_x", "--scopes", "root"],
      ["credits", "grant", "--company", "co_missing", "--amount", "5"],
      ["credits", "grant", "--company", "co_x", "--amount", "-5"],
      ["frobnicate"],
      ["company", "create", "--name", "x", "--bogus", "1"],
    ]) {
      const res = runCli(args);
      expect(res.code, args.join(" ")).toBe(1);
      expect(res.json, args.join(" ")).toEqual({ error: expect.any(String) });
      expect(res.stdout.trim().split("\n")).toHaveLength(1);
    }
  });
});
