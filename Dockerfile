# syntax=docker/dockerfile:1
# Build stage: the Rust toolchain, the wasm target, the pinned wasm-bindgen-cli and
# wasm-split-cli and wasm-opt (npm binaryen), then the release server and the web bundle built by the same script CI uses.
FROM rust:1.95-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends nodejs npm \
    && rm -rf /var/lib/apt/lists/*
RUN rustup target add wasm32-unknown-unknown \
    && cargo install wasm-bindgen-cli --version 0.2.130 \
    && cargo install wasm_split_cli_support --version 0.2.4 --features build-binary --locked
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p server \
    && bash scripts/build-web.sh

# Runtime stage: the binary, the web bundle, the migrations (also embedded in the binary) and
# the default tables file, run as an unprivileged user.
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin scoop
WORKDIR /app
COPY --from=build /src/target/release/scoop /app/scoop
COPY --from=build /src/web/dist /app/web/dist
COPY --from=build /src/migrations /app/migrations
COPY tables.toml /app/tables.toml
USER scoop
ENV SCOOP_BIND=0.0.0.0:8080
ENV SCOOP_WEB_DIR=/app/web/dist
ENV SCOOP_TABLES=/app/tables.toml
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD curl -fs http://127.0.0.1:8080/healthz || exit 1
ENTRYPOINT ["/app/scoop", "serve"]
