#!/usr/bin/env bash
# Starts the release binary exactly as the Dockerfile's entrypoint does — same ENV lines,
# same /app layout (in a temporary directory), only the listening port changed — against a
# fresh database, and plays hands over real sockets with `scoop bots`.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
admin=${SCOOP_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
base=${admin%/*}
db=scoop_smoke_$$
app=$(mktemp -d)
cleanup() {
    [ -n "${server:-}" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    psql "$admin" -qc "drop database if exists $db with (force)" >/dev/null 2>&1 || true
    rm -rf "$app"
}
trap cleanup EXIT

cargo build --release --locked -p server --quiet
[ -f web/dist/index.html ] || bash scripts/build-web.sh
# The image's layout: /app/scoop, /app/web/dist, /app/migrations, /app/tables.toml.
cp "$target/release/scoop" "$app/scoop"
mkdir -p "$app/web" && cp -r web/dist "$app/web/dist"
cp -r migrations "$app/migrations"
cp tables.toml "$app/tables.toml"

# The Dockerfile's ENV lines, with /app pointing at the copy.
env_args=()
while read -r kv; do
    env_args+=("${kv//\/app/$app}")
done < <(sed -n 's/^ENV \([A-Z_]*=.*\)$/\1/p' Dockerfile)
port=$((30000 + $$ % 20000))
metrics_port=$((port + 1))
psql "$admin" -qc "create database $db" >/dev/null
entrypoint=$(sed -n 's/^ENTRYPOINT \["\(.*\)", "\(.*\)"\]$/\1 \2/p' Dockerfile)
(cd "$app" && exec env "${env_args[@]}" SCOOP_BIND="127.0.0.1:$port" DATABASE_URL="$base/$db" \
    SCOOP_ALLOWED_ORIGINS="http://127.0.0.1:$port" SCOOP_METRICS_BIND="127.0.0.1:$metrics_port" RUST_LOG=warn ${entrypoint//\/app/$app}) &
server=$!
for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -fs "http://127.0.0.1:$port/healthz" >/dev/null
curl -fs "http://127.0.0.1:$port/" | grep -qi "<html" || { echo "the web client is not served at /"; exit 1; }
# Two load bots at the heads-up table: house bots think for up to 1.5 s a move, and a
# newcomer may wait for the big blind, so the practice table is too slow for a short run.
report=$("$target/release/scoop" bots --url "http://127.0.0.1:$port" --tables nice --per-table 2 --seconds 10)
echo "$report"
hands=$(sed -n 's/.*"hands": \([0-9]*\).*/\1/p' <<<"$report")
[ "${hands:-0}" -ge 1 ] || { echo "no hand was played"; exit 1; }
# /metrics is on its own address, not the public one.
curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/metrics" | grep -qv '^200$' || { echo "/metrics is public"; exit 1; }
# Read the whole page first: `curl | grep -q` under pipefail fails whenever grep stops reading
# before curl has written everything (curl then exits 23 on the closed pipe).
metrics=$(curl -fs "http://127.0.0.1:$metrics_port/metrics")
grep -q '^scoop_hands_dealt_total [1-9]' <<<"$metrics" || { echo "metrics do not count hands"; exit 1; }
psql "$base/$db" -qAtc "select count(*) from hands where status = 'complete'" | grep -qv '^0$'
echo "container smoke test: ok ($hands hands over real sockets)"
