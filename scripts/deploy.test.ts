import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { SERVER_ENV, SERVER_NODE_FLAGS } from "./server-node-flags";

/**
 * The Dockerfile, compose.yaml and the Kubernetes manifests under deploy/ agree with each other and
 * with the app: ports, variable names the app reads, probe paths that exist, one image name, and
 * stop deadlines above the drain. `npm run test:container` builds and runs the image and renders
 * deploy/ with kubectl.
 */
const root = path.resolve(import.meta.dirname, "..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

/** Variables read outside lib/env.ts and db/env.ts: by next-auth, Next.js, glibc, or the metrics listener (CONTRACT 10). */
const READ_ELSEWHERE = new Set([
  "AUTH_TRUST_HOST",
  "NODE_ENV",
  "NEXT_TELEMETRY_DISABLED",
  "NPM_CONFIG_UPDATE_NOTIFIER",
  "MALLOC_ARENA_MAX",
  "MALLOC_MMAP_THRESHOLD_",
  "METRICS_PORT",
]);
/** The drain after SHUTDOWN_GRACE_MS: cancelled calls store their bills (5 s), then the shutdown hooks (3 s); scripts/server/main.mjs. */
const AFTER_GRACE_MS = 8_000;

const knownVariables = (() => {
  const names = new Set(READ_ELSEWHERE);
  for (const m of read(".env.example").matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)) names.add(m[1]!);
  for (const file of ["lib/env.ts", "db/env.ts"])
    for (const m of read(file).matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)) names.add(m[1]!);
  return names;
})();

/** The Dockerfile's runtime stage: its instructions, continuation lines joined. */
function runtimeStage(): { instruction: string; args: string }[] {
  const lines = read("Dockerfile")
    .replace(/\\\n/g, " ")
    .split("\n")
    .filter((l) => l.trim() && !l.trim().startsWith("#"));
  const stages: { instruction: string; args: string }[][] = [];
  for (const line of lines) {
    const [instruction, ...rest] = line.trim().split(/\s+/);
    if (instruction === "FROM") stages.push([]);
    stages.at(-1)!.push({ instruction: instruction!, args: rest.join(" ") });
  }
  return stages.at(-1)!;
}

const stage = runtimeStage();
const instructions = (name: string) => stage.filter((s) => s.instruction === name).map((s) => s.args);
const dockerEnv = Object.fromEntries(
  instructions("ENV").flatMap((args) => [...args.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1]!, m[2]!])),
);
const exposed = instructions("EXPOSE").flatMap((a) => a.split(/\s+/).map(Number));

const manifests = (() => {
  const kustomization = parse(read("deploy/kustomization.yaml")) as { resources: string[]; images: any[] };
  const docs = kustomization.resources.flatMap((file) =>
    parseAllDocuments(read(path.join("deploy", file))).map((d) => d.toJS() as any),
  );
  return { kustomization, docs };
})();
const ofKind = (kind: string) => manifests.docs.filter((d) => d.kind === kind);
const deployment = (component: string) =>
  ofKind("Deployment").find((d) => d.metadata.labels["app.kubernetes.io/component"] === component);
const envOf = (container: any): Record<string, string> =>
  Object.fromEntries((container.env ?? []).map((e: { name: string; value: string }) => [e.name, e.value]));

/** compose.yaml with its `<<:` merge keys applied, as Docker Compose reads it. */
const compose = parse(read("compose.yaml"), { merge: true }) as {
  services: Record<string, any>;
  volumes: Record<string, unknown>;
};

/** The app route a probe path names exists. */
const routeExists = (probePath: string) => fs.existsSync(path.join(root, "app", probePath, "route.ts"));

