#!/usr/bin/env bash
# Builds the browser client into web/dist without downloading anything but crates and npm
# packages (TOOLCHAIN.md's plain route): cargo → wasm-bindgen → wasm-opt -Oz → static files.
# Installs what is missing: the wasm32 target, wasm-bindgen-cli 0.2.130, node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130
target_dir=${CARGO_TARGET_DIR:-target}
dist=web/dist

rustup target list --installed | grep -qx wasm32-unknown-unknown ||
    rustup target add wasm32-unknown-unknown

# The CLI must match the `wasm-bindgen = "=0.2.130"` pin in web/Cargo.toml exactly.
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
    # Not --locked: one locked dependency is missing from the registry mirror (TOOLCHAIN.md).
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# wasm-opt from npm's binaryen 132; Debian's binaryen 108 writes a broken module silently.
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ]; then
    npm ci --no-audit --no-fund
fi

# `--cfg erase_components` makes Leptos erase view and component types (AnyView, boxed
# closures) instead of monomorphising every nested view type: ~24 KB less gzipped wasm. Set
# for the wasm32 target only, so native builds (server, clippy, tests) and their cache are
# untouched. An exported RUSTFLAGS would override it, hence the check.
[ -z "${RUSTFLAGS:-}${CARGO_ENCODED_RUSTFLAGS:-}" ] ||
    echo "warning: RUSTFLAGS is set and replaces --cfg erase_components: a bigger bundle" >&2
cargo build --profile wasm-release --target wasm32-unknown-unknown -p web \
    --config 'target.wasm32-unknown-unknown.rustflags = ["--cfg", "erase_components"]'
rm -rf "$dist"
mkdir -p "$dist"
wasm-bindgen --target web --no-typescript --out-dir "$dist" \
    "$target_dir/wasm32-unknown-unknown/wasm-release/web.wasm"
node_modules/.bin/wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types \
    "$dist/web_bg.wasm" -o "$dist/web_bg.wasm"
cp web/index.html web/style.css web/boot.js "$dist/"

# What a first visit downloads, compressed as a server would send it.
total=0
for f in "$dist"/web_bg.wasm "$dist"/web.js "$dist"/boot.js "$dist"/style.css "$dist"/index.html; do
    size=$(gzip -9 -c "$f" | wc -c)
    total=$((total + size))
    printf '%-28s %8d bytes raw %8d bytes gzip\n' "$(basename "$f")" "$(wc -c <"$f")" "$size"
done
echo "total gzip: $total bytes ($((total / 1024)) KiB)"
