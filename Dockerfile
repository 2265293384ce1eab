# The production image: the artifact of scripts/artifact.sh on Node.js 24 LTS, run as a
# non-root user. CI makes the same artifact with the same script and drives it from outside
# (.ci/run, scripts/test/production-artifact.smoke.ts, which runs this file's CMD), since no
# Docker engine runs on our machines; scripts/test/release-config.test.ts keeps this file,
# .nvmrc, package.json's engines and .ci/run on the same Node and the same script.
# Deployment: docs/deployment.md (docker-compose.yml beside this file).

# 1. The search engine addon, built from the crates registry.
FROM rust:1-bookworm AS engine
WORKDIR /src/engine
RUN apt-get update && apt-get install -y --no-install-recommends libzstd-dev liblzma-dev libbz2-dev pkg-config && rm -rf /var/lib/apt/lists/*
COPY engine/Cargo.toml ./
COPY engine/crates ./crates
RUN cargo build --release --lib && mkdir -p build && cp target/release/libleakwell_engine.so build/engine.node

# 2. The artifact: npm ci, npm run build, then the files that run and the production
#    dependencies only (scripts/artifact.sh).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
COPY --from=engine /src/engine/build/engine.node engine/build/engine.node
# Newer than every engine source, so the build takes it as current (no cargo in this stage).
RUN touch engine/build/engine.node && sh scripts/artifact.sh /artifact

# 3. The runtime: the artifact alone, as a non-root user.
FROM node:24-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libzstd1 liblzma5 libbz2-1.0 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build --chown=node:node /artifact /app
RUN mkdir -p /data && chown node:node /data
USER node
# Production refuses the sandbox payment providers and a missing SMTP_URL: docs/deployment.md
# lists the settings a deployment gives (docker-compose.yml shows them).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
VOLUME /data
EXPOSE 3000
HEALTHCHECK CMD node -e "fetch('http://127.0.0.1:3000/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Operator commands: `docker compose exec app npm run admin -- …` (and ingest, whois-ingest).
CMD ["node", "scripts/run.mjs", "server"]
