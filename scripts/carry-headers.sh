#!/usr/bin/env bash
# Fills .carry/include (ignored by git) with the header-only dependencies the
# GPU machine lacks: Eigen, CLI11 and nlohmann-json, copied from this machine's
# Debian packages (scripts/deps.sh installs them). Pass the folder to the
# device tool as carry [".carry"]; scripts/gpu-check.sh finds it there
# (docs/executor.md, "Running the GPU check").
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.carry/include
declare -A sources=([eigen3/Eigen]=/usr/include/eigen3/Eigen [nlohmann]=/usr/include/nlohmann [CLI]=/usr/include/CLI)
for name in "${!sources[@]}"; do
  if [ ! -d "${sources[$name]}" ]; then
    echo "carry-headers: ${sources[$name]} not found; run scripts/deps.sh first" >&2
    exit 1
  fi
done
rm -rf "$dest.partial"
for name in "${!sources[@]}"; do
  mkdir -p "$dest.partial/$(dirname "$name")"
  cp -r "${sources[$name]}" "$dest.partial/$name"
done
rm -rf "$dest"
mv "$dest.partial" "$dest"
echo "carry-headers: $(du -sh "$dest" | cut -f1) in $dest (Eigen, CLI11, nlohmann-json); carry [\".carry\"]"
