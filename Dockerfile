# Production image: one image for the gateway, the job runner and migrations.
#   gateway     node --max-old-space-size=128 dist/src/gateway.js   (the default command)
#   job runner  node --max-old-space-size=128 dist/jobs/runner.js
# The heap cap keeps each process near 200 MB resident (bench/README.md, Memory).
#   migrations  node bin/onramp.js db migrate
# Configuration comes from the environment (see README.md, Configuration); DATABASE_URL is required.

# --- build: compile src/ and jobs/ to dist/ with tsc ---
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY jobs ./jobs
COPY dashboard ./dashboard
RUN npm run build

# --- runtime: production dependencies and compiled output only ---
FROM node:20-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The token contract's compiled artefact: local chains deploy it (`npm start`, not production).
COPY contracts/artifacts ./contracts/artifacts
# Inside a container the gateway must listen on all interfaces, not on loopback (the default).
ENV HOST=0.0.0.0 PORT=4000
USER node
# 4000: the gateway; 4001: the job runner's /health and /metrics (JOBS_PORT). The gateway's
# /metrics and /admin/graphql are on INTERNAL_PORT (4002), bound to loopback inside the
# container: set INTERNAL_HOST=0.0.0.0 for a scraper on the container network, and never
# publish that port.
EXPOSE 4000 4001
CMD ["node", "--max-old-space-size=128", "dist/src/gateway.js"]
