#!/bin/sh
# Op-level selective checkpointing on GPT-2 small's 12 layers (docs/planners.md,
# "Op level"): trace at op level (costs in GFLOP and in ms), the exact plan at
# half of store-all's peak beside the named policies, the op- and block-level
# curves, and verify in PyTorch. Raw output under OUT.
#   PYTHON=/usr/bin/python3 bench/op_level.sh OUT [SEQ]      (SEQ default 1024, batch 1)
set -eu
out=${1:?usage: bench/op_level.sh OUT [SEQ]}
seq=${2:-1024}
python=${PYTHON:-python3}
remat=${REMAT:-build/dev/app/cli/remat}
mkdir -p "$out"
export PYTHONPATH=python OPENBLAS_NUM_THREADS=1
for cost in flops time; do
    "$python" -m remat_torch trace --granularity op --cost $cost --model bench/gpt2_layers.py:twelve \
        --input 1x${seq}x768 --threads 1 -o "$out/gpt2-12-ops-$cost.json"
    half=$("$python" -c "import json,sys; print(json.load(open(sys.argv[1]))['store_all']['peak_bytes'] // 2)" \
        "$("$remat" plan --model "$out/gpt2-12-ops-$cost.json" --granularity op --frontier --samples 2 --json \
           > "$out/store-all-$cost.json"; echo "$out/store-all-$cost.json")")
    "$remat" plan --model "$out/gpt2-12-ops-$cost.json" --granularity op --budget "$half" \
        | tee "$out/plan-half-$cost.txt"
    "$remat" plan --model "$out/gpt2-12-ops-$cost.json" --granularity op --budget "$half" --json \
        > "$out/plan-half-$cost.json"
    "$remat" plan --model "$out/gpt2-12-ops-$cost.json" --granularity op --frontier --samples 12 \
        | tee "$out/frontier-$cost.txt"
done
"$python" -m remat_torch verify --plan "$out/plan-half-flops.json" --threads 1 | tee "$out/verify.txt"
