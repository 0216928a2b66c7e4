#!/usr/bin/env bash
# The PyTorch bridge against remat's predictions (docs/pytorch.md): for each
# traced model, plans for per-block checkpointing (on a graph: auto's
# articulation points) and a budget halfway between
# per-block's and store-all's peak, and a tight budget (the budget plan's own
# predicted peak: the least budget remat says that plan fits), then one
# `remat_torch verify --strict` run (the plain model = store-all, then the
# plans; "OVER BUDGET" in the log when a plan's observed peak is above its
# budget). Raw output under OUT.
#
#   bench/pytorch_bridge.sh OUT cpu FILE...        traced files to verify (their own SPEC and input)
#   bench/pytorch_bridge.sh OUT cuda SPEC@SHAPE... trace on the GPU first, then verify there
#       (SHAPE as trace's --input, or FILE.py:callable for trace's --inputs)
#
# PYTHON (default python3) must import torch; REMAT (default build/dev/app/cli/remat).
set -euo pipefail
out=${1:?OUT}; device=${2:?cpu|cuda}; shift 2
python=${PYTHON:-python3}; remat=${REMAT:-build/dev/app/cli/remat}
mkdir -p "$out"
export PYTHONPATH=python
timed() { if [ -x /usr/bin/time ]; then /usr/bin/time -v "$@"; else "$@"; fi; }
{ date -u; uname -a; lscpu 2>/dev/null | grep -E "Model name|^CPU\(s\)" || true
  "$python" -c "import torch; print('torch', torch.__version__, 'threads', torch.get_num_threads()); print(torch.__config__.show())"
  update-alternatives --display libblas.so.3-x86_64-linux-gnu 2>/dev/null | head -2 || true # which BLAS PyTorch's libblas.so.3 is
  [ "$device" = cuda ] && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv || true
} > "$out/machine.txt" 2>&1
for item in "$@"; do
  if [ "$device" = cuda ]; then
    spec=${item%@*}; shape=${item##*@}
    name=$(echo "$spec-$shape" | tr -c 'A-Za-z0-9_.-' '-' | cut -c1-80)
    model="$out/$name.json"
    case $shape in *.py:*) inputs=(--inputs "$shape") ;; *) inputs=(--input "$shape") ;; esac
    timed "$python" -m remat_torch trace --model "$spec" "${inputs[@]}" --device cuda -o "$model" \
      2> "$out/$name.trace.log"
  else
    model=$item; name=$(basename "$item" .json)
  fi
  # Per-block checkpointing: every block on a chain; on a graph, auto's articulation points (periodic refuses graphs).
  "$remat" plan --model "$model" --strategy periodic --every 1 --json > "$out/$name.per-block.plan.json" 2>/dev/null ||
    "$remat" plan --model "$model" --strategy auto --json > "$out/$name.per-block.plan.json"
  "$remat" plan --model "$model" --strategy store-all --json > "$out/$name.store-all.plan.json"
  budget=$("$python" -c "import json,sys; a,b=(json.load(open(f))['plan']['peak_bytes'] for f in sys.argv[1:]); print((a+b)//2)" \
    "$out/$name.store-all.plan.json" "$out/$name.per-block.plan.json")
  "$remat" plan --model "$model" --budget "${budget}B" --json > "$out/$name.budget.plan.json"
  "$remat" plan --model "$model" --budget "${budget}B" > "$out/$name.budget.plan.txt"
  tight=$("$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['apply']['predicted_peak_bytes'])" \
    "$out/$name.budget.plan.json")
  "$remat" plan --model "$model" --budget "${tight}B" --json > "$out/$name.tight.plan.json"
  timed "$python" -m remat_torch verify --strict --device "$device" --plan "$out/$name.per-block.plan.json" \
    --plan "$out/$name.budget.plan.json" --plan "$out/$name.tight.plan.json" --json \
    > "$out/$name.verify.json" 2> "$out/$name.verify.log" || echo "OVER BUDGET (exit $?)" >> "$out/$name.verify.log"
  "$python" - "$out/$name.verify.json" <<'PY' | tee "$out/$name.verify.txt"
import json, sys
sys.path.insert(0, "python")
from remat_torch.verifying import report_text
print(report_text(json.load(open(sys.argv[1]))))
PY
done
