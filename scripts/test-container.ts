/**
 * `npm run test:container` (CONTRACT 10; not part of `npm test`): seeds the base image where the
 * Docker daemon cannot pull it, builds the image (Dockerfile) and runs it on this host's network
 * against the local PostgreSQL (a fresh database) and Redis, with a fake upstream on loopback.
 * Checks: size, a non-root server, health and readiness, first-run setup with the operator CLI inside
 * the container, a completion, `docker stop` of one of two replicas under load losing no bill, and a
 * worker container running a job no web container takes. Then `npm run test:cluster` on containers of
 * the image. Prints the measurements and ends with `N passed, N failed`.
 *
 * Env: CONTAINER_IMAGE (tag, default cockpit-gateway:test), CONTAINER_PG_URL (a server's maintenance
 * database), SEED_NODE_IMAGE_SCRIPT (default ../shared/tools/seed-node-image.sh), KUBECTL, CONTAINER_KEEP=1
 * (leaves the containers running, for a look at a failure).
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { Agent, fetch as undiciFetch, type RequestInit } from "undici";
import { startFakeUpstream, type FakeUpstream } from "../test/support/fake-upstream";
import { freePort } from "../test/support/next-server";
import { containerRuntime, dockerAsync, type ContainerRuntime } from "../test/cluster/runtime-containers";

const IMAGE = process.env.CONTAINER_IMAGE || "cockpit-gateway:test";
const BASE_IMAGE = "node:20-bookworm-slim";
const PG_URL = process.env.CONTAINER_PG_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const KUBECTL = process.env.KUBECTL || "kubectl";
const REDIS = { host: "127.0.0.1", port: 6379 };
/** The issue's goal for the image. */
const SIZE_GOAL_BYTES = 700 * 1024 * 1024;
/** Concurrent clients of the `docker stop` check, each making calls back to back. */
const LOAD_CLIENTS = 12;
/** How long each upstream answer takes: calls are in flight when the replica is stopped. */
const UPSTREAM_DELAY_MS = 800;
const GRACE_MS = 20_000;

/**
 * Connections kept idle shorter than the server's keep-alive (5 s): a POST sent on a socket the
 * server is closing fails without reaching it, and is not retried.
 */
const agent = new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 });
const fetch = (url: string, init: RequestInit = {}) => undiciFetch(url, { ...init, dispatcher: agent });

const repo = process.cwd();
const results: { name: string; ok: boolean; detail: string }[] = [];
const measured: Record<string, string> = {};

function check(name: string, ok: boolean, detail = ""): boolean {
  results.push({ name, ok, detail });
  process.stdout.write(`${ok ? "✓" : "✗"} ${name}${detail ? `: ${detail}` : ""}\n`);
  return ok;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The seed script: SEED_NODE_IMAGE_SCRIPT, else ../shared beside the repository, else the lead's checkout's. */
function seedScript(): string | null {
  const candidates = [
    process.env.SEED_NODE_IMAGE_SCRIPT,
    path.resolve(repo, "../shared/tools/seed-node-image.sh"),
    "/work/shared/tools/seed-node-image.sh",
  ].filter((p): p is string => Boolean(p));
  return candidates.find((p) => fs.existsSync(p)) ?? null;
}

function seedBaseImage(): boolean {
  const script = seedScript();
  const present = spawnSync("docker", ["image", "inspect", BASE_IMAGE], { stdio: "ignore" }).status === 0;
  if (!script) return check(`base image ${BASE_IMAGE}`, present, present ? "present" : "missing, and no seed script");
  if (process.getuid?.() !== 0 && present)
    return check(`base image ${BASE_IMAGE}`, true, "present (not root: not seeded)");
  const res = spawnSync("bash", [script], { stdio: "inherit" });
  return check(`base image ${BASE_IMAGE} (${path.relative(repo, script)})`, res.status === 0);
}

/** Builds with BuildKit where buildx exists, else with the classic builder (its layer cache keeps `npm ci`). */
async function buildImage(): Promise<boolean> {
  const buildkit = spawnSync("docker", ["buildx", "version"], { stdio: "ignore" }).status === 0;
  const log = path.join(os.tmpdir(), `cockpit-image-build-${process.pid}.log`);
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    const out = fs.openSync(log, "w");
    const child = spawn("docker", ["build", "-t", IMAGE, "."], {
      stdio: ["ignore", out, out],
      env: { ...process.env, DOCKER_BUILDKIT: buildkit ? "1" : "0" },
    });
    child.on("close", resolve);
  });
  const seconds = (Date.now() - started) / 1000;
  measured["build time"] = `${seconds.toFixed(0)} s (${buildkit ? "BuildKit" : "classic builder"}; log ${log})`;
  if (code !== 0) process.stdout.write(fs.readFileSync(log, "utf8").split("\n").slice(-40).join("\n"));
  return check(`docker build -t ${IMAGE}`, code === 0, `${seconds.toFixed(0)} s`);
}

