#!/usr/bin/env bash
# Quick start, command 2: install what is missing, build, run the whole test
# suite; then again under AddressSanitizer + UndefinedBehaviorSanitizer.
# `scripts/test.sh --quick` skips the sanitizer pass.
# The remat_torch tests run on Debian's PyTorch 1.13 and, in the dev pass, on
# PyTorch 2 from scripts/torch2-python's venv (~/.cache/remat, made here
# once per machine: about 3 GB from PyPI). REMAT_TORCH2=0 leaves that set out
# (a machine without PyPI).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
torch2=ON
if [ "${REMAT_TORCH2:-1}" = 0 ]; then
  torch2=OFF
else
  scripts/torch2-python --ensure
fi
presets=(dev asan)
[ "${1:-}" = "--quick" ] && presets=(dev)
echo "== packages and the PyTorch 2 venv: ${SECONDS} s"
for preset in "${presets[@]}"; do
  echo "== build and test: $preset"
  start=$SECONDS
  cmake --preset "$preset" -DREMAT_TORCH2_TESTS=$torch2 >/dev/null
  cmake --build --preset "$preset"
  built=$SECONDS
  ctest --preset "$preset" --parallel "$(nproc)"
  echo "== $preset: build $((built - start)) s, tests $((SECONDS - built)) s"
done
echo "== all: ${SECONDS} s"
