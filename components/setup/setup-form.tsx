"use client";

import { signIn } from "next-auth/react";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { Button, Spinner } from "@/components/ui/button";
import { ErrorMessage, FieldHint, Input, Label } from "@/components/ui/input";

const MIN_PASSWORD = 8;

/** What the form can say before the server does: the server checks the same rules again. */
function localProblem(email: string, password: string, confirm: string): string | null {
  if (!email.includes("@")) return "Enter the admin's email address.";
  if (password.length < MIN_PASSWORD) return `The password must be at least ${MIN_PASSWORD} characters.`;
  if (password !== confirm) return "The passwords do not match.";
  return null;
}

export function SetupForm({ token }: { token: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const email = String(form.get("email") ?? "").trim();
    const password = String(form.get("password") ?? "");
    const problem = localProblem(email, password, String(form.get("confirm") ?? ""));
    if (problem) {
      setError(problem);
      return;
    }
    setPending(true);
    setError(null);
    try {
      const res = await fetch("/api/setup", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token, email, password }),
      });
      if (!res.ok) {
        const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
        setError(body?.error?.message ?? `Setup failed (HTTP ${res.status}).`);
        setPending(false);
        return;
      }
      const signedIn = await signIn<"credentials">("credentials", { redirect: false, email, password });
      router.replace(signedIn?.ok && !signedIn.error ? "/" : "/login");
      router.refresh();
    } catch {
      setError("Could not reach the server. Check that `npm start` still runs and try again.");
      setPending(false);
    }
  }

  return (
    <form onSubmit={onSubmit} className="space-y-5" data-testid="setup-form" noValidate>
      <div>
        <Label htmlFor="email">Admin email</Label>
        <Input id="email" name="email" type="email" autoComplete="username" required autoFocus className="mt-1.5" />
      </div>
      <div>
        <Label htmlFor="password">Password</Label>
        <Input
          id="password"
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={MIN_PASSWORD}
          required
          className="mt-1.5"
        />
        <FieldHint>At least {MIN_PASSWORD} characters.</FieldHint>
      </div>
      <div>
        <Label htmlFor="confirm">Confirm password</Label>
        <Input id="confirm" name="confirm" type="password" autoComplete="new-password" required className="mt-1.5" />
      </div>
      <ErrorMessage data-testid="setup-error">{error}</ErrorMessage>
      <Button type="submit" className="w-full" disabled={pending}>
        {pending && <Spinner />}
        Create admin and sign in
      </Button>
    </form>
  );
}
