#!/usr/bin/env python3
"""remat's offload-all vs PyTorch's save_on_cpu on CUDA, the same network and clock.

The network of docs/executor.md: n layers a_i = W_i tanh(a_(i-1)) + c_i, width
w, batch b, fp32 (no TF32), loss 1/2 ||a_n - target||^2.

  * remat: `remat measure --backend cuda --strategy store-all,offload-all
    --verify --json` (offload-all: every activation but a_0, a_(n-1) and a_n
    copied to pinned host memory after its forward use on a copy stream,
    prefetched one op before its gradient; docs/executor.md, "Offloading").
  * PyTorch: the same step plainly and inside
    torch.autograd.graph.save_on_cpu(pin_memory=True), which copies every
    tensor autograd saves (each tanh output, and the weights the GEMMs save)
    to pinned host memory during the forward and back during the backward,
    on the compute stream. Its gradients should equal its plain step's bit for
    bit (reported; a difference beyond 1e-3 of the largest stops the script).
  * Timing: one warm-up step, then --repeat steps between CUDA events; the
    median. Peaks: torch.cuda.max_memory_allocated() minus what was allocated
    before the step (weights and their gradients, allocated by the warm-up,
    are the constant part; the peak is activations), against remat's
    pool high-water mark (allocator_peak_bytes).

Reported, not asserted: each side's offload step over its own plain step,
remat's offload-all time and device peak over save_on_cpu's.

Usage (on the GPU machine; scripts/gpu-check.sh runs it):
  python3 bench/torch_offload_reference.py --remat build/gpu-check/app/cli/remat \\
      --n 16 --width 4096 --batch 1024 --repeat 10 [--json]
  python3 bench/torch_offload_reference.py --summarize result.json
Exit status: 0 done, 1 remat or CUDA failed or the sides disagree, 2 bad
arguments, 77 skipped (no PyTorch, or no CUDA device for it).
"""

import argparse
import contextlib
import json
import statistics
import subprocess
import sys

SKIP = 77


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--remat", help="path of the remat CLI built with CUDA")
    p.add_argument("--n", type=int, default=16)
    p.add_argument("--width", type=int, default=4096)
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--repeat", type=int, default=10)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--summarize", metavar="FILE", help="one line from a --json result")
    a = p.parse_args(argv)
    if a.summarize is None:
        if not a.remat:
            p.error("--remat is required")
        for name in ("n", "width", "batch", "repeat"):
            if getattr(a, name) < 1:
                p.error(f"--{name} must be at least 1, got {getattr(a, name)}")
    return a


def summarize(path):
    with open(path) as f:
        r = json.load(f)
    if "skipped" in r:
        return "skipped: " + r["skipped"]
    return (f"offload-all / save_on_cpu: time {r['ratios']['time_offload']:.3f}, peak "
            f"{r['ratios']['peak_offload']:.3f}; slowdown over the plain step: remat "
            f"{r['remat']['offload_over_plain']:.3f}, torch {r['torch']['offload_over_plain']:.3f}")