describe("Dockerfile", () => {
  it("builds on node:20-bookworm-slim and runs the production server as a non-root user", () => {
    expect(read("Dockerfile")).toMatch(/^FROM node:20-bookworm-slim AS deps$/m);
    expect(stage[0]!.args).toBe("node:20-bookworm-slim AS runtime");
    const user = instructions("USER").at(-1);
    expect(user).toBeDefined();
    expect(["root", "0"]).not.toContain(user);
    const cmd = JSON.parse(instructions("CMD").at(-1)!) as string[];
    expect(cmd).toEqual(["node", ...SERVER_NODE_FLAGS, "scripts/server/main.mjs"]);
    // tini as PID 1 passes SIGTERM on; the exec form keeps a shell out of the way.
    expect(JSON.parse(instructions("ENTRYPOINT").at(-1)!)).toEqual(["/usr/bin/tini", "--"]);
  });

  it("listens on every interface, exposes the app and metrics ports, and sets the server's memory environment", () => {
    expect(dockerEnv.HOST).toBe("0.0.0.0");
    expect(exposed).toEqual([Number(dockerEnv.PORT), Number(dockerEnv.METRICS_PORT)]);
    expect(exposed).toContain(3000);
    for (const [name, value] of Object.entries(SERVER_ENV)) expect(dockerEnv[name]).toBe(value);
    for (const name of Object.keys(dockerEnv)) expect(knownVariables, name).toContain(name);
  });

  it("checks its health on /api/health", () => {
    const healthcheck = instructions("HEALTHCHECK").at(-1)!;
    expect(healthcheck).toContain("/api/health");
    expect(routeExists("api/health")).toBe(true);
  });

  it("leaves development files out of the build context", () => {
    const ignored = read(".dockerignore").split("\n");
    for (const entry of ["node_modules", ".next", ".data", ".env", ".git"]) expect(ignored).toContain(entry);
  });
});

describe("compose.yaml", () => {
  const { app, worker, postgres, redis } = compose.services;

  it("runs two app replicas, a separate worker from the same image, postgres:16 and redis:7", () => {
    expect(app.deploy.replicas).toBe(2);
    expect(worker.image).toBe(app.image);
    expect(worker.command).toEqual(["node", "--import", "tsx", "--conditions=react-server", "scripts/worker.ts"]);
    expect(postgres.image).toBe("postgres:16");
    expect(redis.image).toBe("redis:7");
  });

  it("gives every service a health check (the worker, which serves no HTTP, opts out) and waits for the stores", () => {
    expect(app.healthcheck.test.join(" ")).toContain("/api/health");
    expect(worker.healthcheck.disable).toBe(true);
    for (const store of [postgres, redis]) expect(store.healthcheck.test.length).toBeGreaterThan(1);
    for (const service of [app, worker])
      expect(service.depends_on).toEqual({
        postgres: { condition: "service_healthy" },
        redis: { condition: "service_healthy" },
      });
  });

  it("shares the data volume, the database, Redis and AUTH_SECRET between the replicas and the worker", () => {
    for (const service of [app, worker]) {
      expect(service.volumes).toContain("data:/data");
      expect(service.environment.DATABASE_URL).toMatch(/@postgres:5432\//);
      expect(service.environment.REDIS_URL).toBe("redis://redis:6379");
      expect(service.environment.AUTH_SECRET).toBe("${AUTH_SECRET:-}");
      for (const name of Object.keys(service.environment)) expect(knownVariables, name).toContain(name);
    }
    expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(["data", "pgdata"]));
    expect(app.ports).toEqual([`3000-3001:${dockerEnv.PORT}`]);
  });

  it("gives a stopping replica longer than its drain", () => {
    const grace = Number(app.environment.SHUTDOWN_GRACE_MS);
    expect(Number(/^(\d+)s$/.exec(app.stop_grace_period)![1]) * 1000).toBeGreaterThan(grace + AFTER_GRACE_MS);
  });
});

