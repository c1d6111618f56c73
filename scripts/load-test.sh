#!/usr/bin/env bash
# Load benchmark: a release `scoop serve` with TABLES tables and `scoop bots` playing at
# PER_TABLE bots each for SECONDS, against a scratch database. Prints the bots' report
# (hands/s, action-to-broadcast latency) and the server's CPU time and peak memory.
#   scripts/load-test.sh [TABLES=100] [PER_TABLE=6] [SECONDS=60]
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
tables=${1:-100}
per_table=${2:-6}
seconds=${3:-60}
admin=${SCOOP_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
db=scoop_load_$$
base=${admin%/*}
port=$((20000 + $$ % 20000))
work=$(mktemp -d)
cleanup() {
    [ -n "${server:-}" ] && kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
    psql "$admin" -qc "drop database if exists $db with (force)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

cargo build --release --locked -p server --quiet
psql "$admin" -qc "create database $db" >/dev/null
for i in $(seq 1 "$tables"); do
    printf '[[table]]\nid = "load-%d"\nname = "Load %d"\nstructure = "%s"\nbig_blind = 10\nsmall_bet = 10\nseats = 6\nbetween_hands_ms = 500\n\n' \
        "$i" "$i" "$(case $((i % 3)) in 0) echo fixed_limit ;; 1) echo pot_limit ;; *) echo no_limit ;; esac)"
done >"$work/tables.toml"

DATABASE_URL="$base/$db" SCOOP_BIND="127.0.0.1:$port" SCOOP_TABLES="$work/tables.toml" \
    SCOOP_AUTH_PER_MINUTE=1000000 SCOOP_HASH_CONCURRENCY=2 SCOOP_WS_MESSAGES_PER_SECOND=50 \
    SCOOP_ALLOWED_ORIGINS="http://127.0.0.1:$port" RUST_LOG=warn \
    "$target/release/scoop" serve >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.1
done
cpu_before=$(awk '{print $14 + $15}' "/proc/$server/stat")
"$target/release/scoop" bots --url "http://127.0.0.1:$port" --per-table "$per_table" --seconds "$seconds" >"$work/report.json"
cpu_after=$(awk '{print $14 + $15}' "/proc/$server/stat")
# The server's own view of latency (action received → broadcast queued), from /metrics: the
# bots' figure also contains their own queueing on this shared machine.
curl -fs "http://127.0.0.1:$port/metrics" >"$work/metrics.txt"
server_latency=$(awk -F'[{}" ]+' '
    /^scoop_action_to_broadcast_seconds_bucket/ { le[n] = $3; c[n] = $NF; n++ }
    /^scoop_action_to_broadcast_seconds_count/ { total = $NF }
    END {
        for (i = 0; i < n; i++) {
            if (!p50 && c[i] >= total * 0.50) p50 = le[i]
            if (!p99 && c[i] >= total * 0.99) p99 = le[i]
        }
        printf "server-side action-to-broadcast: %d actions, p50 <= %s s, p99 <= %s s", total, p50, p99
    }' "$work/metrics.txt")
peak_kb=$(awk '/VmHWM/ {print $2}' "/proc/$server/status")
ticks=$(getconf CLK_TCK)
hands=$(psql "$base/$db" -qAtc "select count(*) from hands where status = 'complete'")
cat "$work/report.json"
echo "server: cpu $(( (cpu_after - cpu_before) / ticks )) s over the run (registration included), peak RSS $((peak_kb / 1024)) MiB, hands persisted: $hands"
echo "$server_latency"
