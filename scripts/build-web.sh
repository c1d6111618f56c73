#!/usr/bin/env bash
# Builds the browser client into web/dist without downloading anything but crates and npm
# packages (TOOLCHAIN.md's plain route): cargo → wasm-split → wasm-bindgen → wasm-opt -Oz →
# static files. Installs what is missing: the wasm32 target, wasm-bindgen-cli 0.2.130,
# wasm-split-cli 0.2.4, node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130
# Splits the page module at the client's split points (web/src/lazy.rs). The split points'
# runtime is leptos's `wasm_split_helpers` 0.2, which this CLI's 0.2 line is written for.
WASM_SPLIT_VERSION=0.2.4
target_dir=${CARGO_TARGET_DIR:-target}
dist=web/dist

rustup target list --installed | grep -qx wasm32-unknown-unknown ||
    rustup target add wasm32-unknown-unknown

# The CLI must match the `wasm-bindgen = "=0.2.130"` pin in web/Cargo.toml exactly.
if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
    # Not --locked: one locked dependency is missing from the registry mirror (TOOLCHAIN.md).
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

if ! cargo install --list | grep -qx "wasm_split_cli_support v$WASM_SPLIT_VERSION:"; then
    cargo install wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary --locked
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
# The page's module keeps its relocations (`--emit-relocs`): wasm-split needs them to move
# functions into the modules it splits off.
web_config='target.wasm32-unknown-unknown.rustflags = ["--cfg", "erase_components", "-Clink-args=--emit-relocs"]'
worker_config='target.wasm32-unknown-unknown.rustflags = ["--cfg", "erase_components"]'
cargo build --profile wasm-release --target wasm32-unknown-unknown -p web --config "$web_config"
cargo build --profile wasm-worker --target wasm32-unknown-unknown -p equity-worker \
    --config "$worker_config"
rm -rf "$dist"
mkdir -p "$dist"
# The main module (lobby, sign-in, what every page shares), the split-off pages' modules
# (split_*.wasm), the code two or more of them share (chunk_*.wasm) and their loader.
split="$target_dir/wasm-split"
rm -rf "$split"
mkdir -p "$split"
wasm-split-cli "$target_dir/wasm32-unknown-unknown/wasm-release/web.wasm" "$split" \
    --target web --out-name web >/dev/null
# The split-off modules call through the main module's function table: wasm-bindgen must keep
# exporting it (`--keep-lld-exports`), as it would otherwise drop an export it does not use.
wasm-bindgen --target web --no-typescript --keep-lld-exports --out-dir "$dist" "$split/web.wasm"
wasm-bindgen --target web --no-typescript --out-dir "$dist" \
    "$target_dir/wasm32-unknown-unknown/wasm-worker/equity_worker.wasm"
wasm_opt() {
    node_modules/.bin/wasm-opt "$@" --enable-bulk-memory --enable-nontrapping-float-to-int \
        --enable-sign-ext --enable-mutable-globals --enable-reference-types
}
# The pages are optimised for size; the worker for speed (its enumeration must stay within a
# few times native speed, and nobody waits for its download before the page works).
wasm_opt -Oz "$dist/web_bg.wasm" -o "$dist/web_bg.wasm"
for f in "$split"/split_*.wasm "$split"/chunk_*.wasm; do
    [ -e "$f" ] || continue
    # wasm-split leaves a name section binaryen does not read; -Oz drops it anyway.
    wasm_opt -Oz "$f" -o "$dist/$(basename "$f")" 2>/dev/null
done
cp "$split/__wasm_split.js" "$dist/wasm_split.js"
wasm_opt -O3 "$dist/equity_worker_bg.wasm" -o "$dist/equity_worker_bg.wasm"
cp web/index.html web/style.css web/boot.js web/equity-worker.js web/favicon.svg "$dist/"

