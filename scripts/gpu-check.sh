#!/usr/bin/env bash
# The CUDA core on a real GPU, in one command (docs/executor.md, "Running the
# GPU check"). From the repository root on the GPU machine:
#
#     scripts/gpu-check.sh [OUT]        # OUT: folder for the results ($OUT by default)
#
# Configures a Qt-free Release build with CUDA required, builds remat and
# gpu_check with all cores, then runs: gpu_check (kernels against CPU
# references, CPU vs CUDA gradients, strategies bitwise equal, counted / pool /
# device peaks, out of memory, teardown), `remat measure --backend cuda
# --verify` on three shapes, the transformer (`--network transformer`) on
# three, the tables, an out-of-memory request through the CLI,
# offloading (offload-all and offload-budget --verify: device and host peaks,
# gradients; a table with the predicted makespan), compute-sanitizer memcheck
# (tanh network, transformer, offload-all), and bench/torch_reference.py,
# bench/torch_transformer_reference.py and bench/torch_offload_reference.py
# (save_on_cpu; skipped without PyTorch) on CUDA. Raw output and
# JSON go to OUT; the last line is "N passed, N failed". Exit status 0 when
# nothing failed, 1 otherwise (also without nvcc or without a CUDA device,
# which stop it early with one line).
#
# Headers: the GPU machine has no Eigen, CLI11 or nlohmann-json; carry
# .carry/include (scripts/carry-headers.sh fills it). Environment overrides:
# REMAT_CUDA_ARCHITECTURES (default native), REMAT_GPU_BUILD_DIR (build/gpu-check).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
root=$PWD
out=${1:-${OUT:-}}
if [ -z "$out" ]; then
  echo "gpu-check: no output folder; pass one (scripts/gpu-check.sh DIR) or set OUT" >&2
  exit 1
fi
mkdir -p "$out" && out=$(cd "$out" && pwd)
build=${REMAT_GPU_BUILD_DIR:-build/gpu-check}
log=$out/gpu-check.log
: >"$log"
say() { echo "$*" | tee -a "$log"; }
stop() {
  say "gpu-check: $*"
  exit 1
}
echo "gpu-check: $(date -u +%Y-%m-%dT%H:%M:%SZ) in $root: scripts/gpu-check.sh $*" >>"$log"

# --- 1. toolkit and device, before anything is built ------------------------
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
[ -n "$nvcc" ] || stop "nvcc not found (not on PATH, not in /usr/local/cuda/bin): the CUDA toolkit is required"
cuda_bin=$(dirname "$nvcc")

probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
cat >"$probe/probe.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime_api.h>
int main() {
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) { std::printf("%s\n", cudaGetErrorString(status)); return 1; }
    if (count < 1) { std::printf("no device found\n"); return 1; }
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) { std::printf("cannot read device 0\n"); return 1; }
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    std::printf("%s, sm_%d%d, %zu MiB, driver API %d, runtime %d\n", p.name, p.major, p.minor,
                p.totalGlobalMem >> 20, driver, runtime);
    return 0;
}
CU
"$nvcc" -o "$probe/probe" "$probe/probe.cu" >"$probe/nvcc.log" 2>&1 ||
  stop "nvcc cannot build a 10-line probe: $(tr '\n' ' ' <"$probe/nvcc.log")"
device=$("$probe/probe") || stop "no CUDA device: ${device:-the probe failed}"
say "device: $device"

# --- 2. headers --------------------------------------------------------------
extra=$root/.carry/include
for header in eigen3/Eigen/Core nlohmann/json.hpp CLI/CLI.hpp; do
  [ -e "/usr/include/$header" ] || [ -e "$extra/$header" ] ||
    stop "$header is neither in /usr/include nor in .carry/include; run scripts/carry-headers.sh where the Debian packages are, and carry .carry"
done

