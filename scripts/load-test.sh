#!/usr/bin/env bash
# Load benchmark: a release `scoop serve` with TABLES tables and `scoop bots` playing at
# PER_TABLE bots each for SECONDS, against a scratch database. Prints the bots' report
# (hands/s, action-to-broadcast latency), the server's own latency histograms, its CPU and
# peak memory, and how busy the whole machine was.
#   scripts/load-test.sh [TABLES=100] [PER_TABLE=6] [SECONDS=60] [THINK_MS=0] [WARMUP=10] [SPECTATORS=0] [IDLE=0]
# SPECTATORS opens that many sockets on the first table that never read (stalled watchers);
# IDLE that many sockets that send nothing and only answer pings (pages left on the lobby).
# Every bot connects from 127.0.0.1, so the per-address caps are lifted.
# SCOOP_SERVER_BIN runs another server binary (e.g. an older build) against the same bots.
# SCOOP_BOTS_BIN runs the bots from another binary (with SCOOP_SERVER_BIN, a whole older build).
# SCOOP_NODES=N runs the room as a cluster of N `scoop serve --nats` nodes on this machine
# (NATS at SCOOP_TEST_NATS_URL, default 127.0.0.1:4222); the bots all connect to the first,
# which reaches the other nodes' tables over NATS. The bots' report is then the figure to read
# (the server lines below are the first node's).
# THINK_MS is each bot's thinking time before acting, N or MIN-MAX milliseconds; 0 acts at
# once, which measures the most the machine can deal rather than latency at a given load.
# The first WARMUP seconds of play are not measured: then every table deals its first hand
# and buys in its players at the same moment, as after a restart.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
tables=${1:-100}
per_table=${2:-6}
seconds=${3:-60}
think=${4:-0}
warmup=${5:-10}
spectators=${6:-0}
idle_sockets=${7:-0}
admin=${SCOOP_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
db=scoop_load_$$
base=${admin%/*}
port=$((20000 + $$ % 20000))
metrics_port=$((port + 1))
work=$(mktemp -d)
nodes=${SCOOP_NODES:-0}
node_env=()
[ "$nodes" -gt 0 ] && node_env=(SCOOP_NATS_URL="${SCOOP_TEST_NATS_URL:-nats://127.0.0.1:4222}")
others=()
cleanup() {
    for pid in "${others[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
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

start_node() {
    env "${node_env[@]}" DATABASE_URL="$base/$db" SCOOP_BIND="127.0.0.1:$1" SCOOP_TABLES="$work/tables.toml" \
        SCOOP_AUTH_PER_MINUTE=1000000 SCOOP_HASH_CONCURRENCY=2 SCOOP_WS_MESSAGES_PER_SECOND=50 \
        SCOOP_MAX_CONNECTIONS_PER_IP=1000000 SCOOP_MAX_WEBSOCKETS_PER_IP=1000000 \
        SCOOP_ALLOWED_ORIGINS="http://127.0.0.1:$port" SCOOP_METRICS_BIND="127.0.0.1:$2" \
        RUST_LOG=warn "${SCOOP_SERVER_BIN:-$target/release/scoop}" serve >>"$work/server.log" 2>&1 &
}
env "${node_env[@]}" DATABASE_URL="$base/$db" SCOOP_BIND="127.0.0.1:$port" SCOOP_TABLES="$work/tables.toml" \
    SCOOP_AUTH_PER_MINUTE=1000000 SCOOP_HASH_CONCURRENCY=2 SCOOP_WS_MESSAGES_PER_SECOND=50 \
    SCOOP_MAX_CONNECTIONS_PER_IP=1000000 SCOOP_MAX_WEBSOCKETS_PER_IP=1000000 \
    SCOOP_ALLOWED_ORIGINS="http://127.0.0.1:$port" SCOOP_METRICS_BIND="127.0.0.1:$metrics_port" \
    RUST_LOG=warn "${SCOOP_SERVER_BIN:-$target/release/scoop}" serve >"$work/server.log" 2>&1 &
server=$!
# Thousands of tables take a while to register and lease at start: wait up to two minutes,
# and stop here, with the server's words, if it never answers.
for _ in $(seq 1 1200); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    kill -0 "$server" 2>/dev/null || break
    sleep 0.1
done
if ! curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
    echo "load-test: the server did not become healthy; its log ends:" >&2
    tail -20 "$work/server.log" >&2
    exit 1
fi
for n in $(seq 2 "$nodes"); do
    start_node $((port + 2 * n)) $((port + 2 * n + 1))
    others+=($!)
done
if [ "$nodes" -gt 1 ]; then
    # Every table dealt by the node that wins it before the bots come.
    until [ "$(psql "$base/$db" -qAtc "select count(*) from cluster_nodes where expires_at > now()")" = "$nodes" ] &&
        [ "$(psql "$base/$db" -qAtc "select count(distinct node) from table_leases where expires_at > now()")" = "$nodes" ]; do
        sleep 0.5
    done
    sleep 6
    echo "cluster: $nodes nodes, tables per node: $(psql "$base/$db" -qAtc "select string_agg(c::text, ' ' order by c desc) from (select count(*) c from table_leases where expires_at > now() group by node) x")"
fi
metric() { awk -v name="$1" '$1 == name { print $2 }' "$2"; }
# A counter summed over every node (cluster mode: each node has its own metrics address).
all_nodes() {
    local total=0 p v
    for p in "$metrics_port" $(for n in $(seq 2 "$nodes"); do echo $((port + 2 * n + 1)); done); do
        v=$(curl -fs "http://127.0.0.1:$p/metrics" | awk -v name="$1" '$1 == name { print $2 }')
        total=$((total + ${v:-0}))
    done
    echo "$total"
}
# The bots play 5 s past the server's window, so that their leaving together (a stampede of
# folds and cash-outs) falls outside it.
"${SCOOP_BOTS_BIN:-$target/release/scoop}" bots --url "http://127.0.0.1:$port" --per-table "$per_table" \
    --seconds "$((seconds + 5))" --warmup "$warmup" --think-ms "$think" \
    --spectators "$spectators" --idle "$idle_sockets" >"$work/report.json" &
bots=$!
# Registration (argon2 for every bot) comes first; the window starts WARMUP seconds after
# the first hand is dealt.
until curl -fs "http://127.0.0.1:$metrics_port/metrics" >"$work/start.txt" &&
    [ "$(metric scoop_hands_dealt_total "$work/start.txt")" -gt 0 ]; do
    kill -0 "$bots" 2>/dev/null || break
    sleep 0.5
done
sleep "$warmup"
curl -fs "http://127.0.0.1:$metrics_port/metrics" >"$work/start.txt"
cpu() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# Every Postgres process of the machine: the room's backends, and the writers they wake.
pg_cpu() {
    local total=0 pid
    for pid in $(pgrep -x postgres); do total=$((total + $(cpu "$pid"))); done
    echo "$total"
}
idle() { awk '/^cpu / {print $5 + $6; exit}' /proc/stat; }
all() { awk '/^cpu / {print $2 + $3 + $4 + $5 + $6 + $7 + $8; exit}' /proc/stat; }
others_cpu() {
    local total=0 pid
    for pid in "${others[@]}"; do total=$((total + $(cpu "$pid"))); done
    echo "$total"
}
server_before=$(cpu "$server") bots_before=$(cpu "$bots") idle_before=$(idle) all_before=$(all)
others_before=$(others_cpu)
pg_before=$(pg_cpu)
start_rss_kb=$(awk '/VmRSS/ {print $2}' "/proc/$server/status")
nats_counts() { echo "$(all_nodes scoop_nats_messages_out_total) $(all_nodes scoop_action_to_broadcast_seconds_count)"; }
if [ "$nodes" -gt 0 ]; then
    read -r nats_msgs_before actions_before <<<"$(nats_counts)"
    python3 scripts/nats-traffic.py "$seconds" "${SCOOP_TEST_NATS_URL:-nats://127.0.0.1:4222}" >"$work/nats.txt" &
    traffic=$!
fi
log_before=$(grep -c . "$work/server.log" || true)
began=$(date +%s.%N)
sleep "$seconds"
log_after=$(grep -c . "$work/server.log" || true)
[ "$nodes" -gt 0 ] && read -r nats_msgs_after actions_after <<<"$(nats_counts)"
server_after=$(cpu "$server") bots_after=$(cpu "$bots") idle_after=$(idle) all_after=$(all)
others_after=$(others_cpu)
pg_after=$(pg_cpu)
ended=$(date +%s.%N)
curl -fs "http://127.0.0.1:$metrics_port/metrics" >"$work/metrics.txt"
wait "$bots"
# p50/p99 of a histogram from /metrics, as the upper bound of the bucket that holds them.
# Counts are differences between the end of the window and its start.
quantiles() {
    awk -F'[{}" ]+' -v name="$1" -v label="$2" '
        BEGIN { n = 0 }
        FNR == NR && $1 == name "_bucket" { base[$3] = $NF; next }
        FNR == NR && $1 == name "_count" { base_total = $NF; next }
        FNR == NR { next }
        $1 == name "_bucket" { le[n] = $3; c[n] = $NF - base[$3]; n++ }
        $1 == name "_count" { total = $NF - base_total }
        END {
            for (i = 0; i < n; i++) {
                if (!p50 && c[i] >= total * 0.50) p50 = le[i]
                if (!p99 && c[i] >= total * 0.99) p99 = le[i]
            }
            printf "%s: %d, p50 <= %s s, p99 <= %s s\n   cumulative:", label, total, p50, p99
            for (i = 0; i < n; i++) printf " <=%s:%d", le[i], c[i]
            printf "\n"
        }' "$work/start.txt" "$work/metrics.txt"
}
peak_kb=$(awk '/VmHWM/ {print $2}' "/proc/$server/status")
ticks=$(getconf CLK_TCK)
# Every hand persisted: stop the server as an operator would (SIGTERM lets running hands
# finish), then compare what it settled with what the database holds.
curl -fs "http://127.0.0.1:$metrics_port/metrics" >"$work/final.txt"
for pid in "${others[@]}"; do kill -TERM "$pid"; done
kill -TERM "$server" && wait "$server" || true
for pid in "${others[@]}"; do wait "$pid" || true; done
others=()
server=
settled=$(metric scoop_hands_finished_total "$work/final.txt")
counts=$(psql "$base/$db" -qAtc "select count(*) filter (where status = 'complete'), count(*) filter (where status = 'running'), count(*) filter (where status = 'void') from hands")
IFS='|' read -r hands running void <<<"$counts"
finished=$(($(metric scoop_hands_finished_total "$work/metrics.txt") - $(metric scoop_hands_finished_total "$work/start.txt")))
window=$(echo "$ended - $began" | bc)
cat "$work/report.json"
echo "window: ${window%???????} s; hands settled in it (server): $finished ($(echo "$finished / $window" | bc) /s)"
echo "cpu in the window: server $(echo "100 * ($server_after - $server_before) / $ticks / $window" | bc)%," \
    "bots $(echo "100 * ($bots_after - $bots_before) / $ticks / $window" | bc)%," \
    "other nodes $(echo "100 * ($others_after - $others_before) / $ticks / $window" | bc)%" \
    "of one core; whole machine busy $(echo "100 - 100 * ($idle_after - $idle_before) / ($all_after - $all_before)" | bc)% of $(nproc) cores"
per_hand() { echo "scale=2; 1000 * $1 / $ticks / ($finished + ($finished == 0))" | bc; }
echo "cpu per hand settled: server $(per_hand $((server_after - server_before))) ms," \
    "bots $(per_hand $((bots_after - bots_before))) ms, postgres $(per_hand $((pg_after - pg_before))) ms"
echo "server RSS when the window began $((start_rss_kb / 1024)) MiB ($start_rss_kb KiB; every bot registered and seated), peak $((peak_kb / 1024)) MiB"
echo "whole run: $settled hands settled by the server (before SIGTERM); in the database after shutdown: $hands complete, $running running, $void void"
echo "sockets closed for abuse: $(metric scoop_sockets_closed_for_abuse_total "$work/final.txt"), connections refused: $(metric scoop_connections_refused_total "$work/final.txt")"
batches=$(($(metric scoop_hand_write_batches_total "$work/metrics.txt") - $(metric scoop_hand_write_batches_total "$work/start.txt")))
writes=$(($(metric scoop_hand_writes_total "$work/metrics.txt") - $(metric scoop_hand_writes_total "$work/start.txt")))
echo "hand writes and top-ups in the window: $writes in $batches transactions ($(echo "scale=1; $writes / ($batches + ($batches == 0))" | bc) a commit)"
serialised=$(($(metric scoop_frames_serialised_total "$work/metrics.txt") - $(metric scoop_frames_serialised_total "$work/start.txt")))
echo "messages serialised for broadcasts in the window: $serialised ($(echo "scale=1; $serialised / ($finished + ($finished == 0))" | bc) a hand)"
if [ "$nodes" -gt 0 ]; then
    actions=$((actions_after - actions_before))
    nats_msgs=$((nats_msgs_after - nats_msgs_before))
    echo "NATS in the window, published by all nodes: $nats_msgs messages for $actions actions" \
        "($(echo "scale=2; $nats_msgs / ($actions + ($actions == 0))" | bc) an action;" \
        "by subject and with bytes below)"
    wait "$traffic" || true
    cat "$work/nats.txt"
fi
quantiles scoop_action_to_broadcast_seconds "server-side action to broadcast (actions)"
quantiles scoop_hand_start_write_seconds "hand start writes"
quantiles scoop_hand_settle_write_seconds "hand settle writes"
echo "server log: $(grep -c . "$work/server.log") warnings and errors, $((log_after - log_before)) of them in the window; the first ones:"
awk '!seen[$0]++ && ++n <= 5' "$work/server.log"