# The gateway's image: web (default command) and worker (`node --import tsx --conditions=react-server
# scripts/worker.ts`) from one image. Needs DATABASE_URL; REDIS_URL and AUTH_SECRET are shared by
# every replica. docs/deploy.md says how to run it; builds with or without BuildKit.

# Dependencies, dev ones included (the build needs them): a layer only package files rebuild.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1 NPM_CONFIG_UPDATE_NOTIFIER=false
COPY package.json package-lock.json .npmrc ./
RUN npm ci --loglevel=warn --no-audit --no-fund

# The production build and the jobs thread's bundle (the server would write it at start), then only
# what runs (scripts/prune-image.mjs).
FROM deps AS build
COPY . .
RUN npm run build \
  && node -e 'import("./scripts/server/jobs-thread-build.mjs").then((m) => m.buildJobsThread(process.cwd()))' \
  && node scripts/prune-image.mjs

FROM node:20-bookworm-slim AS runtime
# tini: PID 1 passes SIGTERM on to the server and reaps the sandbox's orphans. setpriv, prlimit and
# unshare (util-linux) are in the base image: the sandbox's outer layers probe for them.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin \
  && groupadd --system --gid 10001 cockpit \
  && useradd --system --uid 10001 --gid cockpit --create-home --home-dir /home/cockpit --shell /usr/sbin/nologin cockpit \
  && mkdir -p /data \
  && chown cockpit:cockpit /data
WORKDIR /app
# The app's files stay root's (read-only to the server); it writes only /data, /tmp and these two.
COPY --from=build /app /app
RUN chown cockpit:cockpit /app/.next/cache /app/.jobs-thread
ENV NODE_ENV=production \
  NEXT_TELEMETRY_DISABLED=1 \
  HOST=0.0.0.0 \
  PORT=3000 \
  METRICS_PORT=9464 \
  DATA_DIR=/data \
  AUTH_TRUST_HOST=1 \
  MALLOC_ARENA_MAX=2 \
  MALLOC_MMAP_THRESHOLD_=131072
USER cockpit
EXPOSE 3000 9464
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--heap-growing-percent=30", "--max-semi-space-size=12", "--no-concurrent-sweeping", "scripts/server/main.mjs"]
