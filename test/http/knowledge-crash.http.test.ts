import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { db, sql as pg } from "@/db/client";
import { knowledgeDocuments } from "@/db/schema";
import { makeCompany, makeKey } from "../support/factories";
import { upload } from "../support/knowledge";
import { startNextServer, type RunningServer } from "../support/next-server";

/**
 * Durable indexing across a crash: a server SIGKILLed mid-job loses nothing. Its job stays `active`
 * until it expires (shortened here), maintenance fails it into a retry, and the standalone worker
 * indexes the document to `ready`, once.
 */
const jobEnv = {
  KNOWLEDGE_JOB_EXPIRE_S: "4",
  JOBS_MAINTENANCE_S: "1",
  JOBS_IDLE_CHECK_S: "1",
  KNOWLEDGE_JOB_RETRY_DELAY_S: "1",
  LOG_LEVEL: "error",
};
const authSecret = process.env.AUTH_SECRET ?? randomBytes(32).toString("hex");

let doomed: RunningServer | undefined;
let worker: ChildProcess | undefined;

function startWorker(): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "--conditions=react-server", "scripts/worker.ts"], {
    env: {
      ...process.env,
      ...jobEnv,
      AUTH_SECRET: authSecret,
      NODE_ENV: "production",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function stopWorker(): Promise<void> {
  const w = worker;
  worker = undefined;
  if (!w || w.exitCode !== null) return;
  const gone = new Promise((r) => w.once("exit", r));
  w.kill("SIGTERM");
  setTimeout(() => w.kill("SIGKILL"), 5_000).unref();
  await gone;
}

afterAll(async () => {
  await doomed?.kill();
  await stopWorker();
});

async function doomedUpload(env: Record<string, string> = {}) {
  const company = await makeCompany(db);
  const { secret: key } = await makeKey(db, { companyId: company.id });
  // An uncommitted insert of the company's chunk-version row: the doomed server's job blocks on it
  // when it bumps the version at the end of indexing, so it is mid-job when killed.
  const holder = await pg.reserve();
  await holder`BEGIN`;
  await holder`INSERT INTO knowledge_chunk_versions (company_id, version) VALUES (${company.id}, 1)`;
  doomed = await startNextServer({ ...jobEnv, AUTH_SECRET: authSecret, ...env });
  const kc = await fetch(`${doomed.url}/v1/knowledge`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Crash" }),
  }).then((r) => r.json());
  const paragraphs = Array.from(
    { length: 2_000 },
    (_, i) => `Paragraph ${i}: the pump in bay ${i % 40} is inspected weekly.`,
  ).join("\n\n");
  const up = await upload(doomed.url, key, kc.id, { name: "big.txt", bytes: paragraphs });
  expect(up.status).toBe(202);
  await until(
    "the doomed server to take the job",
    () => documentRow(up.json.id),
    (d) => d.attempts >= 1,
    20_000,
  );
  await doomed.kill();
  await holder`ROLLBACK`;
  holder.release();
  expect((await documentRow(up.json.id)).status).toBe("pending");
  return up.json.id as string;
}

async function documentRow(id: string) {
  const [row] = await db.select().from(knowledgeDocuments).where(eq(knowledgeDocuments.id, id));
  return row!;
}

async function until<T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("indexing survives a worker killed mid-job", () => {
  it("SIGKILL during indexing → the job expires, is retried by another worker, the document ends ready with no duplicate chunks", async () => {
    const id = await doomedUpload();
    worker = startWorker();
    const done = await until(
      "the document to leave pending",
      () => documentRow(id),
      (d) => d.status !== "pending",
      60_000,
    );
    expect(done).toMatchObject({ status: "ready", error: null });
    expect(done.attempts).toBeGreaterThanOrEqual(2);
    expect(done.chunkCount).toBeGreaterThan(0);

    const [t] = await db.execute<{ ok: boolean }>(sql`SELECT to_regclass('public.knowledge_chunks') IS NOT NULL AS ok`);
    if (t?.ok) {
      const [c] = await db.execute<{ total: number; distinct: number }>(
        sql`SELECT count(*)::int AS total, count(DISTINCT position)::int AS distinct FROM knowledge_chunks WHERE document_id = ${id}`,
      );
      expect(c).toEqual({ total: done.chunkCount, distinct: done.chunkCount });
    }
    await stopWorker();
  });

  it("killed on its last attempt: the job lands in the dead letter queue and the document is failed with a reason, never stuck pending", async () => {
    const id = await doomedUpload({ KNOWLEDGE_JOB_RETRIES: "0" });
    worker = startWorker();
    const done = await until(
      "the document to leave pending",
      () => documentRow(id),
      (d) => d.status !== "pending",
      60_000,
    );
    expect(done.status).toBe("failed");
    expect(done.error).toMatch(/^index: .*retry the document/);
    await stopWorker();
  });
});
