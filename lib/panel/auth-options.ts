import "server-only";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { storableText } from "@/lib/persistence/pg-text";
import { db } from "@/db/client";
import { authSecret } from "@/lib/auth/secret";
import { verifyCredentials } from "@/lib/users";

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
      async authorize(raw) {
        const parsed = LoginInput.safeParse(raw);
        if (!parsed.success) return null;
        const user = await verifyCredentials(db, parsed.data);
        return user ? { id: user.id, email: user.email, companyId: user.companyId } : null;
      },
    }),
  ],
  callbacks: {
    jwt({ token, user }) {
      if (user) {
        token.uid = user.id;
        token.cid = (user as { companyId?: string }).companyId;
      }
      return token;
    },
    session({ session, token }) {
      return { ...session, userId: token.uid as string, companyId: token.cid as string };
    },
  },
};

export interface PanelSession {
  userId: string;
  companyId: string;
  user?: { email?: string | null };
}
