/**
 * Operator CLI (CONTRACT 3): exactly one JSON object on stdout; logs and errors on stderr.
 * Works while the server runs, against DATABASE_URL or the embedded database.
 */
import { ZodError } from "zod";
import { db, sql } from "@/db/client";
import { ensureDatabase } from "@/db/ensure";
import { ADMIN_USAGE, runAdminCommand } from "@/lib/cli/admin-commands";
import { zodToAppError } from "@/lib/http/error-response";

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "help") {
    process.stderr.write(`${ADMIN_USAGE}\n`);
    process.stdout.write(`${JSON.stringify({ error: "no command given" })}\n`);
    return 1;
  }
  try {
    await ensureDatabase();
    const out = await runAdminCommand(db, argv);
    process.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  } catch (err) {
    const message = err instanceof ZodError ? zodToAppError(err).message : err instanceof Error ? err.message : String(err);
    process.stdout.write(`${JSON.stringify({ error: message })}\n`);
    return 1;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

main().then((code) => process.exit(code));