function redisReachable(): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(REDIS, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });
}

/** `docker args…`: its stdout, or throws with its stderr and stdout. Never blocks: the fake upstream lives in this process. */
async function docker(args: string[], timeoutMs?: number): Promise<string> {
  const res = await dockerAsync(args, timeoutMs);
  if (res.code !== 0)
    throw new Error(
      `docker ${args.join(" ")} failed (${res.code}): ${[res.stderr, res.stdout].filter(Boolean).join("\n")}`,
    );
  return res.stdout;
}

/** `npm run admin -- …` inside a container: its one JSON object. */
async function admin<T>(container: string, args: string[]): Promise<T> {
  const out = await docker(["exec", container, "npm", "run", "--silent", "admin", "--", ...args]);
  return JSON.parse(out.split("\n").at(-1)!) as T;
}

async function call(
  base: string,
  key: string,
  path_: string,
  body: unknown,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}${path_}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

const completion = (marker: string, stream: boolean) => ({
  model: "gpt-4.1-mini",
  messages: [{ role: "user", content: `Container check ${marker}: answer briefly.` }],
  ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
});

/** Completion ledger rows by the marker in their run's first user message (as the billing-invariant test matches them). */
async function billedMarkers(sql: postgres.Sql, companyId: string): Promise<Map<string, number>> {
  const rows = await sql<{ content: string | null }[]>`
    SELECT (SELECT m.content::text FROM messages m WHERE m.thread_id = r.thread_id AND m.role = 'user' ORDER BY m.seq LIMIT 1) AS content
    FROM ledger_entries l JOIN runs r ON r.id = l.metadata->>'run_id'
    WHERE l.company_id = ${companyId} AND l.kind = 'completion'`;
  const counts = new Map<string, number>();
  for (const { content } of rows) {
    const marker = /\bload-\d+\b/.exec(content ?? "")?.[0] ?? "unmatched";
    counts.set(marker, (counts.get(marker) ?? 0) + 1);
  }
  return counts;
}

async function waitFor(what: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 200): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await what()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

function health(container: string): Promise<string> {
  return docker(["inspect", "-f", "{{if .State.Health}}{{.State.Health.Status}}{{end}}", container]);
}

