import { randomBytes } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import { makeCompany, makeUser } from "../support/factories";
import { AppError } from "@/lib/errors";
import {
  admitLoginAttempt,
  MAX_FAILURES_PER_ADDRESS,
  MAX_FAILURES_PER_EMAIL,
  MAX_FAILURES_PER_EMAIL_AND_ADDRESS,
} from "@/lib/panel/login-throttle";
import { signInWithPassword } from "@/lib/panel/sign-in";
import { findSessionUser, setPassword } from "@/lib/users";
import { comparePassword } from "@/lib/users/password-hash";
import { withRollback } from "../support/with-rollback";

vi.mock("@/lib/users/password-hash", async (importOriginal) => {
  const real = await importOriginal<typeof import("@/lib/users/password-hash")>();
  return { ...real, comparePassword: vi.fn(real.comparePassword) };
});

/** Counters live in the shared store, outside the test's transaction: every case uses its own client address (an opaque key here). */
const address = () => `test-${randomBytes(6).toString("hex")}`;
const unknownEmail = () => `nobody-${randomBytes(6).toString("hex")}@example.test`;

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof AppError)) throw new Error(`expected an AppError, got ${String(err)}`);
  return err;
}

describe("panel sign-in throttle", () => {
  it("after 10 failures for an email from one address, the right password is refused there without bcrypt; from another address it signs in", async () => {
    await withRollback(async (tx) => {
      const company = await makeCompany(tx, { creditsOt: 1 });
      const { user, password } = await makeUser(tx, { companyId: company.id });
      const from = address();
      for (let i = 0; i < MAX_FAILURES_PER_EMAIL_AND_ADDRESS; i++) {
        expect(await signInWithPassword(tx, { email: user.email, password: `wrong-${i}`, address: from })).toBeNull();
      }
      vi.mocked(comparePassword).mockClear();
      const err = await refusal(signInWithPassword(tx, { email: user.email.toUpperCase(), password, address: from }));
      expect(err.code).toBe("rate_limited");
      expect(Number(err.headers["retry-after"])).toBeGreaterThan(0);
      expect(comparePassword).not.toHaveBeenCalled();
      expect((await signInWithPassword(tx, { email: user.email, password, address: address() }))?.id).toBe(user.id);
    });
  });

  it("after 100 failures for an email from many addresses, it is refused from any address without bcrypt", async () => {
    await withRollback(async (tx) => {
      const company = await makeCompany(tx, { creditsOt: 1 });
      const { user, password } = await makeUser(tx, { companyId: company.id });
      // The failures are counted as a sign-in counts them, without the bcrypt of each wrong password.
      for (let i = 0; i < MAX_FAILURES_PER_EMAIL; i++)
        expect(
          await admitLoginAttempt({
            email: user.email,
            address: address(),
            passwordChangedAt: user.passwordChangedAt.getTime(),
          }),
        ).toEqual({ admitted: true });
      vi.mocked(comparePassword).mockClear();
      const err = await refusal(signInWithPassword(tx, { email: user.email, password, address: address() }));
      expect(err.code).toBe("rate_limited");
      expect(comparePassword).not.toHaveBeenCalled();
    });
  });

  it("a successful sign-in forgives that address's failures for the email", async () => {
    await withRollback(async (tx) => {
      const company = await makeCompany(tx, { creditsOt: 1 });
      const { user, password } = await makeUser(tx, { companyId: company.id });
      const from = address();
      for (let i = 0; i < MAX_FAILURES_PER_EMAIL_AND_ADDRESS - 1; i++)
        await signInWithPassword(tx, { email: user.email, password: "wrong", address: from });
      expect((await signInWithPassword(tx, { email: user.email, password, address: from }))?.id).toBe(user.id);
      for (let i = 0; i < MAX_FAILURES_PER_EMAIL_AND_ADDRESS - 1; i++)
        await signInWithPassword(tx, { email: user.email, password: "wrong", address: from });
      expect((await signInWithPassword(tx, { email: user.email, password, address: from }))?.id).toBe(user.id);
    });
  });

  it("after 30 failures from one address, its sign-ins are refused; other addresses are not", async () => {
    await withRollback(async (tx) => {
      const company = await makeCompany(tx, { creditsOt: 1 });
      const { user, password } = await makeUser(tx, { companyId: company.id });
      const from = address();
      for (let i = 0; i < MAX_FAILURES_PER_ADDRESS; i++) {
        expect(await signInWithPassword(tx, { email: unknownEmail(), password: "guess", address: from })).toBeNull();
      }
      expect((await refusal(signInWithPassword(tx, { email: user.email, password, address: from }))).code).toBe(
        "rate_limited",
      );
      expect((await signInWithPassword(tx, { email: user.email, password, address: address() }))?.id).toBe(user.id);
    });
  });

  it("many sign-ins that succeed never throttle their address", async () => {
    await withRollback(async (tx) => {
      const company = await makeCompany(tx, { creditsOt: 1 });
      const { user, password } = await makeUser(tx, { companyId: company.id });
      const from = address();
      for (let i = 0; i < MAX_FAILURES_PER_ADDRESS + 5; i++) {
        expect((await signInWithPassword(tx, { email: user.email, password, address: from }))?.id).toBe(user.id);
      }
    });
  });

  it("concurrent attempts cannot slip past the limit: at most 10 passwords are checked for one email from one address", async () => {
    await withRollback(async (tx) => {
      const email = unknownEmail();
      const from = address();
      vi.mocked(comparePassword).mockClear();
      const results = await Promise.allSettled(
        Array.from({ length: 25 }, () => signInWithPassword(tx, { email, password: "guess", address: from })),
      );
      expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(MAX_FAILURES_PER_EMAIL_AND_ADDRESS);
      expect(comparePassword).toHaveBeenCalledTimes(MAX_FAILURES_PER_EMAIL_AND_ADDRESS);
    });
  });
});

describe("findSessionUser", () => {
  it("keeps a session current until the user's password is set again, then never again", async () => {
    await withRollback(async (tx) => {
      const company = await makeCompany(tx);
      const { user, password } = await makeUser(tx, { companyId: company.id });
      const signedIn = await signInWithPassword(tx, { email: user.email, password, address: address() });
      const session = { userId: user.id, passwordChangedAt: signedIn!.passwordChangedAt.getTime() };
      expect(await findSessionUser(tx, session)).toEqual({ id: user.id, companyId: company.id });
      await setPassword(tx, { email: user.email, password: `${password}-new` });
      expect(await findSessionUser(tx, session)).toBeNull();
      expect(await findSessionUser(tx, { ...session, userId: "user_gone" })).toBeNull();
    });
  });
});
