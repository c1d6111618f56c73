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

step "rustfmt" cargo fmt --all --check
step "clippy" cargo clippy --workspace --all-targets --locked -- -D warnings
step "wasm32 target" wasm_target
step "shared builds for wasm32" cargo build -p shared --target wasm32-unknown-unknown --locked
step "unit and integration tests" cargo test --workspace --locked
step "evaluator equals brute force on 1,000,000 deals (release)" \
    env SCOOP_EVAL_DEALS=1000000 cargo test --release -p shared --locked --test eval oracle::
step "differential test against pokerkit" bash tools/pokerkit_diff/check.sh

echo
echo "all ${#passed[@]} steps passed: ${passed[*]}"
