#!/usr/bin/env bash
# A bounded run of every fuzz target from its committed seeds (fuzz/README.md).
# Usage: fuzz/smoke.sh [SECONDS_PER_TARGET]   (default 8). Fails on the first crash.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${1:-8}"

if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install cargo-fuzz --version 0.13.2 --locked
fi
# cargo-fuzz has no --locked; this refuses a fuzz/Cargo.lock that would have to change.
cargo metadata --locked --format-version 1 >/dev/null
cargo fmt -- --check

# libFuzzer needs nightly-only flags; RUSTC_BOOTSTRAP lets the stable toolchain take them.
export RUSTC_BOOTSTRAP=1
cargo fuzz build

for target in $(cargo fuzz list); do
    corpus="$(mktemp -d)"
    echo "fuzz: ${target} for ${seconds}s"
    if ! cargo fuzz run "$target" "$corpus" "seeds/$target" -- \
        -max_total_time="$seconds" -print_final_stats=1 2>"$corpus.log"; then
        tail -n 60 "$corpus.log"
        echo "fuzz: ${target} crashed; the input is in fuzz/artifacts/${target}/" >&2
        exit 1
    fi
    grep -E '^(stat::number_of_executed_units|Done )' "$corpus.log" || true
    rm -rf "$corpus" "$corpus.log"
done
