import { AsyncLocalStorage } from "node:async_hooks";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "@/db/client";
import type { Tx } from "@/db/types";
import * as setupRoute from "@/app/api/setup/route";
import { AppError } from "@/lib/errors";
import { requestPeer } from "@/lib/process-channels.mjs";
import { completeSetup, isSetupPending, issueSetupToken, setupFirstAdmin, setupTokenState } from "@/lib/setup";
import { verifyCredentials } from "@/lib/users";
import { callRoute } from "../support/call-route";
import { makeCompany, makeUser } from "../support/factories";
import { withRollback } from "../support/with-rollback";

class Rollback extends Error {}

/**
 * Setup is pending only while the whole database has no panel user, and other suites commit users
 * concurrently: each case sees a snapshot without any (repeatable read), then rolls back.
 */
async function withNoUsers(fn: (tx: Tx) => Promise<void>): Promise<void> {
  try {
    await db.transaction(
      async (tx) => {
        await tx.execute(sql`delete from users`);
        await makeCompany(tx, { name: "Setup Co" });
        await fn(tx);
        throw new Rollback();
      },
      { isolationLevel: "repeatable read" },
    );
  } catch (err) {
    if (!(err instanceof Rollback)) throw err;
  }
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

const admin = { email: "Owner@Example.test", password: "correct horse battery" };

describe("first-run setup link", () => {
  it("creates the first user in the token's company once; a second use is refused", async () => {
    await withNoUsers(async (tx) => {
      const issued = await issueSetupToken(tx);
      expect(issued).not.toBeNull();
      expect(issued!.token).toMatch(/^[A-Za-z0-9]{32}$/);
      const user = await completeSetup(tx, { token: issued!.token, ...admin });
      expect(user).toMatchObject({ companyId: issued!.companyId, email: "owner@example.test" });
      expect((await verifyCredentials(tx, admin))?.id).toBe(user.id);
      expect(await isSetupPending(tx)).toBe(false);

      const again = await refusal(completeSetup(tx, { token: issued!.token, ...admin, email: "other@example.test" }));
      expect(again.code).toBe("conflict");
      expect(again.message).toMatch(/already used/);
      expect((await setupTokenState(tx, { token: issued!.token })).state).toBe("used");
      // Once a user exists, no start issues another link.
      expect(await issueSetupToken(tx)).toBeNull();
    });
  });

  it("issuing a new link invalidates the older one", async () => {
    await withNoUsers(async (tx) => {
      const first = await issueSetupToken(tx);
      const second = await issueSetupToken(tx);
      const err = await refusal(completeSetup(tx, { token: first!.token, ...admin }));
      expect(err).toMatchObject({ code: "invalid_request", param: "token" });
      expect(err.message).toMatch(/not valid/);
      expect((await completeSetup(tx, { token: second!.token, ...admin })).companyId).toBe(second!.companyId);
    });
  });

  it("an expired link is refused and creates no user", async () => {
    await withNoUsers(async (tx) => {
      const issued = await issueSetupToken(tx, { now: new Date(Date.now() - 2 * 60 * 60 * 1000) });
      const err = await refusal(completeSetup(tx, { token: issued!.token, ...admin }));
      expect(err.code).toBe("invalid_request");
      expect(err.message).toMatch(/expired/);
      expect(await isSetupPending(tx)).toBe(true);
    });
  });

  it("no link is issued while any panel user exists", async () => {
    await withRollback(async (tx) => {
      const company = await makeCompany(tx);
      await makeUser(tx, { companyId: company.id });
      expect(await isSetupPending(tx)).toBe(false);
      expect(await issueSetupToken(tx)).toBeNull();
    });
  });
});

describe("setup without the link (npm run admin -- setup)", () => {
  it("makes the first admin in the oldest company, as the link would, once", async () => {
    await withNoUsers(async (tx) => {
      const link = await issueSetupToken(tx);
      const first = await setupFirstAdmin(tx, admin);
      // Companies exist: no demo company, no key; the link's company.
      expect(first).toMatchObject({ companyId: link!.companyId, key: null });
      expect((await verifyCredentials(tx, admin))?.id).toBe(first.user.id);
      const again = await refusal(setupFirstAdmin(tx, { ...admin, email: "second@example.test" }));
      expect(again.code).toBe("conflict");
      expect(again.message).toMatch(/already done/);
    });
  });

  it("puts the admin in the company it names; an unknown one is a 404", async () => {
    await withNoUsers(async (tx) => {
      const other = await makeCompany(tx, { name: "Named Co" });
      const missing = await refusal(setupFirstAdmin(tx, { ...admin, companyId: "co_missing" }));
      expect(missing.code).toBe("not_found");
      expect((await setupFirstAdmin(tx, { ...admin, companyId: other.id })).companyId).toBe(other.id);
    });
  });
});

describe("POST /api/setup", () => {
  const peer = requestPeer.getOrInit(() => new AsyncLocalStorage());
  const post = (token: string, headers: Record<string, string> = {}) =>
    callRoute(setupRoute.POST, { method: "POST", path: "/api/setup", body: { token, ...admin }, headers });

  it("refuses a client that is not on loopback, whatever X-Forwarded-For says", async () => {
    const res = await peer.run({ address: "203.0.113.9" }, () =>
      post("x".repeat(32), { "x-forwarded-for": "127.0.0.1" }),
    );
    expect(res.status).toBe(403);
    expect(res.json.error.message).toMatch(/loopback/);
  });

  it("refuses when the server does not know the peer (outside next dev)", async () => {
    expect((await post("x".repeat(32))).status).toBe(403);
  });

  it("from loopback, an unknown token is a 400 naming the token", async () => {
    const res = await peer.run({ address: "::ffff:127.0.0.1" }, () => post("y".repeat(32)));
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param: "token", type: "invalid_request_error" });
  });
});
