#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, run the whole test
# suite; then again under AddressSanitizer + UndefinedBehaviorSanitizer.
# `scripts/test.sh --quick` skips the sanitizer pass.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
presets=(dev asan)
[ "${1:-}" = "--quick" ] && presets=(dev)
for preset in "${presets[@]}"; do
  echo "== build and test: $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done
