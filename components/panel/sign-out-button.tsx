"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";
import { Button } from "@/components/ui/button";

export function SignOutButton() {
  const [pending, setPending] = useState(false);
  return (
    <Button
      variant="ghost"
      size="sm"
      disabled={pending}
      onClick={async () => {
        setPending(true);
        await signOut({ redirect: false });
        // A full load drops every cached query of the previous session.
        window.location.assign("/login");
      }}
    >
      Sign out
    </Button>
  );
}
