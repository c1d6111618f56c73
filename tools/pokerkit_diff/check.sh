#!/usr/bin/env bash
# Differential test: random hands played by pokerkit 0.7.7 (corrected to the house rules)
# must replay through `scoop replay` to the same final stacks; then the hand-written fixtures
# in house_rules/ (the spots where pokerkit's betting rules differ from ours) must too.
# SCOOP_DIFF_HANDS (default 3000) and SCOOP_DIFF_SEED (default 20261129) may be set.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.venv
if ! "$venv/bin/python" -c 'import pokerkit; assert pokerkit.__version__ == "0.7.7"' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check pokerkit==0.7.7
fi
hands=${SCOOP_DIFF_HANDS:-3000}
seed=${SCOOP_DIFF_SEED:-20261129}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "generating $hands hands with pokerkit (seed $seed)"
"$venv/bin/python" tools/pokerkit_diff/gen_hands.py --hands "$hands" --seed "$seed" --out "$out" 2>"$out/gen.log"
cargo build --quiet --locked -p server
set +e
# cargo run finds the binary wherever CARGO_TARGET_DIR puts it.
cargo run --quiet --locked -p server --bin scoop -- replay "$out"/*.phhs >"$out/replay.jsonl"
code=$?
set -e
total=$(grep -c . "$out/replay.jsonl" || true)
bad=$(grep -c -E '"error"|"mismatch"' "$out/replay.jsonl" || true)
echo "replayed $total hands: $((total - bad)) agree, $bad differ or fail"
if [ "$code" -ne 0 ] || [ "$bad" -ne 0 ] || [ "$total" -lt "$hands" ]; then
    grep -E '"error"|"mismatch"' "$out/replay.jsonl" | head -20
    mkdir -p target/pokerkit_diff && cp "$out"/*.phhs "$out/replay.jsonl" target/pokerkit_diff/
    echo "hands kept in target/pokerkit_diff/ for inspection"
    exit 1
fi

fixtures=(tools/pokerkit_diff/house_rules/*.phh)
echo "replaying ${#fixtures[@]} hand-written house-rule fixtures"
if ! cargo run --quiet --locked -p server --bin scoop -- replay "${fixtures[@]}" >"$out/house.jsonl"; then
    grep -E '"error"|"mismatch"' "$out/house.jsonl" || cat "$out/house.jsonl"
    exit 1
fi
agreed=$(grep -c '"finishing_stacks"' "$out/house.jsonl" || true)
echo "house-rule fixtures: $agreed of ${#fixtures[@]} agree"
[ "$agreed" -eq "${#fixtures[@]}" ]
