#!/bin/sh
# Op-level selective checkpointing on GPT-2 small as it is trained
# (docs/pytorch.md, "Op level"): token ids and labels in, the embeddings,
# 12 layers, final LayerNorm, tied head and cross-entropy loss traced op by op
# (costs in GFLOP, so that plans do not follow timing noise), the exact plans
# at per-block checkpointing's peak and at half of store-all's, the curves,
# and verify in PyTorch on one thread. Raw output under OUT.
#   PYTHON=/usr/bin/python3 bench/op_level_lm.sh OUT [INPUTS]
#   (INPUTS default python/examples/gpt.py:seq1024_inputs: batch 1, seq 1024;
#   MODEL=python/examples/gpt.py:tiny with INPUTS ...:tiny_inputs to try it fast)
set -eu
out=${1:?usage: bench/op_level_lm.sh OUT [INPUTS]}
inputs=${2:-python/examples/gpt.py:seq1024_inputs}
spec=${MODEL:-python/examples/gpt.py:model}
python=${PYTHON:-python3}
remat=${REMAT:-build/dev/app/cli/remat}
mkdir -p "$out"
export PYTHONPATH=python OPENBLAS_NUM_THREADS=1
model="$out/gpt2-small-ops.json"
start=$(date +%s)
"$python" -m remat_torch trace --granularity op --cost flops --model "$spec" \
    --inputs "$inputs" --threads 1 --progress -o "$model" 2>&1 | tee "$out/trace.txt"
echo "trace took $(($(date +%s) - start)) s" | tee -a "$out/trace.txt"
"$remat" plan --model "$model" --granularity op --budget 1TiB --json > "$out/named.json"
field() { "$python" -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$out/named.json"; }
half=$(field "d['store_all']['peak_bytes'] // 2")
per_block=$(field "next(n['peak_bytes'] for n in d['named'] if n['label'] == 'per-block checkpointing')")
# PyTorch's run of per-block checkpointing holds more than remat's count of it
# (docs/pytorch.md, "Op level"): where no plan runs within that, the refusal
# names the tightest budget that does.
if ! "$remat" plan --model "$model" --granularity op --budget "$per_block" > /dev/null \
        2> "$out/per-block-refused.txt"; then
    per_block=$(sed -n 's/.*--budget \([0-9]*\)$/\1/p' "$out/per-block-refused.txt")
fi
for name in half:$half per-block:$per_block; do
    budget=${name#*:}
    "$remat" plan --model "$model" --granularity op --budget "$budget" | tee "$out/plan-${name%%:*}.txt"
    "$remat" plan --model "$model" --granularity op --budget "$budget" --json \
        > "$out/plan-${name%%:*}.json"
done
"$remat" plan --model "$model" --granularity op --frontier --samples 12 | tee "$out/frontier.txt"
"$python" -m remat_torch verify --plan "$out/plan-per-block.json" --plan "$out/plan-half.json" --threads 1 \
    --progress 2>&1 | tee "$out/verify.txt"