/** The replicas, the worker and the checks on them. */
async function runChecks(rt: ContainerRuntime, sql: postgres.Sql, env: Record<string, string>, fake: FakeUpstream) {
  const ports = [await freePort(), await freePort()];
  const appEnv = (i: number) => ({ ...env, PORT: String(ports[i]), WEBHOOK_WORKER_CONCURRENCY: "0" });

  let started = Date.now();
  const app0 = await rt.startApp(0, appEnv(0));
  measured["time to ready (first start, migrations included)"] = `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const c0 = rt.appContainer(0)!;
  const healthy = await waitFor(async () => (await health(c0)) === "healthy", 60_000, 500);
  measured["time to Docker's healthy"] = `${((Date.now() - started) / 1000).toFixed(1)} s (HEALTHCHECK every 10 s)`;
  check("HEALTHCHECK reports healthy", healthy, await health(c0));

  const procs = (await docker(["top", c0, "-eo", "pid,uid,comm"]))
    .split("\n")
    .slice(1)
    .map((l) => l.trim().split(/\s+/));
  check(
    "every process in the container runs as a non-root user",
    procs.length > 0 && procs.every(([, uid]) => uid !== "0"),
    procs.map(([, uid, comm]) => `${comm} uid ${uid}`).join(", "),
  );
  const ready = await fetch(`${app0.url}/api/ready`).then((r) => r.json() as Promise<Record<string, unknown>>);
  const live = await fetch(`${app0.url}/api/health`).then((r) => r.status);
  check("/api/health 200 and /api/ready 200", live === 200 && ready.ok === true, JSON.stringify(ready));

  // First run as an operator does it through compose: `setup` with the CLI inside the container.
  const first = await admin<{ company_id: string; user_id: string; key?: string }>(c0, [
    "setup",
    "--email",
    "admin@example.com",
    // The `=` form: a base64url password may begin with "-", which would read as a flag.
    `--password=${randomBytes(12).toString("base64url")}`,
  ]);
  const companyId = first.company_id;
  const sdkKey = first.key ?? "";
  check(
    "first run through the operator CLI in the container (demo company, its key, the first admin)",
    Boolean(first.key && first.user_id),
    JSON.stringify({ ...first, key: first.key ? "sk-cp-…" : null }),
  );

  const answer = await call(app0.url, sdkKey, "/v1/chat/completions", completion("first", false));
  check(
    "a completion through the fake upstream",
    answer.status === 200 && fake.requests.length > 0,
    `${answer.status} ${answer.text.slice(0, 80)}`,
  );

  // A company tool's Python, in the container's sandbox as the server runs it (no privileges).
  const tool = await dockerAsync([
    "exec",
    c0,
    "node",
    "--import",
    "tsx",
    "--conditions=react-server",
    "-e",
    `import("/app/lib/sandbox/index.ts").then(async (m) => {
      const r = await m.runTool({ companyId: "co_check", name: "add", code: "def add(a, b):\\n    return a + b", args: { a: 2, b: 3 } });
      process.stdout.write(JSON.stringify(r));
      process.exit(0);
    })`,
  ]);
  const layerLine = `${tool.stdout}\n${tool.stderr}`.split("\n").find((l) => l.includes('"sandbox layers"'));
  measured["sandbox layers"] = layerLine ?? tool.stderr.slice(-300);
  check(
    "Python runs in the sandbox, outer layers reported",
    /"ok":true,"result":5/.test(tool.stdout) && layerLine !== undefined,
    tool.stdout.split("\n").at(-1) ?? "",
  );

  started = Date.now();
  const app1 = await rt.startApp(1, appEnv(1));
  measured["time to ready (second replica)"] = `${((Date.now() - started) / 1000).toFixed(1)} s`;
  await stopUnderLoad(rt, sql, { urls: [app0.url, app1.url], key: sdkKey, companyId });
  await workerRunsJobs(rt, sql, { url: app0.url, container: c0, companyId, env });
}

/**
 * `docker stop` of replica 1 while clients call both: replica 1 drains and exits 0, and every call
 * answered 2xx is billed exactly once (a call refused by the stopped replica is not).
 */
async function stopUnderLoad(
  rt: ContainerRuntime,
  sql: postgres.Sql,
  args: { urls: string[]; key: string; companyId: string },
) {
  const outcomes = new Map<string, { status: number | "error"; replica: number; endedAt: number }>();
  let n = 0;
  let loading = true;
  const client = async (c: number) => {
    while (loading) {
      const marker = `load-${n++}`;
      const replica = n % 2;
      let status: number | "error" = "error";
      try {
        const res = await fetch(`${args.urls[replica]}/v1/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${args.key}`, "content-type": "application/json" },
          body: JSON.stringify(completion(marker, c % 2 === 0)),
        });
        const text = await res.text();
        // A stream counts as answered only if it ended with [DONE].
        status = text.startsWith("data:") && !text.includes("data: [DONE]") ? "error" : res.status;
      } catch {
        await sleep(100);
      }
      outcomes.set(marker, { status, replica, endedAt: Date.now() });
    }
  };
  const clients = Array.from({ length: LOAD_CLIENTS }, (_, c) => client(c));
  await sleep(2_000);
  const container = rt.appContainer(1)!;
  const stopStarted = Date.now();
  const stopped = await dockerAsync(["stop", "-t", String(GRACE_MS / 1000 + 10), container], GRACE_MS + 30_000);
  const stopMs = Date.now() - stopStarted;
  const exitCode = await docker(["inspect", "-f", "{{.State.ExitCode}}", container]);
  await sleep(1_000);
  loading = false;
  await Promise.all(clients);
  await rt.stopApp(1, "SIGTERM");
  measured["docker stop of a replica under load"] = `${(stopMs / 1000).toFixed(1)} s`;
  check(
    "docker stop: the replica drains and exits 0",
    stopped.code === 0 && exitCode === "0",
    `exit ${exitCode} after ${stopMs} ms`,
  );

  // Bills of the last calls land just after their answers.
  let billed = await billedMarkers(sql, args.companyId);
  await waitFor(
    async () => {
      const next = await billedMarkers(sql, args.companyId);
      const same = [...next.values()].reduce((a, b) => a + b, 0) === [...billed.values()].reduce((a, b) => a + b, 0);
      billed = next;
      return same;
    },
    15_000,
    1_000,
  );
  const answered = [...outcomes].filter(([, o]) => o.status === 200).map(([m]) => m);
  const refused = outcomes.size - answered.length;
  // Answered by the stopped replica after the stop began: calls in flight when SIGTERM came.
  const drained = [...outcomes.values()].filter((o) => o.status === 200 && o.replica === 1 && o.endedAt > stopStarted);
  const notOnce = answered.filter((m) => billed.get(m) !== 1);
  const twice = [...billed].filter(([, c]) => c > 1).map(([m]) => m);
  const unasked = [...billed.keys()].filter((m) => m !== "unmatched" && !outcomes.has(m));
  check(
    "docker stop under load: every 2xx billed exactly once, nothing billed twice",
    drained.length > 0 && notOnce.length === 0 && twice.length === 0 && unasked.length === 0,
    `${answered.length} answered 2xx (${drained.length} by the stopping replica during its drain), ${refused} refused once it stopped listening; not billed once: ${notOnce.slice(0, 5).join(" ") || "none"}; twice: ${twice.length}`,
  );
}

/** A webhook event accepted by a web container that leaves events to others stays queued until the worker container runs it. */
async function workerRunsJobs(
  rt: ContainerRuntime,
  sql: postgres.Sql,
  args: { url: string; container: string; companyId: string; env: Record<string, string> },
) {
  const hook = await admin<{ webhook_id: string; url: string }>(args.container, [
    "webhook",
    "create",
    "--company",
    args.companyId,
    "--name",
    "container check",
  ]);
  const res = await fetch(`${args.url}${hook.url}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ event_topic: "container.check", payload: { ok: true } }),
  });
  const status = async () =>
    (await sql<{ status: string }[]>`SELECT status FROM webhook_events WHERE webhook_id = ${hook.webhook_id}`)[0]
      ?.status;
  await sleep(3_000);
  const before = await status();
  const started = Date.now();
  await rt.startWorker(args.env);
  const ran = await waitFor(async () => !["accepted", undefined].includes(await status()), 60_000, 500);
  check(
    "a worker container runs the job the web containers left",
    res.status < 300 && before === "accepted" && ran,
    `trigger ${res.status}; before the worker: ${before}; then ${await status()} after ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** The manifests as the cluster would get them (`kubectl kustomize`), and compose.yaml as Compose reads it, where the tools exist. */
function renderConfigs(): void {
  if (spawnSync(KUBECTL, ["version", "--client"], { stdio: "ignore" }).status === 0) {
    const res = spawnSync(KUBECTL, ["kustomize", "deploy/"], { encoding: "utf8" });
    const kinds = [...(res.stdout ?? "").matchAll(/^kind: (\w+)$/gm)].map((m) => m[1]).sort();
    check("kubectl kustomize deploy/ renders", res.status === 0, `${kinds.join(", ")} ${res.stderr ?? ""}`.trim());
  } else process.stdout.write("(skipped) kubectl kustomize: no kubectl\n");
  const compose = [["docker", "compose"], ["docker-compose"]].find(
    ([cmd, ...sub]) => spawnSync(cmd!, [...sub, "version"], { stdio: "ignore" }).status === 0,
  );
  if (compose) {
    const res = spawnSync(compose[0]!, [...compose.slice(1), "-f", "compose.yaml", "config", "-q"], {
      encoding: "utf8",
    });
    check(`${compose.join(" ")} config accepts compose.yaml`, res.status === 0, res.stderr?.trim() ?? "");
  } else process.stdout.write("(skipped) compose config: neither `docker compose` nor `docker-compose`\n");
}

/** `npm run test:cluster` on containers of the image, when this checkout has it; its tally joins ours. */
function runClusterTest(): void {
  const pkg = JSON.parse(fs.readFileSync(path.join(repo, "package.json"), "utf8")) as {
    scripts: Record<string, string>;
  };
  if (!pkg.scripts["test:cluster"]) {
    process.stdout.write("\n(skipped) the cluster test: this checkout has no `npm run test:cluster`\n");
    return;
  }
  process.stdout.write("\n=== npm run test:cluster on containers\n");
  // The containers run the image's own build: none is needed here.
  const res = spawnSync("npm", ["run", "test:cluster", "--", "--no-build"], {
    env: { ...process.env, CLUSTER_RUNTIME: "containers", CLUSTER_IMAGE: IMAGE },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 256 * 1024 * 1024,
  });
  process.stdout.write(res.stdout ?? "");
  const tally = [...(res.stdout ?? "").matchAll(/^(\d+) passed, (\d+) failed$/gm)].at(-1);
  const passed = Number(tally?.[1] ?? 0);
  const failed = Number(tally?.[2] ?? 1);
  for (let i = 0; i < passed; i++) results.push({ name: "cluster", ok: true, detail: "" });
  for (let i = 0; i < Math.max(failed, res.status === 0 ? 0 : 1); i++)
    results.push({ name: "cluster", ok: false, detail: "" });
}

async function main() {
  renderConfigs();
  if (!seedBaseImage() || !(await buildImage())) return;
  const size = Number(await docker(["image", "inspect", "-f", "{{.Size}}", IMAGE]));
  measured["image size"] = `${(size / 1024 / 1024).toFixed(0)} MiB`;
  check("image size within 700 MiB", size <= SIZE_GOAL_BYTES, measured["image size"]);

  const dbName = `cockpit_container_${Date.now()}_${process.pid}`;
  const admin_ = postgres(PG_URL, { max: 1, onnotice: () => {} });
  await admin_.unsafe(`CREATE DATABASE ${dbName}`);
  const dbUrl = new URL(PG_URL);
  dbUrl.pathname = `/${dbName}`;
  const sql = postgres(dbUrl.toString(), { max: 2, onnotice: () => {} });
  const fake = await startFakeUpstream({
    behaviourFor: (body: { stream?: boolean }) =>
      body.stream ? { kind: "paced", firstTokenMs: UPSTREAM_DELAY_MS } : { kind: "delay", ms: UPSTREAM_DELAY_MS },
  });
  const env: Record<string, string> = {
    DATABASE_URL: dbUrl.toString(),
    REDIS_URL: (await redisReachable()) ? `redis://${REDIS.host}:${REDIS.port}` : "",
    AUTH_SECRET: randomBytes(32).toString("hex"),
    OPENAI_BASE_URL: fake.openaiBase,
    OPENAI_API_KEY: "sk-test-container",
    UPSTREAM_RETRIES: "0",
    SHUTDOWN_GRACE_MS: String(GRACE_MS),
    LOG_LEVEL: "info",
  };
  const rt = containerRuntime(IMAGE);
  try {
    await runChecks(rt, sql, env, fake);
  } catch (err) {
    const cause = err instanceof Error && err.cause ? ` (cause: ${String(err.cause)})` : "";
    check(
      "container checks ran to the end",
      false,
      `${err instanceof Error ? (err.stack ?? err.message) : String(err)}${cause}`,
    );
    process.stdout.write(`container output: ${rt.logDir}\n`);
  } finally {
    if (process.env.CONTAINER_KEEP === "1") process.stdout.write(`kept running: docker ps --filter name=cockpit-\n`);
    else await rt.stopAll();
    await fake.close();
    await sql.end({ timeout: 5 });
    if (process.env.CONTAINER_KEEP !== "1") await admin_.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin_.end({ timeout: 5 });
  }
  runClusterTest();
}

main()
  .catch((err: unknown) =>
    check("test:container", false, err instanceof Error ? (err.stack ?? err.message) : String(err)),
  )
  .finally(() => {
    process.stdout.write("\n");
    for (const [what, value] of Object.entries(measured)) process.stdout.write(`${what}: ${value}\n`);
    const failed = results.filter((r) => !r.ok).length;
    process.stdout.write(`${results.length - failed} passed, ${failed} failed\n`);
    process.exit(failed === 0 ? 0 : 1);
  });
