# Production image: one image for the gateway, the job runner and migrations.
#   gateway     node --max-old-space-size=128 --max-semi-space-size=16 dist/src/gateway.js   (the default command)
#   job runner  node --max-old-space-size=128 --max-semi-space-size=16 dist/jobs/runner.js
# The heap cap keeps each process near 200 MB resident (bench/README.md, Memory).
#   migrations  node bin/onramp.js db migrate
# Configuration comes from the environment (see README.md, Configuration); DATABASE_URL is required.

# --- build: compile src/ and jobs/ to dist/ with tsc ---
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# tsc only: no platform binaries (embedded PostgreSQL's, anvil) are needed to build.
RUN npm ci --omit=optional --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY jobs ./jobs
COPY dashboard ./dashboard
RUN npm run build

# --- runtime: production dependencies and compiled output only ---
# Without the sandbox's parts: embedded PostgreSQL, TypeScript and solc are devDependencies and
# anvil is optional, so none is installed here (about 140 MB less). Nothing the gateway, the
# runner or bin/onramp.js loads needs them: embedded PostgreSQL and the local chains (with the
# token contract's artefact) are started by `npm start` only, never in this image.
FROM node:24-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
# Inside a container the gateway must listen on all interfaces, not on loopback (the default).
ENV HOST=0.0.0.0 PORT=4000
USER node
# 4000: the gateway; 4001: the job runner's /health and /metrics (JOBS_PORT). The gateway's
# /metrics and /admin/graphql are on INTERNAL_PORT (4002), bound to loopback inside the
# container: set INTERNAL_HOST=0.0.0.0 for a scraper on the container network, and never
# publish that port.
EXPOSE 4000 4001
# The gateway's /health (slim images have no curl; node's fetch does). The job runner's
# container overrides it with its own port (docker-compose.yml): PORT is the gateway's.
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--max-old-space-size=128", "--max-semi-space-size=16", "dist/src/gateway.js"]
