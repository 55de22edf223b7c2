import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { makeCompany, makeKey } from "../support/factories";
import { getBalance } from "@/lib/billing";
import { findKeyById } from "@/lib/keys";
import { resolveModel } from "@/lib/models";
import { verifyCredentials } from "@/lib/users";
import * as me from "@/app/v1/me/route";
import * as modelById from "@/app/v1/models/[model]/route";
import * as modelList from "@/app/v1/models/route";
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

    const key = runCli([
      "key",
      "create",
      "--company",
      companyId,
      "--scopes",
      "chat,view",
      "--name",
      "ops",
      "--rpm",
      "30",
    ]);
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

    // Unique per run: emails are unique across companies and the database may be reused.
    const tag = companyId.slice(-8).toLowerCase();
    const user = runCli([
      "user",
      "create",
      "--company",
      companyId,
      "--email",
      `Ops-${tag}@Example.test`,
      "--password",
      "correct horse",
    ]);
    expect(user.json).toEqual({ user_id: expect.stringMatching(/^usr_/), email: `ops-${tag}@example.test` });
    expect(await verifyCredentials(db, { email: `ops-${tag}@example.test`, password: "correct horse" })).not.toBeNull();
    expect(await verifyCredentials(db, { email: `ops-${tag}@example.test`, password: "wrong" })).toBeNull();

    const revoke = runCli(["key", "revoke", "--id", key.json.id]);
    expect(revoke.json).toEqual({ id: key.json.id, revoked: true });
    expect((await findKeyById(key.json.id))?.status).toBe("revoked");
  });

  it("a failed statement never prints its parameters (a duplicate user's password hash)", async () => {
    const company = await makeCompany(db);
    const email = `dup-${company.id.slice(-8).toLowerCase()}@example.test`;
    expect(
      runCli(["user", "create", "--company", company.id, "--email", email, "--password", "first password"]).code,
    ).toBe(0);
    const again = runCli([
      "user",
      "create",
      "--company",
      company.id,
      "--email",
      email,
      "--password",
      "second password",
    ]);
    expect(again.code).toBe(1);
    expect(again.json.error).toMatch(/^already exists/);
    expect(again.stdout).not.toMatch(/\$2[aby]\$|params:|insert into/i);
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

  it("model price: the operator's per-company price reaches model resolution (what calls are held and billed at) and /v1/models of that company only; --reset returns to the catalog", async () => {
    // Committed rows: the CLI is another process.
    const company = await makeCompany(db);
    const other = await makeCompany(db);
    const { secret: key } = await makeKey(db, { companyId: company.id });
    const { secret: otherKey } = await makeKey(db, { companyId: other.id });
    const slug = "local-chat-latest";
    const pricingOf = async (secret: string) =>
      (await callRoute(modelById.GET, { key: secret, params: { model: slug } })).json.pricing;
    const catalog = { unit: "O₮ per 1M tokens", input: 100, cached_input: 10, output: 400 };
    // Cached in this process before the change: the CLI's NOTIFY must evict it.
    expect(await pricingOf(key)).toEqual(catalog);

    const set = runCli([
      "model",
      "price",
      "--company",
      company.id,
      "--model",
      slug,
      "--input",
      "2000",
      "--cached-input",
      "200.5",
      "--output",
      "15000",
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout.trim().split("\n")).toHaveLength(1);
    expect(set.json).toEqual({
      company_id: company.id,
      model: slug,
      pricing: { input: 2000, cached_input: 200.5, output: 15000 },
    });

    await expect.poll(() => pricingOf(key)).toEqual({ ...catalog, input: 2000, cached_input: 200.5, output: 15000 });
    const listed = (await callRoute(modelList.GET, { key })).json.data.find((m: { id: string }) => m.id === slug);
    expect(listed.pricing).toEqual({ ...catalog, input: 2000, cached_input: 200.5, output: 15000 });
    expect((await resolveModel({ companyId: company.id, slug })).prices).toEqual({
      inputMicroPerM: 2_000_000_000,
      cachedInputMicroPerM: 200_500_000,
      outputMicroPerM: 15_000_000_000,
    });
    expect(await pricingOf(otherKey)).toEqual(catalog);

    // Setting again replaces the price; zero is the operator's to give.
    const again = runCli([
      "model",
      "price",
      "--company",
      company.id,
      "--model",
      slug,
      "--input",
      "0",
      "--cached-input",
      "0",
      "--output",
      "1",
    ]);
    expect(again.json).toEqual({
      company_id: company.id,
      model: slug,
      pricing: { input: 0, cached_input: 0, output: 1 },
    });
    await expect.poll(() => pricingOf(key)).toEqual({ ...catalog, input: 0, cached_input: 0, output: 1 });

    const reset = runCli(["model", "price", "--company", company.id, "--model", slug, "--reset"]);
    expect(reset.code).toBe(0);
    expect(reset.json).toEqual({
      company_id: company.id,
      model: slug,
      pricing: { input: 100, cached_input: 10, output: 400 },
    });
    await expect.poll(() => pricingOf(key)).toEqual(catalog);
    expect((await resolveModel({ companyId: company.id, slug })).prices).toEqual({
      inputMicroPerM: 100_000_000,
      cachedInputMicroPerM: 10_000_000,
      outputMicroPerM: 400_000_000,
    });
  }, 180_000);

  it("model price errors print {error} and exit 1, changing nothing", async () => {
    const company = await makeCompany(db);
    const { secret: key } = await makeKey(db, { companyId: company.id });
    const prices = ["--input", "1", "--cached-input", "1", "--output", "1"];
    for (const args of [
      ["--company", "co_missing", "--model", "gpt-5", ...prices],
      ["--company", company.id, "--model", "no-such-model", ...prices],
      ["--company", company.id, "--model", "gpt-5", "--input=-1", "--cached-input", "1", "--output", "1"],
      ["--company", company.id, "--model", "gpt-5", "--input", "1", "--cached-input", "1", "--output", "abc"],
      ["--company", company.id, "--model", "gpt-5", "--input", "1", "--output", "1"],
      ["--company", company.id, "--model", "gpt-5", "--reset", "--input", "1"],
      ["--company", company.id, "--model", "gpt-5"],
    ]) {
      const res = runCli(["model", "price", ...args]);
      expect(res.code, args.join(" ")).toBe(1);
      expect(res.json, args.join(" ")).toEqual({ error: expect.any(String) });
      expect(res.stdout.trim().split("\n")).toHaveLength(1);
    }
    expect((await callRoute(modelById.GET, { key, params: { model: "gpt-5" } })).json.pricing).toMatchObject({
      input: 1250,
      cached_input: 125,
      output: 10000,
    });
  }, 180_000);
});
