/**
 * Operator CLI (CONTRACT 3): one JSON object on stdout, logs on stderr. It registers as an
 * embedded-database user for the command, so a stopping server leaves the database up and a lone
 * command leaves nothing running.
 */
import { ZodError } from "zod";
import { db, sql } from "@/db/client";
import { attachDatabase } from "@/db/ensure";
import { ADMIN_USAGE, runAdminCommand } from "@/lib/cli/admin-commands";
import { AppError } from "@/lib/errors";
import { zodToAppError } from "@/lib/http/error-response";

// A failed query's message carries its parameters (a password hash), so only the database's reason
// is shown.
function errorMessage(err: unknown): string {
  if (err instanceof ZodError) return zodToAppError(err).message;
  if (err instanceof AppError) return err.message;
  const cause = (err as { cause?: { code?: unknown; message?: unknown; constraint_name?: unknown } }).cause;
  if (cause && typeof cause.message === "string") {
    if (cause.code === "23505")
      return `already exists${typeof cause.constraint_name === "string" ? ` (${cause.constraint_name})` : ""}`;
    return `database error: ${cause.message}`;
  }
  return err instanceof Error ? err.message : String(err);
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "help") {
    process.stderr.write(`${ADMIN_USAGE}\n`);
    process.stdout.write(`${JSON.stringify({ error: "no command given" })}\n`);
    return 1;
  }
  let releaseDatabase: (() => Promise<void>) | undefined;
  try {
    releaseDatabase = await attachDatabase();
    const out = await runAdminCommand(db, argv);
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } catch (err) {
    process.stdout.write(`${JSON.stringify({ error: errorMessage(err) })}\n`);
    return 1;
  } finally {
    await sql.end({ timeout: 5 });
    await releaseDatabase?.().catch((err: unknown) => {
      process.stderr.write(`could not stop the embedded database (npm run db:stop stops it): ${String(err)}\n`);
    });
  }
}

main().then((code) => process.exit(code));
