import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { storableText } from "@/lib/persistence/pg-text";
import { db } from "@/db/client";
import { authSecret } from "@/lib/auth/secret";
import { AppError } from "@/lib/errors";
import { clientAddress } from "@/lib/net/client-ip";
import { log } from "@/lib/log";
import { safeRedirectPath } from "./safe-redirect";
import { throttledSignInError } from "./sign-in-errors";
import { signInWithPassword } from "./sign-in";

const LoginInput = z.object({ email: storableText(z.string().min(1).max(254)), password: z.string().min(1).max(200) });

/** Panel sessions: email + password, a JWT cookie carrying the user's company. */
export const authOptions: NextAuthOptions = {
  // Derived per purpose so panel cookies and SDK JWTs never share key material.
  secret: `panel:${authSecret()}`,
  session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
  pages: { signIn: "/login" },
  providers: [
    CredentialsProvider({
      name: "Email",
      credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
      async authorize(raw, req) {
        const parsed = LoginInput.safeParse(raw);
        if (!parsed.success) return null;
        const forwardedFor: unknown = req.headers?.["x-forwarded-for"];
        const address = clientAddress(typeof forwardedFor === "string" ? forwardedFor : null);
        try {
          const user = await signInWithPassword(db, { ...parsed.data, address });
          return user
            ? { id: user.id, email: user.email, companyId: user.companyId, pwd: user.passwordChangedAt.getTime() }
            : null;
        } catch (err) {
          // Auth.js sends the message of what authorize throws to the client as its `error`.
          if (err instanceof AppError && err.code === "rate_limited")
            throw new Error(throttledSignInError(Number(err.headers["retry-after"])));
          // Anything else (the store or the database down) is logged; the client only learns that it failed.
          log.error({ err }, "panel sign-in failed");
          throw new Error("SignInFailed");
        }
      },
    }),
  ],
  // Auth.js prints its own errors and warnings with console; through pino they are structured and redacted.
  logger: {
    error: (code, metadata) =>
      log.error({ code, err: metadata instanceof Error ? metadata : metadata.error }, "auth.js error"),
    warn: (code) => log.warn({ code }, "auth.js warning"),
    debug: (code) => log.debug({ code }, "auth.js debug"),
  },
  callbacks: {
    /**
     * After sign-in or sign-out: a path of our own origin, else the origin. Auth.js's default fails
     * with a 500 on a `callbackUrl` that `new URL` cannot parse.
     */
    redirect({ url, baseUrl }) {
      let path = url;
      try {
        const parsed = new URL(url, baseUrl);
        if (parsed.origin === new URL(baseUrl).origin) path = `${parsed.pathname}${parsed.search}${parsed.hash}`;
      } catch {
        path = "/";
      }
      return `${baseUrl}${safeRedirectPath(path)}`;
    },
    jwt({ token, user }) {
      if (user) {
        token.uid = user.id;
        token.cid = (user as { companyId?: string }).companyId;
        // When the password was set: a later reset makes this session stale (getPanelSession).
        token.pwd = (user as { pwd?: number }).pwd;
      }
      return token;
    },
    session({ session, token }) {
      return {
        ...session,
        userId: token.uid as string,
        companyId: token.cid as string,
        passwordChangedAt: token.pwd as number,
      };
    },
  },
};

export interface PanelSession {
  userId: string;
  companyId: string;
  /** When the user's password was set as of sign-in (ms). */
  passwordChangedAt: number;
  user?: { email?: string | null };
}