# --- 3. what this run is, for bench/results ----------------------------------
{
  echo "command: scripts/gpu-check.sh $*"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  if commit=$(git rev-parse HEAD 2>/dev/null); then
    echo "commit: $commit$(git diff --quiet HEAD || echo ' (with local changes)')"
  else
    echo "commit: unknown (no git repository here)"
  fi
  echo "device: $device"
  echo "host: $(uname -srm), $(nproc) cores"
  echo "--- nvidia-smi"
  nvidia-smi 2>&1 || echo "(nvidia-smi not available)"
  echo "--- nvcc"
  "$nvcc" --version
  echo "--- cmake"
  cmake --version | head -1
  echo "--- python3 / torch"
  python3 -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__, "CUDA", torch.version.cuda)' 2>&1
} >"$out/environment.txt" 2>&1

# --- 4. configure and build (Qt-free, CUDA required) ------------------------
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
say "building in $build (log: build.log)"
{
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DREMAT_BUILD_STUDIO=OFF \
    -DREMAT_BUILD_TESTS=OFF -DREMAT_REQUIRE_CUDA=ON -DCMAKE_CUDA_COMPILER="$nvcc" \
    -DCMAKE_CUDA_ARCHITECTURES="${REMAT_CUDA_ARCHITECTURES:-native}" -DREMAT_EXTRA_INCLUDE="$extra" &&
    cmake --build "$build" -j "$(nproc)" --target remat gpu_check
} >"$out/build.log" 2>&1 || stop "the build failed: $(tail -n 5 "$out/build.log" | tr '\n' ' ')"
remat=$root/$build/app/cli/remat
gpu_check=$root/$build/gpu/check/gpu_check

# --- 5. checks ----------------------------------------------------------------
passed=0
failed=0
summary=()
record() { # name, 0|1, detail
  if [ "$2" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  say "$([ "$2" = 0 ] && echo PASS || echo FAIL) $1: $3"
  summary+=("$(python3 -c 'import json,sys; print(json.dumps({"name": sys.argv[1], "passed": sys.argv[2] == "0", "detail": sys.argv[3]}))' "$1" "$2" "$3")")
}
# run FILE CMD...: stdout to OUT/FILE, stderr to OUT/FILE.stderr, status in $rc.
run() {
  local file=$1
  shift
  timeout 300 "$@" >"$out/$file" 2>"$out/$file.stderr"
  rc=$?
  [ -s "$out/$file.stderr" ] || rm -f "$out/$file.stderr"
}
# The first line of what a failed step said.
why() { head -n 1 "$out/$1.stderr" 2>/dev/null || echo "exit $rc"; }

# gpu_check: each of its checks counts.
run gpu_check.txt "$gpu_check" --out "$out"
cat "$out/gpu_check.txt" >>"$log"
last=$(tail -n 1 "$out/gpu_check.txt")
if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]] && [ "$rc" -le 1 ]; then
  passed=$((passed + BASH_REMATCH[1]))
  failed=$((failed + BASH_REMATCH[2]))
  summary+=("{\"name\": \"gpu_check\", \"passed\": $([ "$rc" = 0 ] && echo true || echo false), \"detail\": \"$last (gpu_check.json)\"}")
  say "gpu_check: $last"
else
  record gpu_check 1 "exit $rc: $last"
fi

run ctest.txt ctest --test-dir "$build" -N -R '^gpu_check$'
grep -q "Total Tests: 1" "$out/ctest.txt"
record "ctest registers gpu_check" $? "$(grep 'Total Tests' "$out/ctest.txt")"

# --verify: counted peak = predicted, pool peak by the page rule, gradients
# bitwise equal to store-all's, every strategy.
for shape in "64 1024 256" "16 1024 512" "9 33 7"; do
  read -r n w b <<<"$shape"
  name="measure-n$n-w$w-b$b"
  run "$name.json" "$remat" measure --backend cuda --n "$n" --width "$w" --batch "$b" --repeat 10 --verify --json
  if [ $rc = 0 ]; then detail="all strategies verified ($name.json)"; else detail=$(why "$name.json"); fi
  record "remat measure --backend cuda --verify n=$n w=$w b=$b" $rc "$detail"
done

# The transformer (pre-LN, GPT-2's block) on CUDA, --verify as above: odd
# sizes, the CLI's default shape, and GPT-2 small's layer at seq 128, batch 8.
for shape in "5 24 3 7 3" "4 256 4 128 4" "12 768 12 128 8"; do
  read -r L h a s b <<<"$shape"
  name="measure-transformer-L$L-h$h-a$a-s$s-b$b"
  run "$name.json" "$remat" measure --network transformer --backend cuda --layers "$L" --hidden "$h" --heads "$a" \
    --seq "$s" --batch "$b" --repeat 10 --verify --json
  if [ $rc = 0 ]; then detail="all strategies verified ($name.json)"; else detail=$(why "$name.json"); fi
  record "remat measure --network transformer --backend cuda --verify L=$L h=$h a=$a s=$s b=$b" $rc "$detail"
