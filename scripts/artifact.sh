#!/bin/sh
# The production artifact: what the image runs (Dockerfile) and what CI starts and drives
# (.ci/run, scripts/smoke-production.ts). One script for both, so they cannot drift.
#
#   sh scripts/artifact.sh OUT
#
# Run in a checkout after `npm ci` (development dependencies installed), with the engine
# addon built or buildable (cargo). Builds once (`npm run build`), then writes to OUT only
# what runs: package.json and its lock, the built server and commands and dashboard
# (dist/), the engine addon, the launcher (scripts/run.mjs), the samples of
# `whois-ingest --samples` and `ingest --samples`, and node_modules pruned to the production
# dependencies (`npm prune --omit=dev`). No source, no build tool: OUT runs with plain Node
# (`npm run serve`, `npm run admin -- …`, `npm run ingest -- …`, `npm run whois-ingest -- …`).
set -eu
out=${1:?usage: sh scripts/artifact.sh OUT}
cd "$(dirname "$0")/.."

npm run build
rm -rf "$out"
mkdir -p "$out/scripts" "$out/engine/build" "$out/samples"
cp -R package.json package-lock.json .nvmrc dist node_modules "$out/"
cp scripts/run.mjs scripts/node-runtime.mjs "$out/scripts/"
cp engine/build/engine.node "$out/engine/build/"
cp -R samples/whois samples/breaches "$out/samples/"
# npm's own bookkeeping of node_modules comes along, so the prune knows what is there.
(cd "$out" && npm prune --omit=dev --no-audit --no-fund)
echo "artifact: $out ($(du -sh "$out" | cut -f1))"
