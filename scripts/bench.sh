#!/usr/bin/env bash
# Runs one benchmark (`npm run bench -- harmony`) or all of bench/*.bench.ts.
# Benchmarks report ratios against a baseline measured in the same run; they never fail on timing.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci
if [ $# -gt 0 ]; then files=(); for n in "$@"; do files+=("bench/${n%.bench.ts}.bench.ts"); done
else files=(bench/*.bench.ts); fi
for f in "${files[@]}"; do
  echo "== $f"
  node -r @swc-node/register "$f"
done