done
run measure-transformer-table.txt "$remat" measure --network transformer --backend cuda --layers 12 --hidden 768 \
  --heads 12 --seq 128 --batch 8 --repeat 10
record "remat measure --network transformer table (GPT-2 small layers)" $rc "measure-transformer-table.txt"

run measure-table.txt "$remat" measure --backend cuda --n 16 --width 1024 --batch 512
[ $rc = 0 ] && grep -q "allocator peak" "$out/measure-table.txt"
record "remat measure table shows the allocator peak" $? "measure-table.txt"

# 250 GiB of activations (4001 nodes of 64 MiB) on any current GPU: refused with exit 2 and one line.
run out-of-memory.txt "$remat" measure --backend cuda --strategy store-all --n 4000 --width 256 --batch 65536
msg=$(why out-of-memory.txt)
[ $rc = 2 ] && [[ $msg == *GPU* ]] && [ "$(wc -l <"$out/out-of-memory.txt.stderr")" -le 1 ]
record "remat measure out of memory: exit 2, one line" $? "exit $rc: $msg"

# Offloading (docs/executor.md, "Offloading"): copies on the copy stream into
# pinned host memory; --verify checks the counted device peak, the host
# arena's peak, the pool's high-water mark and the gradients against the
# simulator and store-all. offload-all on an instant link (memory only), then
# offload-budget on a link and rate close to an H100's, where it offloads.
for shape in "16 1024 512" "9 33 7"; do
  read -r n w b <<<"$shape"
  name="measure-offload-all-n$n-w$w-b$b"
  run "$name.json" "$remat" measure --backend cuda --strategy store-all,offload-all --n "$n" --width "$w" \
    --batch "$b" --repeat 10 --verify --json
  if [ $rc = 0 ]; then detail="offload-all verified ($name.json)"; else detail=$(why "$name.json"); fi
  record "remat measure --backend cuda --strategy offload-all --verify n=$n w=$w b=$b" $rc "$detail"
done
offload_flags=(--n 16 --width 4096 --batch 1024 --link 25GB/s --device-rate 40TFLOP/s --repeat 10)
run measure-offload-budget.json "$remat" measure --backend cuda --strategy store-all,offload-all,offload-budget \
  "${offload_flags[@]}" --device-budget 160MiB --verify --json
[ $rc = 0 ] && grep -q '"offloads": [1-9]' "$out/measure-offload-budget.json"
rc2=$?
if [ $rc = 0 ]; then detail="verified, offloads planned: $([ $rc2 = 0 ] && echo yes || echo no) (measure-offload-budget.json)"; else detail=$(why measure-offload-budget.json); fi
record "remat measure --backend cuda --strategy offload-budget --device-budget 160MiB --link 25GB/s --verify" $((rc | rc2)) "$detail"
run measure-offload-table.txt "$remat" measure --backend cuda --strategy store-all,periodic,offload-all,offload-budget \
  "${offload_flags[@]}" --every 4 --device-budget 160MiB
[ $rc = 0 ] && grep -q "measured host peak" "$out/measure-offload-table.txt"
record "remat measure offload table (host peaks, predicted makespan)" $? "measure-offload-table.txt"

