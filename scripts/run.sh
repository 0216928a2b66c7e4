#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake --preset dev >/dev/null
cmake --build --preset dev
exec build/dev/app/cli/remat simulate --n 16 "$@"
