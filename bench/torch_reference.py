#!/usr/bin/env python3
"""remat vs PyTorch on the same network, in one session, on one GPU.

The network of docs/executor.md: n layers a_i = W_i tanh(a_(i-1)) + c_i, width
w, batch b, fp32, loss 1/2 ||a_n - target||^2. This script

  1. runs `remat measure --backend cuda` for store-all and for explicit
     checkpoints every K-th node (the same checkpoints PyTorch gets),
  2. runs the network in PyTorch eager (store-all: plain autograd) and with
     torch.utils.checkpoint over the same segments,
  3. times the 3n cuBLAS GEMMs of one step alone (torch.mm into preallocated
     outputs),

and prints peaks, times and the ratios the README quotes:
  remat peak / PyTorch peak (same checkpoints; target <= 1),
  remat store-all time / PyTorch eager time (target <= 1),
  remat store-all time / GEMMs alone (target <= 1.15).

What is compared: remat's measured_peak_bytes (node and workspace buffers, the
input batch a_0 included) against PyTorch's torch.cuda.max_memory_allocated()
minus what was allocated before the step (parameters, their preallocated
gradients and the target); the input batch is created inside the step on both
sides. PyTorch's figure also holds autograd's temporaries (for example the
w x w weight-gradient tensor it adds into .grad), which is part of the point.

Usage (on the GPU machine, after building remat with CUDA):
  python3 bench/torch_reference.py --remat build/release/app/cli/remat \\
      --n 64 --width 1024 --batch 256 --every 8 --repeat 5
Needs: python3, torch with CUDA. Exit status 2 on bad arguments or when
remat or CUDA is missing.
"""

import argparse
import json
import statistics
import subprocess
import sys


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--remat", required=True, help="path of the remat CLI built with CUDA")
    p.add_argument("--n", type=int, default=64)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--every", type=int, default=8, help="checkpoint every K-th node (1 <= K <= n)")
    p.add_argument("--repeat", type=int, default=5, help="timed steps; the median is reported")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    a = p.parse_args()
    for name, lo in (("n", 1), ("width", 1), ("batch", 1), ("repeat", 1), ("every", 1)):
        if getattr(a, name) < lo:
            p.error(f"--{name} must be >= {lo}, got {getattr(a, name)}")
    if a.every > a.n:
        p.error(f"--every must be at most --n ({a.n}), got {a.every}")
    return a


def checkpoint_list(n, every):
    """Forward nodes kept besides a_0: every K-th, strictly inside 1..n-1."""
    return list(range(every, n, every))


def run_remat(args, checkpoints):
    strategies = "store-all" + (",checkpoints" if checkpoints else "")
    cmd = [args.remat, "measure", "--backend", "cuda", "--strategy", strategies,
           "--n", str(args.n), "--width", str(args.width), "--batch", str(args.batch),
           "--repeat", str(args.repeat), "--json"]
    if checkpoints:
        cmd += ["--checkpoints", ",".join(map(str, checkpoints))]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        sys.exit(f"torch_reference: cannot run {args.remat}: {e}")
    if done.returncode != 0:
        sys.exit(f"torch_reference: remat failed ({done.returncode}): {done.stderr.strip()}")
    doc = json.loads(done.stdout)
    return doc, {row["strategy"]: row for row in doc["strategies"]}


