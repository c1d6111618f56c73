#!/usr/bin/env bash
# The one test command (README.md): everything CI checks, installing what it needs.
# Each step prints a banner; the run stops at the first failing step and names it.
set -uo pipefail
cd "$(dirname "$0")/.."

export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
export RUST_BACKTRACE=${RUST_BACKTRACE:-1}
passed=()
step() {
    local name=$1
    shift
    echo
    echo "=== step: $name"
    local start=$SECONDS
    if "$@"; then
        echo "=== ok: $name ($((SECONDS - start)) s)"
        passed+=("$name")
    else
        echo "=== FAILED: $name ($((SECONDS - start)) s)"
        echo "steps passed: ${passed[*]:-none}"
        exit 1
    fi
}

wasm_target() {
    rustup target list --installed | grep -qx wasm32-unknown-unknown ||
        rustup target add wasm32-unknown-unknown
}

# Tests need a Postgres with trust auth for user postgres. Use the one at 127.0.0.1:5432 if it
# answers; otherwise start a private cluster for this run (installing Postgres if missing).
postgres() {
    if [ -n "${SCOOP_TEST_DATABASE_URL:-}" ]; then
        psql "$SCOOP_TEST_DATABASE_URL" -qAtc 'select 1' >/dev/null && return 0
    fi
    if command -v psql >/dev/null && psql -h 127.0.0.1 -p 5432 -U postgres -qAtc 'select 1' postgres >/dev/null 2>&1; then
        export SCOOP_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres
        return 0
    fi
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null || return 1
    fi
    local bin dir
    bin=$(dirname "$(ls /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")
    dir=$(mktemp -d)
    chown postgres: "$dir" && chmod 700 "$dir"
    runuser -u postgres -- "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null || return 1
    runuser -u postgres -- "$bin/pg_ctl" -D "$dir" -l "$dir/log" -w \
        -o "-p 54329 -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null || return 1
    export SCOOP_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:54329/postgres
    echo "started a private Postgres at 127.0.0.1:54329 (data in $dir)"
}

# The cluster tests need a NATS server: the one at SCOOP_TEST_NATS_URL (default
# 127.0.0.1:4222) if it answers; otherwise one started for this run (Debian's nats-server,
# installed if missing), stopped when the run ends.
answers() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
nats() {
    local url=${SCOOP_TEST_NATS_URL:-nats://127.0.0.1:4222}
    local hostport=${url#nats://}
    if answers "${hostport%:*}" "${hostport##*:}"; then
        export SCOOP_TEST_NATS_URL=$url
        return 0
    fi
    local bin
    bin=$(command -v nats-server || ls /usr/sbin/nats-server 2>/dev/null) || {
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server >/dev/null &&
            bin=/usr/sbin/nats-server
    } || return 1
    "$bin" -a 127.0.0.1 -p 42229 >/dev/null 2>&1 &
    nats_pid=$!
    trap 'kill "$nats_pid" 2>/dev/null' EXIT
    for _ in $(seq 50); do
        answers 127.0.0.1 42229 && break
        sleep 0.1
    done
    answers 127.0.0.1 42229 || return 1
    export SCOOP_TEST_NATS_URL=nats://127.0.0.1:42229
    echo "started a NATS server at 127.0.0.1:42229"
}

# Each API test makes its own database; drop those left by earlier runs.
drop_test_databases() {
    psql "$SCOOP_TEST_DATABASE_URL" -qAtc \
        "select datname from pg_database where datname like 'scoop\_test\_%'" |
        while read -r db; do
            psql "$SCOOP_TEST_DATABASE_URL" -qc "drop database if exists \"$db\" with (force)" >/dev/null
        done
}

# `docker compose config` needs no engine; lint when a compose client is installed.
compose_lint() {
    if docker compose version >/dev/null 2>&1; then
        docker compose config --quiet
    elif command -v docker-compose >/dev/null 2>&1; then
        docker-compose config --quiet
    else
        echo "no docker compose client here: checked the file parses as YAML only"
        python3 -c 'import sys, json; import yaml' 2>/dev/null &&
            python3 -c 'import yaml; yaml.safe_load(open("docker-compose.yml"))' ||
            grep -q '^services:' docker-compose.yml
    fi
}

step "rustfmt" cargo fmt --all --check
step "clippy" cargo clippy --workspace --all-targets --locked -- -D warnings
step "wasm32 target" wasm_target
step "shared builds for wasm32" cargo build -p shared --target wasm32-unknown-unknown --locked
step "postgres" postgres
step "nats" nats
step "drop old test databases" drop_test_databases
step "unit and integration tests (real Postgres, real sockets)" cargo test --workspace --locked
step "evaluator equals brute force on 1,000,000 deals (release)" \
    env SCOOP_EVAL_DEALS=1000000 cargo test --release -p shared --locked --test eval oracle::
step "table under random seat churn, 50,000 cases (release)" \
    env SCOOP_TABLE_CASES=50000 cargo test --release -p shared --locked --test table_properties
step "fuzzing: 20 s per target from the committed corpus (scripts/fuzz.sh 20)" bash scripts/fuzz.sh 20
step "differential test against pokerkit, and the house-rule fixtures" bash tools/pokerkit_diff/check.sh
step "web bundle (the script the Dockerfile uses)" bash scripts/build-web.sh
step "browser test (headless Chromium: play, reconnect, watch, hidden cards, French)" bash scripts/browser-test.sh
step "release binary started as the Dockerfile's entrypoint plays hands" bash scripts/container-smoke.sh
step "compose file" compose_lint

echo
echo "all ${#passed[@]} steps passed: ${passed[*]}"
