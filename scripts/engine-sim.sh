#!/usr/bin/env bash
# `npm run engine:sim`: the simulated engine as a standalone vLLM-compatible HTTP server
# (port SIM_PORT, speed SIM_TTFT_MS / SIM_TOKENS_PER_SECOND; see src/engine/simulated/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node
ensure_deps
if [ ! -f dist/engine/simulated/sim-server.main.js ] || [ -n "$(find src -name '*.ts' -newer dist/engine/simulated/sim-server.main.js -print -quit)" ]; then
  build
fi
exec node dist/engine/simulated/sim-server.main.js
