#!/bin/bash
# usage: repro.sh TREE OUTDIR  -- trace+plan+verify some torchvision models with TREE's bridge;
# plans: store-all, per-block, budget halfway, budget 3/4 toward per-block, and a tight budget
# (re-planned at its own predicted peak until the prediction equals the budget)
TREE=$1; O=$2; mkdir -p $O; R=/work/wt/bridge/build/dev/app/cli/remat
cd $TREE
for m in resnet18 mobilenet_v3_small efficientnet_b0 convnext_tiny swin_t; do
  PYTHONPATH=python OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice /usr/bin/python3 -m remat_torch trace --model torchvision:$m --input 2x3x96x96 --threads 1 -o $O/$m.json > /dev/null 2>$O/$m.err || { echo "$m trace failed"; continue; }
  $R plan --model $O/$m.json --strategy store-all --json > $O/$m.sa.json
  $R plan --model $O/$m.json --strategy periodic --every 1 --json > $O/$m.pb.json
  read B B2 < <(python3 -c "
import json; a=json.load(open('$O/$m.sa.json'))['plan']['peak_bytes']; b=json.load(open('$O/$m.pb.json'))['plan']['peak_bytes']; print((a+b)//2, (a+3*b)//4)")
  $R plan --model $O/$m.json --budget ${B}B --json > $O/$m.bu.json
  $R plan --model $O/$m.json --budget ${B2}B --json > $O/$m.bu2.json
  cp $O/$m.bu.json $O/$m.bu3.json
  for i in 1 2 3 4 5 6; do
    P=$(python3 -c "import json; print(json.load(open('$O/$m.bu3.json'))['apply']['predicted_peak_bytes'])")
    Bnow=$(python3 -c "import json; print(json.load(open('$O/$m.bu3.json'))['budget']['bytes'])")
    [ "$P" = "$Bnow" ] && break
    $R plan --model $O/$m.json --budget ${P}B --json > $O/$m.bu3.json
  done
  PYTHONPATH=python OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice /usr/bin/python3 -m remat_torch verify --threads 1 --plan $O/$m.sa.json --plan $O/$m.pb.json --plan $O/$m.bu.json --plan $O/$m.bu2.json --plan $O/$m.bu3.json --json > $O/$m.verify.json 2>$O/$m.verify.err
  python3 - $O/$m <<'PY'
import json,sys
base=sys.argv[1]
r=json.load(open(base+".verify.json"))
plans=[None]+[json.load(open(base+"."+k+".json")) for k in ("sa","pb","bu","bu2","bu3")]
print(base.split("/")[-1])
for run,plan in zip(r["runs"],plans):
    p,o=run["predicted_peak_bytes"],run["observed_peak_bytes"]
    b=(plan or {}).get("budget",{}).get("bytes") if plan else None
    print(f"  {run['plan'][:44]:44} pred {p} obs {o} {100*(o-p)/p:+.3f}% budget {b} {'' if b is None else ('OK' if o<=b else 'OVER by %d B' % (o-b))}")
PY
done
