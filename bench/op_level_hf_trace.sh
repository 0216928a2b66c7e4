#!/usr/bin/env bash
# The Hugging Face GPT-2 small traced op by op on a device and planned at two
# budgets (75 % and 60 % of store-all's peak) by the op-level planner, then
# `remat_torch verify` on the same device (op-level verify counts storages on
# the CPU only, and says so on CUDA). Raw output under OUT.
#   bench/op_level_hf_trace.sh OUT [cpu|cuda]
# PYTHON (default python3) must import torch and transformers
# (scripts/torch2-python here); REMAT (default build/dev/app/cli/remat);
# MODEL/INPUTS (default python/examples/hf_gpt2.py:model / :inputs; :tiny /
# :tiny_inputs to try it fast).
set -u
out=${1:?usage: bench/op_level_hf_trace.sh OUT [cpu|cuda]}
device=${2:-cpu}
python=${PYTHON:-python3}; remat=${REMAT:-build/dev/app/cli/remat}
spec=${MODEL:-python/examples/hf_gpt2.py:model}; inputs=${INPUTS:-python/examples/hf_gpt2.py:inputs}
mkdir -p "$out"
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 PYTHONPATH=python
start=$(date +%s)
{ date -u; nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null
  "$python" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)"; } > "$out/machine.txt" 2>&1
/usr/bin/time -v "$python" -m remat_torch trace --granularity op --model "$spec" --inputs "$inputs" \
  --device "$device" -o "$out/gpt2-ops.json" > "$out/trace.log" 2>&1
echo "trace exit $? at $(( $(date +%s) - start )) s"
"$remat" simulate --model "$out/gpt2-ops.json" --strategy store-all --json > "$out/store-all.json" || exit 1
top=$("$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['strategies'][0]['peak_bytes'])" "$out/store-all.json")
plans=()
for percent in 75 60; do
  budget=$(( top * percent / 100 ))
  /usr/bin/time -f "%e s" "$remat" plan --model "$out/gpt2-ops.json" --granularity op --budget "${budget}B" --json \
    > "$out/plan-$percent.json" 2> "$out/plan-$percent.log"
  echo "plan at $percent % ($budget B) exit $? at $(( $(date +%s) - start )) s: $(tail -n 1 "$out/plan-$percent.log")"
  [ -s "$out/plan-$percent.json" ] && plans+=(--plan "$out/plan-$percent.json")
done
"$python" -m remat_torch verify --strict --device "$device" "${plans[@]}" --json > "$out/verify.json" 2> "$out/verify.log"
echo "verify exit $? at $(( $(date +%s) - start )) s: $(tail -n 1 "$out/verify.log")"
