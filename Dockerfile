# Production image: one image for the gateway, the job runner and migrations.
#   gateway     node --max-old-space-size=128 --max-semi-space-size=16 dist/src/gateway.js   (the default command)
#   job runner  node --max-old-space-size=128 --max-semi-space-size=16 dist/jobs/runner.js
# The heap cap keeps each process near 200 MB resident (bench/README.md, Memory).
#   migrations  node bin/onramp.js db migrate   (the processes refuse to start until it has run)
#   status      node bin/onramp.js db status
# Configuration comes from the environment (docs/configuration.md); DATABASE_URL is required, and
# ENCRYPTION_KEY in production.
#
# No Docker is needed to check this file: test/integration/image-steps.test.ts replays its COPY
# and RUN steps, stage by stage, in a scratch folder and starts both processes from the runtime
# stage's folder. Keep to the instructions it reads (FROM, WORKDIR, COPY, RUN, ENV, USER,
# EXPOSE, HEALTHCHECK, CMD).

# --- build: compile src/ and jobs/ to dist/ with tsc; bundle the dashboard and /docs ---
FROM node:26-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# With the optional dependencies: esbuild's platform binary (@esbuild/linux-x64, ...) is one,
# and the build bundles the dashboard and the reference pages with it. No install scripts:
# scripts/build.js finds esbuild's binary without them.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY jobs ./jobs
COPY dashboard ./dashboard
COPY reference ./reference
RUN npm run build

# --- runtime: production dependencies and compiled output only ---
# Without the sandbox's parts: embedded PostgreSQL, TypeScript, esbuild and solc are
# devDependencies and anvil is optional, so none is installed here (about 140 MB less). Nothing
# the gateway, the runner or bin/onramp.js loads needs them: embedded PostgreSQL and the local
# chains are started by `npm start` only, never in this image. dist/ holds the built dashboard
# (dist/dashboard) and reference pages (dist/reference) the gateway serves.
FROM node:26-trixie-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
# Inside a container the processes listen on all interfaces, not on loopback (the default).
ENV HOST=0.0.0.0 PORT=4000 JOBS_PORT=4001
USER node
# 4000: the gateway; 4001: the job runner's probes and /metrics (JOBS_PORT). The gateway's
# /metrics and /admin/graphql are on INTERNAL_PORT (4002), bound to loopback unless
# INTERNAL_HOST says otherwise (docker-compose.yml sets 0.0.0.0 for Prometheus on the compose
# network): never publish that port.
EXPOSE 4000 4001
# Whichever process the container runs (bin/healthcheck.js tries PORT, then JOBS_PORT): its
# /livez, which answers while the database is down, so a database blip marks no container
# unhealthy. Load balancers route on /readyz instead (docs/cli.md, "Probes").
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=5 \
  CMD ["node", "bin/healthcheck.js", "livez"]
CMD ["node", "--max-old-space-size=128", "--max-semi-space-size=16", "dist/src/gateway.js"]
