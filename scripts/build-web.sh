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
if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ]; then
    npm ci --no-audit --no-fund
fi

# `--cfg erase_components` makes Leptos erase view and component types (AnyView, boxed
# closures) instead of monomorphising every nested view type: ~24 KB less gzipped wasm. Set
# for the wasm32 target only, so native builds (server, clippy, tests) and their cache are
# untouched. An exported RUSTFLAGS would override it, hence the check.
[ -z "${RUSTFLAGS:-}${CARGO_ENCODED_RUSTFLAGS:-}" ] ||
    echo "warning: RUSTFLAGS is set and replaces --cfg erase_components: a bigger bundle" >&2
# Two modules: the page (`web`) and the equity calculator's worker (`equity-worker`), which
# only the calculator page fetches, so the page's bundle does not carry the equity engine.
wasm_config='target.wasm32-unknown-unknown.rustflags = ["--cfg", "erase_components"]'
cargo build --profile wasm-release --target wasm32-unknown-unknown -p web --config "$wasm_config"
cargo build --profile wasm-worker --target wasm32-unknown-unknown -p equity-worker \
    --config "$wasm_config"
rm -rf "$dist"
mkdir -p "$dist"
wasm-bindgen --target web --no-typescript --out-dir "$dist" \
    "$target_dir/wasm32-unknown-unknown/wasm-release/web.wasm"
wasm-bindgen --target web --no-typescript --out-dir "$dist" \
    "$target_dir/wasm32-unknown-unknown/wasm-worker/equity_worker.wasm"
# The page is optimised for size; the worker for speed (its enumeration must stay within a
# few times native speed, and nobody waits for its download before the page works).
node_modules/.bin/wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types \
    "$dist/web_bg.wasm" -o "$dist/web_bg.wasm"
node_modules/.bin/wasm-opt -O3 --enable-bulk-memory --enable-nontrapping-float-to-int \
    --enable-sign-ext --enable-mutable-globals --enable-reference-types \
    "$dist/equity_worker_bg.wasm" -o "$dist/equity_worker_bg.wasm"
cp web/index.html web/style.css web/boot.js web/equity-worker.js web/favicon.svg "$dist/"

# Content-hashed names, so a browser can keep every asset forever (the server marks them
# immutable) and an upgrade can never run old code against a new server: only index.html,
# which is never cached, names the current files. boot.js names the others, so it is hashed
# after they are renamed in it; so is the equity worker, which boot.js names.
hashed() { echo "$1-$(sha256sum "$dist/$1.$2" | cut -c1-16).$2"; }
wasm=$(hashed web_bg wasm); js=$(hashed web js); css=$(hashed style css)
mv "$dist/web_bg.wasm" "$dist/$wasm"; mv "$dist/web.js" "$dist/$js"; mv "$dist/style.css" "$dist/$css"
sed -i "s#/web\.js#/$js#; s#/web_bg\.wasm#/$wasm#" "$dist/boot.js"
worker_wasm=$(hashed equity_worker_bg wasm); worker_js=$(hashed equity_worker js)
mv "$dist/equity_worker_bg.wasm" "$dist/$worker_wasm"; mv "$dist/equity_worker.js" "$dist/$worker_js"
sed -i "s#/equity_worker\.js#/$worker_js#; s#/equity_worker_bg\.wasm#/$worker_wasm#" "$dist/equity-worker.js"
worker=$(hashed equity-worker js); mv "$dist/equity-worker.js" "$dist/$worker"
sed -i "s#/equity-worker\.js#/$worker#" "$dist/boot.js"
boot=$(hashed boot js); mv "$dist/boot.js" "$dist/$boot"
icon=$(hashed favicon svg); mv "$dist/favicon.svg" "$dist/$icon"
sed -i "s#/style\.css#/$css#; s#/web\.js#/$js#; s#/web_bg\.wasm#/$wasm#; s#/boot\.js#/$boot#; s#/favicon\.svg#/$icon#" \
    "$dist/index.html"

# Precompressed copies for the server to send as they are (Brotli, else gzip).
node -e '
const fs = require("fs"), zlib = require("zlib"), path = require("path");
const dir = process.argv[1];
for (const f of fs.readdirSync(dir)) {
  if (!/\.(wasm|js|css|html|svg)$/.test(f)) continue;
  const data = fs.readFileSync(path.join(dir, f));
  fs.writeFileSync(path.join(dir, f + ".br"), zlib.brotliCompressSync(data, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length },
  }));
  fs.writeFileSync(path.join(dir, f + ".gz"), zlib.gzipSync(data, { level: 9 }));
}' "$dist"

# What a first visit downloads, as the server sends it to a browser that takes Brotli.
total=0
total_gz=0
for f in "$wasm" "$js" "$boot" "$css" index.html; do
    br=$(wc -c <"$dist/$f.br")
    gz=$(wc -c <"$dist/$f.gz")
    total=$((total + br))
    total_gz=$((total_gz + gz))
    printf '%-32s %8d bytes raw %8d gzip %8d brotli\n' "$f" "$(wc -c <"$dist/$f")" "$gz" "$br"
done
echo "total: $total bytes brotli ($((total / 1024)) KiB), $total_gz bytes gzip"
# The calculator page's worker, fetched only there.
worker_total=0
for f in "$worker" "$worker_js" "$worker_wasm"; do
    worker_total=$((worker_total + $(wc -c <"$dist/$f.br")))
done
echo "equity calculator worker: $worker_total bytes brotli"
