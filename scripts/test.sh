#!/usr/bin/env bash
# `npm test`: fresh clone → type check, then unit, integration (real Redis) and e2e (real HTTP) tests.
# Extra arguments go to jest (e.g. `npm test -- --selectProjects unit`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node
ensure_deps
build
ensure_redis
echo "› type checking"
npx --no-install tsc --noEmit -p tsconfig.json
mkdir -p .tmp
status=0
npx --no-install jest --ci --json --outputFile=.tmp/jest-results.json "$@" || status=$?
# A plain summary line that any CI can read.
node -e '
  const r = require("./.tmp/jest-results.json");
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
' || status=1
exit "$status"
