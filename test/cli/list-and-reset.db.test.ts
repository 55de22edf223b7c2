import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import { AppError } from "@/lib/errors";
import { MAX_FAILURES_PER_EMAIL_AND_ADDRESS } from "@/lib/panel/login-throttle";
import { signInWithPassword } from "@/lib/panel/sign-in";
import { runCli } from "../support/run-cli";

const tag = () => randomBytes(4).toString("hex");
/** `user create` with the password flag(s) as given: `--password`, P apart or `--password=P`. */
const createUser = (companyId: string, email: string, ...password: string[]) =>
  runCli(["user", "create", "--company", companyId, "--email", email, ...password]);

describe("operator CLI: company list, user list, user password", () => {
  it("company list shows every company with its balance; user list a company's users", async () => {
    const company = runCli(["company", "create", "--name", `List Co ${tag()}`]).json as Record<string, string>;
    runCli(["credits", "grant", "--company", company.company_id!, "--amount", "12.5"]);
    const email = `list-${tag()}@example.test`;
    const user = createUser(company.company_id!, email, "--password", "pw-12345678");

    const companies = runCli(["company", "list"]);
    expect(companies.code).toBe(0);
    expect(companies.stdout.trim().split("\n")).toHaveLength(1);
    expect(companies.json.object).toBe("list");
    expect(companies.json.data).toContainEqual({
      company_id: company.company_id,
      company_name: company.company_name,
      balance_ot: 12.5,
    });

    const users = runCli(["user", "list", "--company", company.company_id!]);
    expect(users.json).toEqual({ object: "list", data: [{ user_id: user.json.user_id, email }] });

    const unknown = runCli(["user", "list", "--company", "co_doesnotexist"]);
    expect(unknown.code).toBe(1);
    expect(unknown.json.error).toMatch(/No company found/);
  });

  it("user password replaces the password and lifts the sign-in lockout, for a server process too", async () => {
    const company = runCli(["company", "create", "--name", `Reset Co ${tag()}`]).json as Record<string, string>;
    const email = `reset-${tag()}@example.test`;
    const created = createUser(company.company_id!, email, "--password", "old-password-1");
    const address = `test-${tag()}`;
    for (let i = 0; i < MAX_FAILURES_PER_EMAIL_AND_ADDRESS; i++)
      expect(await signInWithPassword(db, { email, password: `wrong-${i}`, address })).toBeNull();
    const locked = await signInWithPassword(db, { email, password: "old-password-1", address }).catch(
      (e: unknown) => e,
    );
    expect(locked).toBeInstanceOf(AppError);
    expect((locked as AppError).code).toBe("rate_limited");

    const reset = runCli(["user", "password", "--email", email.toUpperCase(), "--password", "new-password-2"]);
    expect(reset.code).toBe(0);
    expect(reset.json).toEqual({ user_id: created.json.user_id, email });

    // This process kept its throttle state: the reset reaches it through the database alone.
    expect(await signInWithPassword(db, { email, password: "old-password-1", address })).toBeNull();
    expect((await signInWithPassword(db, { email, password: "new-password-2", address }))?.id).toBe(
      created.json.user_id,
    );
  });

  it("takes a password that begins with a dash in the --password= form, and says so when it is apart", async () => {
    const company = runCli(["company", "create", "--name", `Dash Co ${tag()}`]).json as Record<string, string>;
    const email = `dash-${tag()}@example.test`;
    const apart = createUser(company.company_id!, email, "--password", "-U-dash-1");
    expect(apart.code).toBe(1);
    expect(apart.json.error).toContain("--password=-XYZ");

    const created = createUser(company.company_id!, email, "--password=-U-dash-1");
    expect(created.code).toBe(0);
    const address = `test-${tag()}`;
    expect((await signInWithPassword(db, { email, password: "-U-dash-1", address }))?.id).toBe(created.json.user_id);
  });

  it("user password refuses an unknown email and a short password", () => {
    const unknown = runCli([
      "user",
      "password",
      "--email",
      `nobody-${tag()}@example.test`,
      "--password",
      "long-enough-1",
    ]);
    expect(unknown.code).toBe(1);
    expect(unknown.json.error).toMatch(/No panel user/);
    const short = runCli(["user", "password", "--email", "x@example.test", "--password", "short"]);
    expect(short.code).toBe(1);
    expect(short.json.error).toMatch(/at least 8/);
  });
});
