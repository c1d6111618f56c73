#!/usr/bin/env bash
# Cluster soak (issue 17): NODES release `scoop serve --nats` processes on this machine's
# Postgres and NATS, TABLES practice tables whose house bots play by themselves. Then:
#   1. kill -9 one node mid-play: how long until each of its tables deals again (p50/max),
#      while BOTS `scoop bots` players connected to that node (on tables dealt by every
#      node) lose their connection: each must connect again to another node and play on;
#   2. a rolling restart of every node, one after another (SIGTERM, start again): hands voided;
#   3. hands settled per second over the whole run; then every node stopped with SIGTERM
#      (each finishes its hands): hands left running (none) and `scoop audit`.
# Usage: scripts/cluster-soak.sh [NODES=3] [TABLES=300]
set -euo pipefail
cd "$(dirname "$0")/.."
nodes=${1:-3}
tables=${2:-300}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
base_url=${SCOOP_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
nats_url=${SCOOP_TEST_NATS_URL:-nats://127.0.0.1:4222}
bots=${SCOOP_SOAK_BOTS:-60}
port=$((20000 + $$ % 20000))
url() { echo "http://127.0.0.1:$((port + $1))"; }

cargo build --release -p server >/dev/null
scoop=$CARGO_TARGET_DIR/release/scoop
db=scoop_soak_$$
psql "$base_url" -qc "create database $db" >/dev/null
db_url="${base_url%/*}/$db"
work=$(mktemp -d)
declare -A pid
cleanup() {
    for p in "${pid[@]}"; do kill -9 "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    psql "$base_url" -qc "drop database if exists $db with (force)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
q() { psql "$db_url" -qAtc "$1"; }

for i in $(seq 0 $((tables - 1))); do
    printf '[[table]]\nid = "s%03d"\nname = "Soak %03d"\nstructure = "fixed_limit"\nsmall_blind = 5\nbig_blind = 10\nseats = 6\npractice = true\nhouse_bots = 3\nbetween_hands_ms = 500\nrun_out_street_ms = 0\n\n' "$i" "$i"
done >"$work/tables.toml"

start() {
    DATABASE_URL=$db_url SCOOP_NATS_URL=$nats_url SCOOP_BIND=127.0.0.1:$((port + $1)) SCOOP_METRICS_BIND=127.0.0.1:0 \
        SCOOP_TABLES=$work/tables.toml SCOOP_SHUTDOWN_GRACE_SECS=60 RUST_LOG=warn \
        SCOOP_ALLOWED_ORIGINS="$(url "$nodes")" SCOOP_AUTH_PER_MINUTE=1000000 \
        SCOOP_MAX_CONNECTIONS_PER_IP=1000000 SCOOP_MAX_WEBSOCKETS_PER_IP=1000000 \
        "$scoop" serve >>"$work/node$1.log" 2>&1 &
    pid[$1]=$!
}
owned() { q "select count(*) from table_leases where expires_at > now() and node <> '00000000-0000-0000-0000-000000000000'"; }
wait_all_owned() {
    for _ in $(seq 600); do
        [ "$(owned)" = "$tables" ] && return 0
        sleep 0.2
    done
    echo "not every table is dealt after 120 s" >&2
    return 1
}

t0=$(q "select extract(epoch from now())")
# One after another, each counted live before the next starts: the newest node in
# `cluster_nodes` must be the last process started, the one step 1 kills.
for n in $(seq 1 "$nodes"); do
    start "$n"
    # (The first node creates the tables: until then the query fails, quietly.)
    until [ "$(q "select count(*) from cluster_nodes where expires_at > now()" 2>/dev/null)" = "$n" ]; do sleep 0.2; done
done
wait_all_owned
sleep 20
echo "$nodes nodes, $tables tables: $(q "select count(*) from cluster_nodes where expires_at > now()") live, tables per node: $(q "select string_agg(c::text, ' ' order by c desc) from (select count(*) c from table_leases where expires_at > now() group by node) x")"

# 1. kill -9 the newest node, with socket bots connected to it.
bot_tables=$(q "select string_agg(id, ',') from (select id from poker_tables order by id limit $(((bots + 2) / 3))) x")
others=()
for n in $(seq 1 $((nodes - 1))); do others+=(--reconnect-to "$(url "$n")"); done
"$scoop" bots --url "$(url "$nodes")" "${others[@]}" --tables "$bot_tables" --per-table 3 \
    --seconds 45 --think-ms 300-1000 >"$work/bots.json" 2>"$work/bots.log" &
bots_pid=$!
sleep 15
victim=$(q "select node from cluster_nodes where expires_at > now() order by started_at desc limit 1")
lost_ids=$(q "select string_agg(quote_literal(table_id), ',') from table_leases where node = '$victim'")
lost=$(q "select count(*) from table_leases where node = '$victim'")
killed_at=$(q "select extract(epoch from now())")
kill -9 "${pid[$nodes]}"
unset "pid[$nodes]"
again() { q "select count(distinct table_id) from hands where table_id in ($lost_ids) and started_at > to_timestamp($killed_at)"; }
for _ in $(seq 240); do
    [ "$(again)" = "$lost" ] && break
    sleep 0.5
done
q "with firsts as (select table_id, min(extract(epoch from started_at)) - $killed_at as s from hands
                   where table_id in ($lost_ids) and started_at > to_timestamp($killed_at) group by table_id)
   select 'kill -9 of one node: ' || $lost || ' tables lost, ' || count(*) || ' dealing again; after p50 '
          || round((percentile_cont(0.5) within group (order by s))::numeric * 1000) || ' ms, max '
          || round(max(s)::numeric * 1000) || ' ms' from firsts"
q "with firsts as (select table_id, min(extract(epoch from started_at)) - $killed_at as s from hands
                   where table_id in ($lost_ids) and started_at > to_timestamp($killed_at) group by table_id)
   select '  the last five: ' || string_agg(table_id || ' ' || round(s::numeric * 1000) || ' ms', ', ' order by s desc)
   from (select * from firsts order by s desc limit 5) x"
wait "$bots_pid" || true
echo "socket bots on the killed node: $(grep -o '"connections": [0-9]*' "$work/bots.json"), $(grep -o '"connections_lost": [0-9]*' "$work/bots.json"), $(grep -o '"reconnected": [0-9]*' "$work/bots.json"), $(grep -o '"errors": [0-9]*' "$work/bots.json"), $(grep -o '"hands": [0-9]*' "$work/bots.json")"
start "$nodes"
wait_all_owned
sleep 10

# 2. rolling restart: each node in turn gets SIGTERM, exits, and starts again.
void_before=$(q "select count(*) from hands where status = 'void'")
for n in $(seq 1 "$nodes"); do
    kill -TERM "${pid[$n]}"
    wait "${pid[$n]}" || true
    start "$n"
    wait_all_owned
    sleep 5
done
void_after=$(q "select count(*) from hands where status = 'void'")
echo "rolling restart of $nodes nodes: $((void_after - void_before)) hands voided"

# 3. the books.
q "select 'hands settled: ' || count(*) || ' in ' || round(extract(epoch from now()) - $t0) || ' s ('
          || round(count(*) / (extract(epoch from now()) - $t0)) || ' hands/s); running now: '
          || (select count(*) from hands where status = 'running') || ' (at most one per table: '
          || (select coalesce(max(c), 0) from (select count(*) c from hands where status = 'running' group by table_id) x)
          || '); void in all: $void_after' from hands where status = 'complete'"
for n in $(seq 1 "$nodes"); do kill -TERM "${pid[$n]}"; done
for n in $(seq 1 "$nodes"); do wait "${pid[$n]}" || true; unset "pid[$n]"; done
echo "every node stopped with SIGTERM: $(q "select count(*) from hands where status = 'running'") hands left running, $(q "select count(*) from hands where status = 'void'") void in all"
DATABASE_URL=$db_url "$scoop" audit
