# Shared by start.sh and test.sh (sourced): install dependencies, build, and make sure a Redis
# server is reachable, starting a private one when it is not.

ensure_node() {
  local version major minor
  version=$(node -p 'process.versions.node' 2>/dev/null) || { echo "error: Node.js 20.19+ is required (node not found)." >&2; exit 1; }
  major=${version%%.*}; minor=${version#*.}; minor=${minor%%.*}
  if [ "$major" -lt 20 ] || { [ "$major" -eq 20 ] && [ "$minor" -lt 19 ]; }; then
    echo "error: Node.js 20.19+ is required (found $version)." >&2; exit 1
  fi
}

ensure_deps() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "› installing dependencies (npm ci)"
    npm ci --no-audit --no-fund
  fi
}

build() {
  echo "› building"
  npx --no-install tsc -p tsconfig.build.json
}

RG_REDIS_PID=""
RG_REDIS_DIR=""

stop_private_redis() {
  if [ -n "$RG_REDIS_PID" ]; then kill "$RG_REDIS_PID" 2>/dev/null || true; wait "$RG_REDIS_PID" 2>/dev/null || true; fi
  if [ -n "$RG_REDIS_DIR" ]; then rm -rf "$RG_REDIS_DIR"; fi
  RG_REDIS_PID=""; RG_REDIS_DIR=""
}

# Uses REDIS_URL (default redis://127.0.0.1:6379) if it answers; otherwise starts redis-server from
# the PATH on a free port in a temp dir (stopped on exit); otherwise explains how to get Redis.
ensure_redis() {
  local url="${REDIS_URL:-redis://127.0.0.1:6379}"
  if node scripts/redis-ping.js "$url"; then export REDIS_URL="$url"; return 0; fi
  if ! command -v redis-server >/dev/null 2>&1; then
    cat >&2 <<MSG
error: no Redis answers at $url and there is no redis-server on the PATH.
  Either point REDIS_URL at a Redis 6.2+ server, or install one:
    Debian/Ubuntu: sudo apt-get install -y redis-server     macOS: brew install redis
    Docker:        docker run -d -p 6379:6379 redis:7
MSG
    exit 1
  fi
  local port
  port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  RG_REDIS_DIR=$(mktemp -d)
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$RG_REDIS_DIR" \
    --logfile "$RG_REDIS_DIR/redis.log" --daemonize no >/dev/null 2>&1 &
  RG_REDIS_PID=$!
  trap stop_private_redis EXIT
  local i
  for i in $(seq 1 50); do
    if node scripts/redis-ping.js "redis://127.0.0.1:$port"; then
      export REDIS_URL="redis://127.0.0.1:$port"
      echo "› no Redis at $url: started a private redis-server on 127.0.0.1:$port (stopped on exit)"
      return 0
    fi
    sleep 0.2
  done
  echo "error: the private redis-server did not start; its log:" >&2
  cat "$RG_REDIS_DIR/redis.log" >&2 || true
  exit 1
}