# Content-hashed names, so a browser can keep every asset forever (the server marks them
# immutable) and an upgrade can never run old code against a new server: only index.html,
# which is never cached, names the current files. boot.js names the others, so it is hashed
# after they are renamed in it; so is the equity worker, which boot.js names.
hashed() { echo "$1-$(sha256sum "$dist/$1.$2" | cut -c1-16).$2"; }
# The split-off modules, named in the loader; the loader, named in web.js. The loader names
# web.js in turn, so its own name is the hash of what it says before that name is filled in
# and of the main module: the same name can never stand for a loader of another build.
for f in "$dist"/split_*.wasm "$dist"/chunk_*.wasm; do
    [ -e "$f" ] || continue
    stem=$(basename "$f" .wasm); name=$(hashed "$stem" wasm)
    mv "$f" "$dist/$name"
    sed -i "s#\"\./$stem\.wasm\"#\"./$name\"#" "$dist/wasm_split.js"
done
loader="wasm_split-$(cat "$dist/wasm_split.js" "$dist/web_bg.wasm" | sha256sum | cut -c1-16).js"
mv "$dist/wasm_split.js" "$dist/$loader"
# Only the JS imports: the wasm's own import module keeps the name the glue's object is keyed by.
sed -i "s#from \"\./__wasm_split\.js\"#from \"./$loader\"#g" "$dist/web.js"
wasm=$(hashed web_bg wasm); js=$(hashed web js); css=$(hashed style css)
mv "$dist/web_bg.wasm" "$dist/$wasm"; mv "$dist/web.js" "$dist/$js"; mv "$dist/style.css" "$dist/$css"
sed -i "s#\"\./web\.js\"#\"./$js\"#" "$dist/$loader"
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

# What a first visit downloads, as the server sends it (Brotli; gzip for a browser without
# it), then what each split-off page adds the first time it opens.
node -e '
const fs = require("fs"), path = require("path");
const [dir, loader, ...first] = process.argv.slice(1);
const size = (f) => ({
  raw: fs.statSync(path.join(dir, f)).size,
  gz: fs.statSync(path.join(dir, f + ".gz")).size,
  br: fs.statSync(path.join(dir, f + ".br")).size,
});
const sum = (files) => files.map(size).reduce((a, b) => ({ gz: a.gz + b.gz, br: a.br + b.br }), { gz: 0, br: 0 });
for (const f of first) {
  const s = size(f);
  console.log(`${f.padEnd(40)} ${String(s.raw).padStart(8)} bytes raw ${String(s.gz).padStart(8)} gzip ${String(s.br).padStart(8)} brotli`);
}
const base = sum(first);
console.log(`first visit (lobby): ${base.gz} bytes gzip, ${base.br} bytes brotli`);
// The loader names each module file, and the modules each one waits for.
const js = fs.readFileSync(path.join(dir, loader), "utf8");
const re = /(?:const (__chunk_\d+)|export const __wasm_split_load_(\w+)) = (?:wrapAsyncCb\()?makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\.\/([^"]+)"[^]*?\n, \[([^\]]*)\]/g;
const chunks = {}, pages = {};
for (const m of js.matchAll(re)) {
  const deps = m[4].split(",").map((d) => d.trim()).filter(Boolean);
  if (m[1]) chunks[m[1]] = { file: m[3], deps };
  else pages[m[2]] = { file: m[3], deps };
}
const files = (deps, seen = new Set()) => {
  for (const d of deps) {
    if (seen.has(chunks[d].file)) continue;
    seen.add(chunks[d].file);
    files(chunks[d].deps, seen);
  }
  return seen;
};
for (const [name, p] of Object.entries(pages).sort()) {
  const own = [p.file, ...files(p.deps)];
  const add = sum(own);
  console.log(`page ${name.padEnd(12)} adds ${String(add.gz).padStart(7)} gzip ${String(add.br).padStart(7)} brotli (${own.length} files): ${base.gz + add.gz} gzip in all`);
}
' "$dist" "$loader" "$wasm" "$js" "$loader" "$boot" "$css" index.html
# The calculator page's worker, fetched only there.
worker_total=0
for f in "$worker" "$worker_js" "$worker_wasm"; do
    worker_total=$((worker_total + $(wc -c <"$dist/$f.br")))
done
echo "equity calculator worker: $worker_total bytes brotli"
