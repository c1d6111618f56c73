#!/usr/bin/env bash
# Coverage-guided fuzzing (cargo fuzz, libFuzzer) of what outsiders feed the room: socket
# messages, card text, PHH files, and command sequences against the table. Each target runs
# SECONDS (default 30) from the committed corpus in fuzz/corpus/; new inputs go to a scratch
# copy, so the tree is left as it was. A crash stops the script with the failing input under
# fuzz/artifacts/. Prints executions per second for each target.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
# Stable Rust: no sanitizer (the targets check their own invariants; the crates forbid
# unsafe code), hence --sanitizer none.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO_FUZZ_VERSION=0.13.2
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(client_message cards phh table)

if ! cargo fuzz --version 2>/dev/null | grep -q " $CARGO_FUZZ_VERSION\$"; then
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked
fi
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}/fuzz
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for t in "${targets[@]}"; do
    mkdir -p "$scratch/$t"
    log="$scratch/$t.log"
    if ! cargo fuzz run --sanitizer none "$t" "$scratch/$t" "fuzz/corpus/$t" -- \
        -max_total_time="$seconds" -print_final_stats=1 >"$log" 2>&1; then
        tail -40 "$log"
        echo "fuzz target $t FAILED: the input is under fuzz/artifacts/$t/" >&2
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
    echo "fuzz $t: ${runs:-?} runs in ${secs:-$seconds} s ($(( ${runs:-0} / ${secs:-1} )) per second), no failure"
done
