#!/bin/sh
# The op-level MILP on Hugging Face blocks of 42 to 108 op nodes
# (docs/planners.md, "Op level: beyond enumeration"): each model of
# bench/models traced at op level with the venv's PyTorch 2, then its
# 10-budget curve from the least peak to store-all's, timed, with what was
# proven at each point. Raw output under OUT.
#   bench/op_milp_hf.sh OUT [FILE.py:CALLABLE ...]
# Without models: Llama and Gemma2 (every layer full attention, and Gemma2's
# own alternation of sliding-window and full layers), Qwen3 in pairs, and the
# encoder-decoders BART and T5.
set -eu
out=${1:?usage: bench/op_milp_hf.sh OUT [FILE.py:CALLABLE ...]}
shift
if [ $# -eq 0 ]; then
    set -- bench/models/hf_llama_eager.py:tiny bench/models/hf_gemma2_eager.py:tiny \
        bench/models/hf_gemma2_eager.py:tiny_sliding bench/models/hf_qwen3_eager_pairs.py:tiny \
        bench/models/hf_bart.py:tiny bench/models/hf_t5.py:tiny
fi
remat=${REMAT:-build/release/app/cli/remat}
mkdir -p "$out"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
    echo "remat: $remat, source $(git describe --always --dirty 2>/dev/null || echo unknown)"
    echo "models: $*"
} > "$out/machine.txt"
for spec in "$@"; do
    file=${spec%%:*}
    name=$(basename "$file" .py)-${spec##*:}
    PYTHONPATH=python:bench/models scripts/torch2-python -m remat_torch trace --granularity op --model "$spec" \
        --inputs "$file:tiny_inputs" -o "$out/$name-ops.json" > /dev/null
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    start=$(date +%s.%N)
    "$remat" plan --model "$out/$name-ops.json" --granularity op --frontier --samples 10 --json \
        > "$out/$name-frontier.json"
    end=$(date +%s.%N)
    echo "$name: $(echo "$end - $start" | bc) s, load before $load" >> "$out/times.txt"
done
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
times = dict(l.split(": ", 1) for l in (out / "times.txt").read_text().splitlines())
print("model | curve time | proven optimal | largest stated gap")
for name, time in times.items():
    curve = json.loads((out / f"{name}-frontier.json").read_text())["curve"]
    proofs = [p["op_level_proof"] for p in curve]
    proven = sum(p.startswith(("optimal", "exact")) for p in proofs)
    gaps = [float(p.split()[1]) for p in proofs if p.startswith("within")]
    print(f"{name} | {time} | {proven} of {len(curve)} | {max(gaps):.2f} %" if gaps else
          f"{name} | {time} | {proven} of {len(curve)} | -")
PY
