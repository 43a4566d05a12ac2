# syntax=docker/dockerfile:1
# The gateway's production image (contract/runtime.md): compiled in a build stage, served by
# `node dist/main.js` with production dependencies only, as the non-root `node` user.
#   docker build -t company-data-gateway .
#   docker run -p 4000:4000 -e UPSTREAM_URL=… -e UPSTREAM_TOKEN=… company-data-gateway
# The same image runs the demo upstream: `node dist/demo-upstream/main.js` (docker-compose.yml).

# Node 24, the active LTS (Node 20 reached its end of life on 2026-04-30).
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: every dependency, tsc → dist/ ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# ---- runtime: production dependencies and dist/ only ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=4000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The files stay owned by root: the process can read its code, not change it.
USER node
EXPOSE 4000
# Liveness with node itself (the slim image has no curl): GET /health on the port it serves.
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself, so it drains before it exits.
CMD ["node", "dist/main.js"]
