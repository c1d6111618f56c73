#!/usr/bin/env bash
# Server memory per socket, from three `load-test.sh` runs on the same tables (bots thinking
# 0.3-1 s): TABLES tables of 2 bots (the base), the same tables with 6 bots (4 more playing
# sockets a table), and the base with IDLE anonymous sockets that only answer pings. A
# socket's cost is the difference in the server's RSS once every bot is seated, divided by the
# sockets added; a playing socket's includes its seat's share of the table's state.
#   scripts/socket-memory.sh [TABLES=500] [IDLE=4000] [SECONDS=20]
set -euo pipefail
cd "$(dirname "$0")/.."
tables=${1:-500}
idle=${2:-4000}
seconds=${3:-20}
rss_kib() {
    local out
    out=$(bash scripts/load-test.sh "$tables" "$1" "$seconds" 300-1000 5 0 "$2")
    echo "$out" | grep -E '^(window|cpu in|server RSS)' >&2
    echo "$out" | sed -n 's/^server RSS when the window began [0-9]* MiB (\([0-9]*\) KiB.*/\1/p'
}
echo "base: $tables tables x 2 bots" >&2
base=$(rss_kib 2 0)
echo "playing: $tables tables x 6 bots" >&2
playing=$(rss_kib 6 0)
echo "idle: $tables tables x 2 bots + $idle idle sockets" >&2
idled=$(rss_kib 2 "$idle")
echo "RSS once seated: base $base KiB, +$((4 * tables)) playing sockets $playing KiB, +$idle idle sockets $idled KiB"
echo "per playing socket: $(echo "scale=1; ($playing - $base) * 1.024 / (4 * $tables)" | bc) kB" \
    "($(echo "scale=1; ($playing - $base) / (4 * $tables)" | bc) KiB)"
echo "per idle socket: $(echo "scale=1; ($idled - $base) * 1.024 / $idle" | bc) kB" \
    "($(echo "scale=1; ($idled - $base) / $idle" | bc) KiB)"