describe("deploy/ (Kubernetes)", () => {
  const web = deployment("web");
  const worker = deployment("worker");
  const webContainer = web.spec.template.spec.containers[0];
  const workerContainer = worker.spec.template.spec.containers[0];

  it("lists every manifest in the kustomization and names one image for both Deployments", () => {
    const files = fs.readdirSync(path.join(root, "deploy")).filter((f) => f !== "kustomization.yaml");
    expect([...manifests.kustomization.resources].sort()).toEqual(files.sort());
    const [image] = manifests.kustomization.images;
    expect(webContainer.image).toBe(image.name);
    expect(workerContainer.image).toBe(image.name);
    expect(compose.services.app.image).toBe(`${image.newName}:${image.newTag}`);
  });

  it("serves the image's ports and probes routes that exist: readiness /api/ready, liveness /api/health", () => {
    const ports = webContainer.ports.map((p: { containerPort: number }) => p.containerPort);
    expect(ports).toEqual(exposed);
    const env = envOf(webContainer);
    expect(Number(env.PORT)).toBe(3000);
    expect(Number(env.METRICS_PORT)).toBe(Number(dockerEnv.METRICS_PORT));
    expect(env.HOST).toBe("0.0.0.0");
    expect(webContainer.readinessProbe.httpGet.path).toBe("/api/ready");
    expect(webContainer.livenessProbe.httpGet.path).toBe("/api/health");
    for (const probe of ["readinessProbe", "livenessProbe", "startupProbe"]) {
      expect(routeExists(webContainer[probe].httpGet.path)).toBe(true);
      expect(webContainer.ports.map((p: { name: string }) => p.name)).toContain(webContainer[probe].httpGet.port);
    }
  });

  it("lets the drain finish: preStop, then SHUTDOWN_GRACE_MS and its cancel allowance, within terminationGracePeriodSeconds", () => {
    const preStop = webContainer.lifecycle.preStop.exec.command as string[];
    expect(preStop[0]).toBe("sleep");
    const preStopMs = Number(preStop[1]) * 1000;
    const graceMs = Number(envOf(webContainer).SHUTDOWN_GRACE_MS);
    expect(graceMs).toBeGreaterThan(0);
    expect(web.spec.template.spec.terminationGracePeriodSeconds * 1000).toBeGreaterThan(
      preStopMs + graceMs + AFTER_GRACE_MS,
    );
    expect(worker.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(0);
  });

  it("runs the worker from the same image with the worker command", () => {
    expect(workerContainer.command).toEqual(compose.services.worker.command);
  });

  it("keeps AUTH_SECRET and provider keys in a Secret both Deployments load, and reads only known variables", () => {
    const [secret] = ofKind("Secret");
    const keys = Object.keys(secret.stringData);
    expect(keys).toEqual(expect.arrayContaining(["AUTH_SECRET", "DATABASE_URL", "REDIS_URL", "OPENAI_API_KEY"]));
    expect(secret.stringData.AUTH_SECRET.length).toBeGreaterThanOrEqual(32);
    for (const name of [...keys, ...Object.keys(envOf(webContainer)), ...Object.keys(envOf(workerContainer))])
      expect(knownVariables, name).toContain(name);
    for (const container of [webContainer, workerContainer])
      expect(container.envFrom).toEqual([{ secretRef: { name: secret.metadata.name } }]);
  });

  it("runs as the image's non-root user and shares one volume for uploads", () => {
    for (const d of [web, worker]) {
      expect(d.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      const claim = d.spec.template.spec.volumes[0].persistentVolumeClaim.claimName;
      expect(ofKind("PersistentVolumeClaim").map((c) => c.metadata.name)).toContain(claim);
    }
    expect(ofKind("PersistentVolumeClaim")[0].spec.accessModes).toEqual(["ReadWriteMany"]);
  });

  it("scales the web Deployment on CPU, which its pods request, and the Service reaches the web pods", () => {
    const [hpa] = ofKind("HorizontalPodAutoscaler");
    expect(hpa.spec.scaleTargetRef).toMatchObject({ kind: "Deployment", name: web.metadata.name });
    expect(hpa.spec.metrics[0].resource.name).toBe("cpu");
    expect(webContainer.resources.requests.cpu).toBeDefined();
    const [service] = ofKind("Service");
    expect(service.spec.selector).toEqual(web.spec.selector.matchLabels);
    expect(service.spec.ports.map((p: { targetPort: string }) => p.targetPort)).toEqual(["http", "metrics"]);
  });
});