def torch_session(args, checkpoints):
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

    def layers(a, first, last):
        for i in range(first, last):  # layers first+1..last (0-based weights index i)
            a = torch.addmm(biases[i], torch.tanh(a), weights[i].t())
        return a

    bounds = [0] + checkpoints + [n]

    def step(use_checkpoints):
        x = source.clone().requires_grad_()  # a_0, created inside the step as in remat
        a = x
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            if use_checkpoints:  # keeps only the segment's input, recomputes the rest in backward
                a = checkpoint(layers, a, lo, hi, use_reentrant=False)
            else:
                a = layers(a, lo, hi)
        loss = 0.5 * (a - target).pow(2).sum()
        loss.backward()
        return x.grad

    def measure(fn):
        fn()  # warm-up (cuBLAS handles, allocator caches)
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        fn()
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
        times = []
        for _ in range(args.repeat):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / 1000.0)
        return peak, statistics.median(times)

    store_peak, store_time = measure(lambda: step(False))
    ckpt_peak, ckpt_time = measure(lambda: step(True)) if checkpoints else (None, None)

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

    _, gemm_time = measure(gemms)
    return {
        "device": torch.cuda.get_device_name(dev),
        "torch": torch.__version__,
        "store_all_peak_bytes": store_peak,
        "store_all_seconds": store_time,
        "checkpoint_peak_bytes": ckpt_peak,
        "checkpoint_seconds": ckpt_time,
        "gemms_alone_seconds": gemm_time,
    }


def ratio(a, b):
    return None if a is None or b in (None, 0) else a / b


def main():
    args = parse_args()
    checkpoints = checkpoint_list(args.n, args.every)
    remat_doc, remat = run_remat(args, checkpoints)
    torch_res = torch_session(args, checkpoints)
    rs, rc = remat["store-all"], remat.get("checkpoints")
    result = {
        "command": " ".join(sys.argv),
        "network": remat_doc["network"],
        "remat_device": remat_doc["device"],
        "torch_device": torch_res["device"],
        "torch_version": torch_res["torch"],
        "checkpoints": checkpoints,
        "remat": {
            "store_all_peak_bytes": rs["measured_peak_bytes"],
            "store_all_seconds": rs["seconds_per_step"],
            "checkpoint_peak_bytes": rc["measured_peak_bytes"] if rc else None,
            "checkpoint_seconds": rc["seconds_per_step"] if rc else None,
        },
        "torch": torch_res,
        "ratios": {
            "store_all_peak_remat_over_torch": ratio(rs["measured_peak_bytes"], torch_res["store_all_peak_bytes"]),
            "checkpoint_peak_remat_over_torch": ratio(rc["measured_peak_bytes"] if rc else None,
                                                      torch_res["checkpoint_peak_bytes"]),
            "store_all_time_remat_over_torch": ratio(rs["seconds_per_step"], torch_res["store_all_seconds"]),
            "checkpoint_time_remat_over_torch": ratio(rc["seconds_per_step"] if rc else None,
                                                      torch_res["checkpoint_seconds"]),
            "store_all_time_remat_over_gemms_alone": ratio(rs["seconds_per_step"], torch_res["gemms_alone_seconds"]),
        },
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    net = result["network"]
    print(f"network n={net['n']} width={net['width']} batch={net['batch']} fp32; checkpoints every {args.every}")
    print(f"remat: {result['remat_device']}\ntorch {result['torch_version']}: {result['torch_device']}\n")
    rows = [("store-all peak bytes", rs["measured_peak_bytes"], torch_res["store_all_peak_bytes"]),
            ("store-all s/step", rs["seconds_per_step"], torch_res["store_all_seconds"])]
    if rc:
        rows += [("checkpoints peak bytes", rc["measured_peak_bytes"], torch_res["checkpoint_peak_bytes"]),
                 ("checkpoints s/step", rc["seconds_per_step"], torch_res["checkpoint_seconds"])]
    print(f"{'':26}{'remat':>16}{'pytorch':>16}{'remat/pytorch':>16}")
    for name, r, t in rows:
        print(f"{name:26}{r:>16.6g}{t:>16.6g}{ratio(r, t):>16.3f}")
    print(f"\ncuBLAS GEMMs alone: {torch_res['gemms_alone_seconds']:.6g} s; remat store-all / GEMMs = "
          f"{result['ratios']['store_all_time_remat_over_gemms_alone']:.3f} (target <= 1.15)")


if __name__ == "__main__":
    main()
