#!/usr/bin/env bash
# `npm start`: fresh clone → running service (ROLE=all; the simulated engine unless ENGINE_URL is set).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node
ensure_deps
build
ensure_redis
export ROLE="${ROLE:-all}"
port="${PORT:-8080}"

node dist/main.js &
app=$!
forward() { kill -TERM "$app" 2>/dev/null || true; }
trap forward INT TERM

for _ in $(seq 1 100); do
  if node -e "fetch('http://127.0.0.1:$port/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"; then
    cat <<MSG

  responses-gateway is up on http://127.0.0.1:$port  (role $ROLE, Redis $REDIS_URL)
  try:
    curl -s http://127.0.0.1:$port/health/ready
    curl -s http://127.0.0.1:$port/metrics | head

MSG
    break
  fi
  kill -0 "$app" 2>/dev/null || break
  sleep 0.2
done

status=0
wait "$app" || status=$?
# A signal interrupts the first wait; wait again for the app's own graceful shutdown.
if kill -0 "$app" 2>/dev/null; then wait "$app" || status=$?; fi
exit "$status"
