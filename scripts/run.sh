#!/usr/bin/env bash
# Quick start, command 1: install what is missing, build, run the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
cmake --preset dev >/dev/null
cmake --build --preset dev
# The studio opens with the three seed strategies side by side at n = 16
# (Scenarios menu for more; later runs restore the last session, --fresh does not).
exec build/dev/app/studio/remat-studio "$@"