sanitizer=$(command -v compute-sanitizer || echo "$cuda_bin/compute-sanitizer")
if [ -x "$sanitizer" ]; then
  run memcheck-measure.txt "$sanitizer" --tool memcheck --error-exitcode 99 \
    "$remat" measure --backend cuda --n 6 --width 33 --batch 7 --repeat 1 --verify
  record "compute-sanitizer memcheck: remat measure (all strategies, n=6 w=33 b=7)" $rc "$(grep -hm1 'ERROR SUMMARY' "$out"/memcheck-measure.txt* || echo "exit $rc")"
  run memcheck-transformer.txt "$sanitizer" --tool memcheck --error-exitcode 99 \
    "$remat" measure --network transformer --backend cuda --layers 3 --hidden 24 --heads 3 --seq 5 --batch 3 \
    --repeat 1 --verify
  record "compute-sanitizer memcheck: transformer measure (all strategies, L=3 h=24 a=3 s=5 b=3)" $rc "$(grep -hm1 'ERROR SUMMARY' "$out"/memcheck-transformer.txt* || echo "exit $rc")"
  run memcheck-offload.txt "$sanitizer" --tool memcheck --error-exitcode 99 \
    "$remat" measure --backend cuda --strategy store-all,offload-all --n 6 --width 33 --batch 7 --repeat 1 --verify
  record "compute-sanitizer memcheck: offload-all measure (n=6 w=33 b=7)" $rc "$(grep -hm1 'ERROR SUMMARY' "$out"/memcheck-offload.txt* || echo "exit $rc")"
  run memcheck-checks.txt "$sanitizer" --tool memcheck --error-exitcode 99 \
    "$gpu_check" --filter "teardown"
  record "compute-sanitizer memcheck: backend destroyed with queued work" $rc "$(grep -hm1 'ERROR SUMMARY' "$out"/memcheck-checks.txt* || echo "exit $rc")"
else
  record "compute-sanitizer memcheck" 1 "compute-sanitizer not found (PATH, $cuda_bin)"
fi

# The race against PyTorch: benchmarks, reported; a run that fails counts.
for shape in "64 1024 256 8" "32 4096 1024 8"; do
  read -r n w b k <<<"$shape"
  name="torch-n$n-w$w-b$b"
  run "$name.json" python3 bench/torch_reference.py --remat "$remat" --n "$n" --width "$w" --batch "$b" \
    --every "$k" --repeat 20 --json
  if [ $rc = 0 ]; then detail=$(python3 bench/torch_reference.py --summarize "$out/$name.json"); else detail=$(why "$name.json"); fi
  record "bench/torch_reference.py n=$n w=$w b=$b every $k" $rc "$detail"
done

# The same transformer layer in PyTorch with the same weights, against remat
# on CUDA (saved bytes per layer, peaks with and without per-layer
# checkpointing, step time, gradients): GPT-2 small's layer, and the default.
for shape in "12 768 12 128 8" "4 256 4 128 4"; do
  read -r L h a s b <<<"$shape"
  name="torch-transformer-L$L-h$h-a$a-s$s-b$b"
  run "$name.json" python3 bench/torch_transformer_reference.py --remat "$remat" --device cuda --layers "$L" \
    --hidden "$h" --heads "$a" --seq "$s" --batch "$b" --repeat 10 --json
  if [ $rc = 0 ]; then detail="$name.json"; else detail=$(why "$name.json"); fi
  record "bench/torch_transformer_reference.py --device cuda L=$L h=$h a=$a s=$s b=$b" $rc "$detail"
done

# PyTorch's save_on_cpu(pin_memory=True) against remat's offload-all, the
# same network (docs/executor.md, "Offloading"); skipped without PyTorch.
for shape in "16 4096 1024" "32 1024 256"; do
  read -r n w b <<<"$shape"
  name="torch-offload-n$n-w$w-b$b"
  run "$name.json" python3 bench/torch_offload_reference.py --remat "$remat" --n "$n" --width "$w" --batch "$b" \
    --repeat 10 --json
  if [ $rc = 77 ]; then
    say "SKIP bench/torch_offload_reference.py n=$n w=$w b=$b: $(python3 bench/torch_offload_reference.py --summarize "$out/$name.json" 2>&1)"
    continue
  fi
  if [ $rc = 0 ]; then detail=$(python3 bench/torch_offload_reference.py --summarize "$out/$name.json"); else detail=$(why "$name.json"); fi
  record "bench/torch_offload_reference.py (save_on_cpu) n=$n w=$w b=$b" $rc "$detail"
done

printf '{"device": "%s", "passed": %d, "failed": %d, "steps": [%s]}\n' "$device" "$passed" "$failed" \
  "$(IFS=,; echo "${summary[*]}")" >"$out/summary.json"
say "$passed passed, $failed failed"
[ "$failed" = 0 ]
