# Gatehouse as a container: the Next.js standalone server plus the bundled command-line tools.
#   docker build -t gatehouse .
#   docker run -d --restart unless-stopped -p 3000:3000 -e PUBLIC_URL=https://auth.example.com -e DATABASE_URL=… -e AUTH_SECRET=… gatehouse
# (--restart: a server process that dies is started again; docker-compose.yml says the same per service).
# docker-compose.yml wires it to PostgreSQL and Redis.

FROM node:22-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
# Dependencies first, for the layer cache. `npm ci` runs `prisma generate` (postinstall), which needs the schema.
COPY package.json package-lock.json prisma.config.ts ./
COPY prisma ./prisma
COPY lib/cli/prisma-generate.mjs ./lib/cli/prisma-generate.mjs
RUN npm ci --no-audit --no-fund
COPY . .
# Same build as `npm start` does on first run: next build, static assets beside server.js, bundled CLI tools.
RUN npm run build

FROM node:22-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000 \
    HOSTNAME=0.0.0.0 \
    HOST=0.0.0.0 \
    DATA_DIR=/data \
    NEXT_MANUAL_SIG_HANDLE=1 \
    NODE_OPTIONS=--max-old-space-size=256
# NODE_OPTIONS: the old-generation cap npm start also sets (lib/cli/standalone.ts, serverNodeFlags).
RUN mkdir -p /data && chown node:node /data
COPY --from=build --chown=node:node /app/.next/standalone ./
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The server migrates the database before it answers (instrumentation.ts). Tools, e.g.:
#   docker compose exec app node cli/create-owner.mjs --email you@example.com --org "Your Org"
CMD ["node", "server.js"]
