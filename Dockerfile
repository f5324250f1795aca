# syntax=docker/dockerfile:1
# One image, three roles (ROLE=api|worker|all), plus the simulated engine (npm run engine:sim).

FROM node:20.19-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json && npm prune --omit=dev --no-audit --no-fund

FROM node:20.19-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=8080 ROLE=all
WORKDIR /app
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
USER node
EXPOSE 8080
# SIGTERM goes straight to node, which drains in-flight requests (SHUTDOWN_TIMEOUT_MS).
CMD ["node", "dist/main.js"]
