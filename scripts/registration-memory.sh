#!/usr/bin/env bash
# Server memory across registrations: a release `scoop serve` on a scratch database, its RSS
# before and after COUNT registrations (16 at a time over HTTP), each an argon2 hash of 19 MiB.
#   scripts/registration-memory.sh [COUNT=10000]
# SCOOP_SERVER_BIN measures another server binary (e.g. an older build).
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
count=${1:-10000}
admin=${SCOOP_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
db=scoop_rss_$$
base=${admin%/*}
port=$((20000 + $$ % 20000))
site="http://127.0.0.1:$port"
log=$(mktemp)
cleanup() {
    [ -n "${server:-}" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    psql "$admin" -qc "drop database if exists $db with (force)" >/dev/null 2>&1 || true
    rm -f "$log"
}
trap cleanup EXIT

[ -n "${SCOOP_SERVER_BIN:-}" ] || cargo build --release --locked -p server --quiet
psql "$admin" -qc "create database $db" >/dev/null
DATABASE_URL="$base/$db" SCOOP_BIND="127.0.0.1:$port" SCOOP_METRICS_BIND="127.0.0.1:$((port + 1))" \
    SCOOP_AUTH_PER_MINUTE=100000000 SCOOP_MAX_CONNECTIONS_PER_IP=100000 \
    SCOOP_ALLOWED_ORIGINS="$site" RUST_LOG=warn \
    "${SCOOP_SERVER_BIN:-$target/release/scoop}" serve >"$log" 2>&1 &
server=$!
for _ in $(seq 1 100); do
    curl -fs "$site/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
rss() { awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$server/status"; }
before=$(rss)
began=$(date +%s)
codes=$(seq 1 "$count" | xargs -P 16 -I{} curl -s -o /dev/null -w '%{http_code}\n' \
    -H "Origin: $site" -H 'Content-Type: application/json' \
    -d '{"username":"mem{}","password":"correct horse battery"}' "$site/api/register" |
    sort | uniq -c | tr -s ' ' | paste -sd, -)
took=$(($(date +%s) - began))
after=$(rss)
peak=$(awk '/VmHWM/ {print int($2 / 1024)}' "/proc/$server/status")
echo "registrations: $count in $took s (HTTP status counts:$codes)"
echo "server RSS: $before MiB before, $after MiB after ($((after - before)) MiB more), peak $peak MiB"