def run_remat(a):
    cmd = [a.remat, "measure", "--backend", "cuda", "--strategy", "store-all,offload-all", "--n", str(a.n),
           "--width", str(a.width), "--batch", str(a.batch), "--repeat", str(a.repeat), "--verify", "--json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"remat failed ({p.returncode}): {p.stderr.strip()}")
    rows = {r["strategy"]: r for r in json.loads(p.stdout)["strategies"]}
    return cmd, rows["store-all"], rows["offload-all"]


def torch_side(torch, a):
    dev = torch.device("cuda")
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator(device="cpu").manual_seed(1)
    w, b = a.width, a.batch
    weights = [(torch.randn(w, w, generator=g) / w ** 0.5).to(dev).requires_grad_() for _ in range(a.n)]
    biases = [(torch.randn(w, generator=g) * 0.1).to(dev).requires_grad_() for _ in range(a.n)]
    x = torch.randn(b, w, generator=g).to(dev)
    target = torch.randn(b, w, generator=g).to(dev)

    # The gradients stay allocated between steps, as remat's do (it keeps
    # them outside its activation peak): zeroed, not dropped, so the peak
    # below counts what each step adds, activations and their copies.
    def step(offload):
        for p in weights + biases:
            if p.grad is not None:
                p.grad.zero_()
        ctx = torch.autograd.graph.save_on_cpu(pin_memory=True) if offload else contextlib.nullcontext()
        with ctx:
            h = x
            for W, c in zip(weights, biases):
                h = torch.addmm(c, torch.tanh(h), W.t())
            loss = 0.5 * ((h - target) ** 2).sum()
        loss.backward()

    def measure(offload):
        step(offload)  # warm-up; allocates the gradients
        torch.cuda.synchronize()
        torch.cuda.empty_cache()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        step(offload)
        torch.cuda.synchronize()
        peak = torch.cuda.max_memory_allocated() - base
        grads = [p.grad.clone() for p in weights + biases]
        times = []
        for _ in range(a.repeat):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            step(offload)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop) / 1000.0)
        return statistics.median(times), peak, grads

    plain_s, plain_peak, plain_grads = measure(False)
    off_s, off_peak, off_grads = measure(True)
    # The copies are exact; cuBLAS may still pick other kernels for other
    # addresses, so a tiny difference is reported, a large one stops.
    diff = max(float((p - q).abs().max()) for p, q in zip(plain_grads, off_grads))
    largest = max(float(p.abs().max()) for p in plain_grads)
    if diff > 1e-3 * max(1.0, largest):
        sys.exit(f"PyTorch's save_on_cpu gradients differ from its plain step's by {diff}: not the same computation")
    return {"plain_seconds": plain_s, "plain_peak_allocated_bytes": plain_peak, "save_on_cpu_seconds": off_s,
            "save_on_cpu_peak_allocated_bytes": off_peak, "offload_over_plain": off_s / plain_s,
            "save_on_cpu_max_grad_diff_vs_plain": diff,
            "save_on_cpu_gradients_bitwise_equal_to_plain": diff == 0.0}


def main(argv=None):
    a = parse_args(argv)
    if a.summarize:
        print(summarize(a.summarize))
        return 0
    try:
        import torch
    except ImportError:
        print(json.dumps({"skipped": "PyTorch is not installed"}) if a.json else "skipped: PyTorch is not installed")
        return SKIP
    versions = {"python": sys.version.split()[0], "torch": torch.__version__, "torch_cuda": torch.version.cuda}
    if not torch.cuda.is_available():
        reason = f"PyTorch {torch.__version__} sees no CUDA device"
        print(json.dumps({"skipped": reason, "versions": versions}) if a.json else "skipped: " + reason)
        return SKIP
    versions["device"] = torch.cuda.get_device_name(0)
    cmd, store, offload = run_remat(a)
    t = torch_side(torch, a)
    remat = {"command": " ".join(cmd), "store_all_seconds": store["seconds_per_step"],
             "offload_all_seconds": offload["seconds_per_step"],
             "store_all_allocator_peak_bytes": store["allocator_peak_bytes"],
             "offload_all_allocator_peak_bytes": offload["allocator_peak_bytes"],
             "offload_all_measured_peak_host_bytes": offload["measured_peak_host_bytes"],
             "offload_all_transfer_bytes": offload["transfer_bytes"],
             "offload_over_plain": offload["seconds_per_step"] / store["seconds_per_step"]}
    result = {"versions": versions, "network": {"n": a.n, "width": a.width, "batch": a.batch, "dtype": "fp32"},
              "repeat": a.repeat, "remat": remat, "torch": t,
              "ratios": {"time_offload": remat["offload_all_seconds"] / t["save_on_cpu_seconds"],
                         "peak_offload": remat["offload_all_allocator_peak_bytes"] /
                         t["save_on_cpu_peak_allocated_bytes"],
                         "time_plain": remat["store_all_seconds"] / t["plain_seconds"]}}
    if a.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"versions: {versions}")
        print(f"remat store-all {remat['store_all_seconds'] * 1e3:.3f} ms, offload-all "
              f"{remat['offload_all_seconds'] * 1e3:.3f} ms, peak {remat['offload_all_allocator_peak_bytes']} B")
        print(f"torch plain {t['plain_seconds'] * 1e3:.3f} ms, save_on_cpu {t['save_on_cpu_seconds'] * 1e3:.3f} ms, "
              f"peak {t['save_on_cpu_peak_allocated_bytes']} B")
        print(f"ratios (remat / torch): {result['ratios']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
