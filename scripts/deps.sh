#!/usr/bin/env bash
# Installs the Debian 12 packages remat needs, only those missing. Idempotent.
# Everything remat builds with comes from here (the CUDA toolkit, when present,
# is found at /usr/local/cuda and is optional).
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config
          qt6-base-dev libgl-dev fonts-dejavu-core
          libeigen3-dev libcli11-dev nlohmann-json3-dev
          libcgif-dev libgif-dev
          clang libclang-rt-14-dev # libFuzzer, for the model-file fuzz test
          python3-torch python3-torchvision # python/remat_torch: trace, apply, verify
          coinor-libcbc-dev # the exact graph planner's MILP solver
          python3-venv # scripts/torch2-python: the PyTorch 2 venv
          libopenblas0-pthread) # PyTorch's BLAS (libblas.so.3); without it the reference BLAS is ~20x slower
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps: run as root or install sudo; missing: ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
echo "deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
