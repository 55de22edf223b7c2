"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { ErrorMessage, Input, Label } from "@/components/ui/input";
import { safeRedirectPath } from "@/lib/panel/safe-redirect";
import { signInErrorMessage } from "@/lib/panel/sign-in-errors";

export function LoginForm({ redirectTo }: { redirectTo: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      const res = await signIn<"credentials">("credentials", {
        redirect: false,
        email: String(form.get("email") ?? ""),
        password: String(form.get("password") ?? ""),
      });
      if (res?.ok && !res.error) {
        // Checked again here: whatever reaches this prop, the browser never leaves our origin.
        router.replace(safeRedirectPath(redirectTo));
        router.refresh();
        return;
      }
      setError(signInErrorMessage(res?.error));
    } catch {
      setError("Could not reach the server. Check your connection and try again.");
    }
    setPending(false);
  }

  return (
    <form onSubmit={onSubmit} className="space-y-5" data-testid="login-form" noValidate>
      <div>
        <Label htmlFor="email">Email</Label>
        <Input id="email" name="email" type="email" autoComplete="username" required autoFocus className="mt-1.5" />
      </div>
      <div>
        <Label htmlFor="password">Password</Label>
        <Input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          className="mt-1.5"
        />
      </div>
      <ErrorMessage data-testid="login-error">{error}</ErrorMessage>
      <Button type="submit" className="w-full" disabled={pending}>
        {pending && <Spinner />}
        Sign in
      </Button>
    </form>
  );
}
