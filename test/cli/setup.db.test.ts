import { randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";
import postgres from "postgres";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli";

/**
 * `npm run admin -- setup` on a database of its own: the first run of a container, where the setup
 * link cannot be reached (it needs no panel user anywhere, which the shared test database never is).
 */
const base = new URL(process.env.DATABASE_URL!);
const name = `cockpit_setup_${randomBytes(4).toString("hex")}`;
const admin = postgres(base.toString(), { max: 1, onnotice: () => {} });
const fresh = Object.assign(new URL(base), { pathname: `/${name}` }).toString();
const env = { ...process.env, DATABASE_URL: fresh };

afterAll(async () => {
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
});

describe("npm run admin -- setup", () => {
  it("on an empty database: the demo company, its key once, and the first admin, who can sign in", async () => {
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const first = runCli(["setup", "--email", "root@example.com", "--password", "correct horse battery"], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toEqual({
      company_id: expect.stringMatching(/^co_/),
      user_id: expect.any(String),
      email: "root@example.com",
      key: expect.stringMatching(/^sk-cp-/),
    });

    const db = postgres(fresh, { max: 1, onnotice: () => {} });
    try {
      const [company] = await db`SELECT name, balance_micro::text AS balance FROM companies`;
      expect(company).toEqual({ name: "Demo Company", balance: "10000000000" });
      const users = await db`SELECT email, company_id, password_hash FROM users`;
      expect(users).toEqual([
        { email: "root@example.com", company_id: first.json.company_id, password_hash: expect.any(String) },
      ]);
      expect(await bcrypt.compare("correct horse battery", users[0]!.password_hash as string)).toBe(true);
    } finally {
      await db.end();
    }

    // Done once: a second run refuses, and names how to add users instead.
    const again = runCli(["setup", "--email", "other@example.com", "--password", "correct horse battery"], env);
    expect(again.code).toBe(1);
    expect(again.json.error).toMatch(/already done/);
  });

  it("refuses a bad email before touching the database, naming the flag", () => {
    const bad = runCli(["setup", "--email", "nope", "--password", "correct horse battery"], env);
    expect(bad.code).toBe(1);
    expect(JSON.stringify(bad.json)).toMatch(/email/i);
  });
});
