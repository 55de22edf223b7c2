/** The block `npm start` prints last, once the server answers: where to go, and what to keep. */
export function readyBanner(args: {
  /** The origin a browser on this machine uses, e.g. http://localhost:3000. */
  origin: string;
  /** The demo company's key, on the run that seeded it. */
  demoKey: string | null;
  demoCompanyId: string | null;
  /** The setup link's token while no panel user exists. */
  setupToken: string | null;
  setupExpiresInMin: number;
}): string {
  const lines = ["", `  Cockpit Gateway is ready on ${args.origin} (API under ${args.origin}/v1).`];
  if (args.demoKey) {
    lines.push(
      "  First run: created the demo company with 10,000 O₮ of credits and an SDK key with every scope.",
      `    SDK key   ${args.demoKey}`,
      "    (shown this once: keep it)",
    );
  }
  if (!args.setupToken) {
    lines.push(`  Sign in to the panel at ${args.origin}/login`, "");
    return lines.join("\n");
  }
  if (!args.demoKey) {
    const company = args.demoCompanyId ?? "ID";
    lines.push(
      "  The demo SDK key was shown on the first run only; after setup, create one on the panel's API keys page,",
      `  or now: npm run admin -- key create --company ${company} --scopes chat,view,action,admin`,
    );
  }
  lines.push(
    "  Set up the panel: open this link in a browser on this machine and choose the admin's email and password",
    `  (single use, expires in ${args.setupExpiresInMin} minutes; each restart prints a new one). Then sign in at ${args.origin}/login`,
    `    ${args.origin}/setup?token=${args.setupToken}`,
    "",
  );
  return lines.join("\n");
}
