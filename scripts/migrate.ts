/**
 * `npm run db:migrate`: applies db/migrations (the server, worker and CLI also do on start). On the
 * embedded database it is a registered user for the length of the run, so a database it had to
 * start is stopped again, and one that runs for another process stays up.
 */
import { attachDatabase } from "@/db/ensure";

const releaseDatabase = await attachDatabase();
await releaseDatabase();
process.stdout.write("migrations applied\n");
