/**
 * `npm run db:migrate` (server, worker and CLI also migrate on start). Registered as an
 * embedded-database user for the run, so a database it started is stopped again.
 */
import { attachDatabase } from "@/db/ensure";

const releaseDatabase = await attachDatabase();
await releaseDatabase();
process.stdout.write("migrations applied\n");
