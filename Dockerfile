# Multi-stage build. Untested here: no Docker engine runs on our machines (see README).

# 1. The search engine addon, built from the crates registry.
FROM rust:1-bookworm AS engine
WORKDIR /src/engine
RUN apt-get update && apt-get install -y --no-install-recommends libzstd-dev liblzma-dev libbz2-dev pkg-config && rm -rf /var/lib/apt/lists/*
COPY engine/Cargo.toml ./
COPY engine/src ./src
RUN cargo build --release && mkdir -p build && cp target/release/libleakwell_engine.so build/engine.node

# 2. Node dependencies and the dashboard build.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
COPY --from=engine /src/engine/build/engine.node engine/build/engine.node
# The server and the operator commands compiled once (scripts/cli.mjs), after the prune: the
# build's stamp is newer than node_modules, so a start does not compile again.
RUN npm run build:web && npm prune --omit=dev --no-audit --no-fund && npm run build:cli

# 3. Slim, non-root runtime.
FROM node:20-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libzstd1 liblzma5 libbz2-1.0 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
USER node
# Production refuses the sandbox payment providers: run with CARD_PROVIDER=paddle and
# CRYPTO_PROVIDER=btcpay|nowpayments and their settings (docs/payments.md, "Running payments"), and
# SMTP_URL: production refuses to start without it (no outbox links on the console).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
VOLUME /data
EXPOSE 3000
HEALTHCHECK CMD node -e "fetch('http://127.0.0.1:3000/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The compiled server (as `npm start` runs it); operator commands: `docker exec … npm run admin -- …`.
CMD ["node", "scripts/cli.mjs", "server"]
