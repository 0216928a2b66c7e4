#!/usr/bin/env python3
"""remat vs PyTorch on the same network, the same checkpoints, the same clock.

The network of docs/executor.md: n layers a_i = W_i tanh(a_(i-1)) + c_i, width
w, batch b, fp32 (no TF32 on either side), loss 1/2 ||a_n - target||^2.

Like with like:
  * Checkpoints: remat runs `--strategy checkpoints` with a_K, a_2K, ... kept;
    PyTorch wraps the same segments in torch.utils.checkpoint. Whether the last
    segment (after the last checkpoint) is recomputed is read from remat's own
    forward_evaluations, and PyTorch does the same; both sides' forward
    evaluations are counted (PyTorch's by counting layer calls) and must agree,
    or the script stops.
  * Timing: one untimed warm-up step, one untimed step that measures memory,
    then --repeat steps each between two CUDA events with the device idle at
    the start; the median. remat does exactly this (exec::measure).
  * Peaks, counter to counter, activations only (the constant part, parameters
    and their preallocated gradients and the target, is outside on both sides):
      remat allocator_peak_bytes (the pool's used-memory high-water mark)
        vs torch.cuda.max_memory_allocated() minus what was allocated before;
      remat device_peak_bytes (cudaMemGetInfo growth after trimming the pool)
        vs torch.cuda.max_memory_reserved() minus the reserve after empty_cache().
    PyTorch's allocated figure also holds autograd's temporaries (e.g. each
    w x w weight gradient before it is added into .grad): that is part of the race.
  * GEMMs alone: the 3n cuBLAS GEMMs of one store-all step (torch.mm into
    preallocated outputs), timed the same way.

Ratios (remat / PyTorch): peak and step time for store-all and checkpoints;
remat's store-all step over the GEMMs alone. Targets: peaks <= 1, store-all
time <= 1, store-all / GEMMs <= 1.15. They are reported, not asserted.

Usage (on the GPU machine; scripts/gpu-check.sh runs it):
  python3 bench/torch_reference.py --remat build/gpu-check/app/cli/remat \\
      --n 64 --width 1024 --batch 256 --every 8 --repeat 20 [--json]
  python3 bench/torch_reference.py --summarize result.json   # one line from a --json result
Needs: python3, torch with CUDA. Exit status 2 on bad arguments, 1 when remat
or CUDA fails or the two sides would not run the same computation.

The GEMMs of this race run on cuBLAS on both sides; the script still prints
which CPU BLAS PyTorch loaded (bench/torch_blas.py), as every PyTorch
comparison here does. CPU races are bench/torch_transformer_reference.py's,
which refuses a ratio against the reference BLAS.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_blas  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--remat", help="path of the remat CLI built with CUDA")
    p.add_argument("--n", type=int, default=64)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--every", type=int, default=8, help="checkpoint every K-th node (1 <= K < n)")
    p.add_argument("--repeat", type=int, default=5, help="timed steps; the median is reported")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    p.add_argument("--summarize", metavar="FILE", help="print one line of ratios from a --json result and exit")
    a = p.parse_args(argv)
    if a.summarize:
        return a
    if not a.remat:
        p.error("--remat is required (the remat CLI built with CUDA)")
    for name, lo in (("n", 2), ("width", 1), ("batch", 1), ("repeat", 1), ("every", 1)):
        if getattr(a, name) < lo:
            p.error(f"--{name} must be >= {lo}, got {getattr(a, name)}")
    if a.every >= a.n:
        p.error(f"--every must be below --n ({a.n}) so that there is a checkpoint, got {a.every}")
    return a


def checkpoint_list(n, every):
    """Forward nodes kept besides a_0: every K-th, strictly inside 1..n-1."""
    return list(range(every, n, every))


def forward_evaluations(n, checkpoints, last_recomputed):
    """n forwards, plus the interior of every segment that is recomputed."""
    bounds = [0] + checkpoints + [n]
    segments = list(zip(bounds[:-1], bounds[1:]))
    if not last_recomputed:
        segments = segments[:-1]
    return n + sum(hi - lo - 1 for lo, hi in segments)


def run_remat(args, checkpoints):
    cmd = [args.remat, "measure", "--backend", "cuda", "--strategy", "store-all,checkpoints",
           "--checkpoints", ",".join(map(str, checkpoints)),
           "--n", str(args.n), "--width", str(args.width), "--batch", str(args.batch),
           "--repeat", str(args.repeat), "--json"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        sys.exit(f"torch_reference: cannot run {args.remat}: {e}")
    if done.returncode != 0:
        sys.exit(f"torch_reference: remat failed ({done.returncode}): {done.stderr.strip()}")
    doc = json.loads(done.stdout)
    return doc, {row["strategy"]: row for row in doc["strategies"]}


def torch_session(args, checkpoints, last_recomputed):
    import torch
    from torch.utils.checkpoint import checkpoint

    if not torch.cuda.is_available():
        sys.exit("torch_reference: CUDA not available to PyTorch")
    # The same arithmetic as remat: fp32 GEMMs without TF32.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.device("cuda")
    n, w, b = args.n, args.width, args.batch
    gen = torch.Generator(device=dev).manual_seed(1)
    scale = 1.0 / w ** 0.5
    # Batch-major (b x w) with x @ W^T: the same sizes and FLOPs as remat's w x b.
    weights = [((torch.rand(w, w, device=dev, generator=gen) * 2 - 1) * scale).requires_grad_() for _ in range(n)]
    biases = [((torch.rand(w, device=dev, generator=gen) * 2 - 1) * 0.1).requires_grad_() for _ in range(n)]
    source = torch.rand(b, w, device=dev, generator=gen) * 2 - 1
    target = torch.rand(b, w, device=dev, generator=gen) * 2 - 1
    for p in weights + biases:
        p.grad = torch.zeros_like(p)  # preallocated, like remat's gradient buffers

    evaluations = [0]

    def layers(a, first, last):
        for i in range(first, last):  # layers first+1..last (0-based weights index i)
            a = torch.addmm(biases[i], torch.tanh(a), weights[i].t())
            evaluations[0] += 1
        return a

    bounds = [0] + checkpoints + [n]
    segments = list(zip(bounds[:-1], bounds[1:]))

    def step(use_checkpoints):
        x = source.clone().requires_grad_()  # a_0, created inside the step as in remat
        a = x
        for k, (lo, hi) in enumerate(segments):
            recomputed = use_checkpoints and (last_recomputed or k < len(segments) - 1)
            if recomputed:  # keeps only the segment's input, recomputes the rest in backward
                a = checkpoint(layers, a, lo, hi, use_reentrant=False)
            else:
                a = layers(a, lo, hi)
        loss = 0.5 * (a - target).pow(2).sum()
        loss.backward()
        return x.grad

    def measure(fn):
        fn()  # warm-up (cuBLAS handles, allocator caches), as remat's warm-up step
        torch.cuda.synchronize()
        torch.cuda.empty_cache()  # as remat trims its pool before the probe step
        base_allocated = torch.cuda.memory_allocated()
        base_reserved = torch.cuda.memory_reserved()
        torch.cuda.reset_peak_memory_stats()
        evaluations[0] = 0
        fn()
        torch.cuda.synchronize()
        counted = evaluations[0]
        allocated = torch.cuda.max_memory_allocated() - base_allocated
        reserved = torch.cuda.max_memory_reserved() - base_reserved
        times = []
        for _ in range(args.repeat):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()  # the device idle at the start, as in remat's runStep
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / 1000.0)
        return {"peak_allocated_bytes": allocated, "peak_reserved_growth_bytes": reserved,
                "seconds": statistics.median(times), "forward_evaluations": counted}

    store_all = measure(lambda: step(False))
    with_checkpoints = measure(lambda: step(True))

    # The GEMMs of one store-all step alone: n forward (b x w by w x w), then
    # per layer the weight gradient (w x b by b x w) and the input gradient.
    t = torch.tanh(source)
    y, g, dw = torch.empty_like(t), target.clone(), torch.empty(w, w, device=dev)

    def gemms():
        with torch.no_grad():
            for i in range(n):
                torch.mm(t, weights[i].t(), out=y)
            for i in reversed(range(n)):
                torch.mm(g.t(), t, out=dw)
                torch.mm(g, weights[i], out=y)

    gemm_time = measure(gemms)["seconds"]
    return {
        "device": torch.cuda.get_device_name(dev),
        "cuda_runtime": torch.version.cuda,
        "blas": torch_blas.describe(torch),
        "torch": torch.__version__,
        "store_all": store_all,
        "checkpoints": with_checkpoints,
        "gemms_alone_seconds": gemm_time,
    }


def ratio(a, b):
    return None if a is None or b in (None, 0) else a / b


def remat_side(row):
    return {"predicted_peak_bytes": row["predicted_peak_bytes"],
            "counted_peak_bytes": row["measured_peak_bytes"],
            "allocator_peak_bytes": row["allocator_peak_bytes"],
            "device_peak_bytes": row["device_peak_bytes"],
            "seconds": row["seconds_per_step"],
            "forward_evaluations": row["forward_evaluations"]}


def compare(remat, torch_side):
    return {"allocator_peak_over_max_allocated": ratio(remat["allocator_peak_bytes"],
                                                       torch_side["peak_allocated_bytes"]),
            "device_peak_over_max_reserved": ratio(remat["device_peak_bytes"], torch_side["peak_reserved_growth_bytes"]),
            "time": ratio(remat["seconds"], torch_side["seconds"])}


def summarize(result):
    r = result["ratios"]

    def f(x):
        return "n/a" if x is None else f"{x:.3f}"

    return (f"remat/pytorch store-all: peak {f(r['store_all']['allocator_peak_over_max_allocated'])}, "
            f"device {f(r['store_all']['device_peak_over_max_reserved'])}, time {f(r['store_all']['time'])}; "
            f"checkpoints: peak {f(r['checkpoints']['allocator_peak_over_max_allocated'])}, "
            f"device {f(r['checkpoints']['device_peak_over_max_reserved'])}, time {f(r['checkpoints']['time'])}; "
            f"store-all/GEMMs {f(r['store_all_time_over_gemms_alone'])}")


def main():
    args = parse_args()
    if args.summarize:
        with open(args.summarize) as f:
            print(summarize(json.load(f)))
        return
    checkpoints = checkpoint_list(args.n, args.every)
    remat_doc, rows = run_remat(args, checkpoints)
    remat = {"store_all": remat_side(rows["store-all"]), "checkpoints": remat_side(rows["checkpoints"])}
    evaluations = remat["checkpoints"]["forward_evaluations"]
    if evaluations == forward_evaluations(args.n, checkpoints, True):
        last_recomputed = True
    elif evaluations == forward_evaluations(args.n, checkpoints, False):
        last_recomputed = False
    else:
        sys.exit(f"torch_reference: remat's checkpoints schedule makes {evaluations} forward evaluations, which "
                 "matches no segment-wise recomputation PyTorch can reproduce")
    torch_res = torch_session(args, checkpoints, last_recomputed)
    for name in ("store_all", "checkpoints"):
        mine, theirs = remat[name]["forward_evaluations"], torch_res[name]["forward_evaluations"]
        if mine != theirs:
            sys.exit(f"torch_reference: {name}: remat makes {mine} forward evaluations, PyTorch {theirs}; "
                     "not the same computation")
    result = {
        "command": " ".join(sys.argv),
        "network": remat_doc["network"],
        "remat_device": remat_doc["device"],
        "torch_device": torch_res["device"],
        "torch_version": torch_res["torch"],
        "checkpoints": checkpoints,
        "last_segment_recomputed": last_recomputed,
        "repeat": args.repeat,
        "remat": remat,
        "torch": torch_res,
        "ratios": {
            "store_all": compare(remat["store_all"], torch_res["store_all"]),
            "checkpoints": compare(remat["checkpoints"], torch_res["checkpoints"]),
            "store_all_time_over_gemms_alone": ratio(remat["store_all"]["seconds"], torch_res["gemms_alone_seconds"]),
        },
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    net = result["network"]
    print(f"network n={net['n']} width={net['width']} batch={net['batch']} fp32; checkpoints every {args.every}"
          f" (last segment {'recomputed' if last_recomputed else 'kept'}, as remat does)")
    print(f"remat: {result['remat_device']}\ntorch {result['torch_version']}: {result['torch_device']}")
    print(f"GEMMs on cuBLAS (CUDA {torch_res['cuda_runtime']}) on both sides; on the CPU, "
          f"{torch_blas.summary(torch_res['blas'])}\n")
    print(f"{'':42}{'remat':>16}{'pytorch':>16}{'remat/pytorch':>16}")
    for name, label in (("store_all", "store-all"), ("checkpoints", "checkpoints")):
        r, t = remat[name], torch_res[name]
        for what, mine, theirs in (("pool peak / max allocated", r["allocator_peak_bytes"], t["peak_allocated_bytes"]),
                                   ("device growth / max reserved", r["device_peak_bytes"],
                                    t["peak_reserved_growth_bytes"]),
                                   ("s/step", r["seconds"], t["seconds"])):
            q = ratio(mine, theirs)
            print(f"{label + ' ' + what:42}{mine:>16.6g}{theirs:>16.6g}{'n/a' if q is None else f'{q:.3f}':>16}")
    print(f"\ncuBLAS GEMMs alone: {torch_res['gemms_alone_seconds']:.6g} s; remat store-all / GEMMs = "
          f"{result['ratios']['store_all_time_over_gemms_alone']:.3f} (target <= 1.15)")


if __name__ == "__main__":
    main()
