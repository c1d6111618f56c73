#!/usr/bin/env bash
# The browser test (web/tests/browser.mjs): builds the release server and the web bundle,
# creates a fresh database, starts `scoop serve` with its tables (a short-clock one, a
# heads-up one for an all-in, a practice table with house bots), and plays them in headless
# Chromium. Exits non-zero with the reason on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}

die() { echo "browser test FAILED: $*" >&2; exit 1; }

if [ ! -x /usr/bin/chromium ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null ||
        die "could not install chromium"
fi

scripts/build-web.sh >/dev/null || die "the web build failed"
cargo build --release -p server || die "the server build failed"
scoop=$CARGO_TARGET_DIR/release/scoop

base_url=${SCOOP_TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}
psql "$base_url" -qAtc 'select 1' >/dev/null 2>&1 || die "no Postgres answers at $base_url (set SCOOP_TEST_DATABASE_URL)"
db=scoop_browser_$$
psql "$base_url" -qc "create database $db" >/dev/null || die "could not create database $db"
db_url="${base_url%/*}/$db"

work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    psql "$base_url" -qc "drop database if exists $db with (force)" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
port=$(free_port)

cat >"$work/tables.toml" <<TOML
[[table]]
id = "browser-test"
name = "Browser test"
structure = "pot_limit"
small_blind = 5
big_blind = 10
seats = 6
clock_secs = 20
time_bank_secs = 10
between_hands_ms = 2500

# Heads-up no limit for the all-in run-out; one hand only.
[[table]]
id = "allin-test"
name = "All-in test"
structure = "no_limit"
small_blind = 5
big_blind = 10
seats = 2
between_hands_ms = 600000

# Where "Play now" seats a player: house bots keep a game going.
[[table]]
id = "practice-test"
name = "Practice test"
structure = "pot_limit"
small_blind = 1
big_blind = 2
seats = 6
practice = true
house_bots = 2

# A full two-seat table and its waiting list (the seat is held for 30 s).
[[table]]
id = "wait-test"
name = "Wait test"
structure = "no_limit"
small_blind = 5
big_blind = 10
seats = 2
TOML

"$scoop" serve --database-url "$db_url" --tables "$work/tables.toml" --web-dir web/dist \
    --bind "127.0.0.1:$port" --metrics-bind "127.0.0.1:$(free_port)" \
    --allowed-origins "http://127.0.0.1:$port" >"$work/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
    curl -fs "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -fs "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$work/server.log"; die "the server did not start"; }

# The server itself serves the bundle, as in production.
base="http://127.0.0.1:$port"
curl -fs "$base/" | grep -q 'boot-[0-9a-f]*\.js' || die "scoop serve does not serve web/dist at /"

BASE=$base TABLE=browser-test SCOOP=$scoop node web/tests/browser.mjs || {
    echo "--- server log (last 40 lines)"; tail -40 "$work/server.log"
    die "see the message above"
}
echo "browser test passed"
