#!/bin/sh
# The graph planner on the shipped graphs (docs/planners.md, "Graphs: a MILP
# with a proven bound"): the 48-budget trade-off curve of each, timed, with
# what was proven at each point and dtr against it. Raw output under OUT.
#   bench/graph_planner.sh OUT [MODEL.json ...]
# Without model files: the shipped ResNet-18, U-Net, op-level GPT-2 block and
# the traced MobileNetV2 and nanoGPT (the table of docs/planners.md); with,
# those files instead (each named in OUT by its file name less .json).
set -eu
out=${1:?usage: bench/graph_planner.sh OUT [MODEL.json ...]}
shift
if [ $# -eq 0 ]; then
    set -- resources/models/resnet18-batch32.json resources/models/unet-batch8.json \
        resources/models/gpt2-block-ops.json resources/models/mobilenet-v2-torchvision-batch8-128px-traced.json \
        resources/models/nanogpt-2emb-layers4-d256-seq256-batch4-traced.json
fi
remat=${REMAT:-build/release/app/cli/remat}
mkdir -p "$out"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "remat: $remat"
    echo "models: $*"
} > "$out/machine.txt"
for file in "$@"; do
    model=$(basename "$file" .json)
    start=$(date +%s.%N)
    "$remat" plan --model "$file" --frontier --json > "$out/$model-frontier.json"
    end=$(date +%s.%N)
    echo "$model: $(echo "$end - $start" | bc) s" >> "$out/times.txt"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/machine.txt"
python3 - "$out" <<'PY' | tee "$out/summary.txt"
import json, re, sys, pathlib
out = pathlib.Path(sys.argv[1])
times = dict(l.split(": ") for l in (out / "times.txt").read_text().splitlines())
print("model | frontier time | curve points | proven optimal | largest stated gap | no bound | dtr / planner (min)")
for f in sorted(out.glob("*-frontier.json")):
    d = json.loads(f.read_text())
    name = f.name.replace("-frontier.json", "")
    budget = [p for p in d["curve"] if not p["named"]]
    optimal = sum("optimal (gap 0)" in p["description"] or "store-all fits" in p["description"] for p in budget)
    gaps = [float(m.group(1)) for p in budget for m in [re.search(r"within ([0-9.]+(?:e[-+][0-9]+)?) %", p["description"])] if m]
    unbounded = sum("no bound" in p["description"] for p in budget)
    ratios = [p["over_least"] for p in d["dtr_curve"] if p["over_least"] is not None]
    print(f"{name} | {times[name]} | {len(budget)} | {optimal} | {max(gaps) if gaps else 0:.2f} % | {unbounded} | "
          f"{min(ratios):.3f}")
PY
