#!/usr/bin/env python3
"""remat's transformer vs the same layers in PyTorch, same weights, same run.

The network of docs/executor.md ("The transformer network"): L pre-LN GPT-2
encoder layers, fp32, no dropout, no mask, loss 1/2 ||a_L - target||^2. This
script

  1. runs `remat measure --network transformer --json` for store-all and for
     per-layer checkpointing (periodic --every 1),
  2. regenerates remat's parameters bit for bit (the splitmix64 hash of
     core/executor/network.cpp) and builds the same layers in PyTorch: eager
     attention as GPT-2 (matmul, softmax, matmul), F.gelu(approximate="tanh"),
  3. compares, per layer and per step:
     - bytes saved per layer: PyTorch's saved tensors seen by
       torch.autograd.graph.saved_tensors_hooks, each storage counted once,
       parameters excluded (the layer input is among them) vs remat's
       output + saved bytes of one layer;
     - peak activation bytes of a step without and with per-layer
       checkpointing (torch.utils.checkpoint, use_reentrant=False);
     - step time: in --rounds rounds that take turns (remat's --repeat steps,
       then PyTorch's), the median of each round; each side's time is the
       median of its rounds, the ratio the median of the rounds' ratios, so
       that a burst of other work on the machine spoils a round, not a side;
     - gradients (per tensor: L2 norm and sum, remat's JSON vs torch's).

Threads: remat runs --threads N (default every core). PyTorch has two pools,
its own (torch.set_num_threads) and its BLAS's (OPENBLAS_NUM_THREADS, set
before torch loads: Debian's OpenBLAS otherwise runs every core whatever
set_num_threads says), and they fight when both take every core. So at N > 1
the script runs itself once per split (torch N / BLAS 1, torch 1 / BLAS N,
torch N / BLAS N; bench/torch_threads.py), each in its own process with remat
in its rounds, and takes the split whose PyTorch step was fastest as the peer
of each step, naming it. --split T,B runs one split only (the full report).

The BLAS: the script prints which BLAS PyTorch computes with (BLAS_INFO, the
libraries this process mapped, OpenBLAS's own report; bench/torch_blas.py)
and, on the CPU, refuses a time ratio against the reference BLAS (netlib),
saying why: that race measures the BLAS. It also times OpenBLAS's sgemm
(torch.mm) on the layer's linear GEMMs at the same thread count, and gives
each step's FLOP rate as a share of it.

Peak counter, PyTorch side. CUDA: torch.cuda.max_memory_allocated() minus
what was allocated before the step. CPU: torch.profiler with
profile_memory=True, which charges every allocation and free of the CPU
allocator to the op running at the time: each op's own bytes (children
excluded) summed in the order the ops started, highest running total. It
sees op granularity, so a transient inside one op that is freed before the
op ends is missed: on the CPU PyTorch's figure is a lower bound. Both
exclude what exists before the step (parameters, their gradients already
allocated by a warm-up step and zeroed in place, input and target); the
input gradient (b_0 in remat) is allocated inside the step on both sides.
remat's peak counts a_0 (one h x s b buffer) besides; the script prints it.

Usage:
  /usr/bin/python3 bench/torch_transformer_reference.py --remat build/release/app/cli/remat \\
      --layers 4 --hidden 256 --heads 4 --seq 128 --batch 4 [--threads N] [--device cuda]
Needs python3 with torch (Debian python3-torch 1.13 on libopenblas0-pthread,
or PyTorch 2.x) and numpy. Exit status 2 on bad arguments or when remat fails.
"""

import argparse
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_blas  # noqa: E402
import torch_threads  # noqa: E402
from torch_cpu_peak import cpu_step_peak  # noqa: E402

LABELS = ("store_all", "per_layer_checkpointing")
THREADS = torch_threads.threads_from_argv(sys.argv, torch_blas.available_cores())
if __name__ == "__main__" and torch_threads.races_every_split(sys.argv, THREADS):
    torch_threads.race_every_split(os.path.abspath(__file__), sys.argv[1:], LABELS, THREADS)
    sys.exit(0)
# Before torch loads its BLAS, which reads its thread count once.
torch_threads.configure(torch_threads.split_from_argv(sys.argv) or (THREADS, THREADS))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

TENSORS = ["qkv_weight", "proj_weight", "fc1_weight", "fc2_weight", "ln1_gamma", "ln1_beta", "qkv_bias",
           "proj_bias", "ln2_gamma", "ln2_beta", "fc1_bias", "fc2_bias"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--remat", required=True, help="path of the remat CLI")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--repeat", type=int, default=5, help="timed steps per round and side; the median is taken")
    p.add_argument("--rounds", type=int, default=3,
                   help="rounds in which remat and PyTorch take turns; the median of the rounds is reported")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--threads", type=int, default=torch_blas.available_cores(),
                   help="CPU cores for both sides: remat's --threads, PyTorch's split of them (default: every core)")
    p.add_argument("--split", type=torch_threads.parse_split, default=None, metavar="TORCH,BLAS",
                   help="PyTorch's own threads and its BLAS's, each <= --threads (default: every split, the "
                        "fastest is the peer)")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    a = p.parse_args()
    for name in ("layers", "hidden", "heads", "seq", "batch", "repeat", "rounds", "threads"):
        if getattr(a, name) < 1:
            p.error(f"--{name} must be >= 1, got {getattr(a, name)}")
    a.split = a.split or (a.threads, a.threads)
    if max(a.split) > a.threads:
        p.error(f"--split {a.split[0]},{a.split[1]} uses more than --threads {a.threads} cores")
    if a.hidden % a.heads:
        p.error(f"--hidden {a.hidden} is not divisible by --heads {a.heads}")
    return a


# --- remat's parameters, bit for bit (core/executor/network.cpp, transformer.cpp) ---

M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def mix(x):
    """splitmix64's finaliser on uint64 arrays (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def fill_uniform(count, seed, stream, scale):
    base = mix(np.array([np.uint64(seed) ^ mix(np.array([stream], dtype=np.uint64))[0]], dtype=np.uint64))[0]
    with np.errstate(over="ignore"):
        k = base + np.arange(count, dtype=np.uint64)
    bits = (mix(k) >> np.uint64(41)).astype(np.uint32)
    unit = bits.astype(np.float32) * np.float32(1.0 / 8388608.0)
    return (np.float32(2.0) * unit - np.float32(1.0)) * np.float32(scale)


def remat_parameters(args, seed=1):
    h = args.hidden
    fan_h = np.float32(1.0) / np.sqrt(np.float32(h))
    fan_4h = np.float32(1.0) / np.sqrt(np.float32(4 * h))
    # (name, out, in or None for a vector, scale, gamma)
    specs = [("qkv_weight", 3 * h, h, fan_h, False), ("proj_weight", h, h, fan_h, False),
             ("fc1_weight", 4 * h, h, fan_h, False), ("fc2_weight", h, 4 * h, fan_4h, False),
             ("ln1_gamma", h, None, 0.1, True), ("ln1_beta", h, None, 0.1, False),
             ("qkv_bias", 3 * h, None, 0.1, False), ("proj_bias", h, None, 0.1, False),
             ("ln2_gamma", h, None, 0.1, True), ("ln2_beta", h, None, 0.1, False),
             ("fc1_bias", 4 * h, None, 0.1, False), ("fc2_bias", h, None, 0.1, False)]
    layers = []
    for layer in range(1, args.layers + 1):
        tensors = {}
        for k, (name, rows, cols, scale, gamma) in enumerate(specs):
            stream = 1000 + 16 * layer + k
            values = fill_uniform(rows * (cols or 1), seed, stream, scale)
            if gamma:
                values = values + np.float32(1.0)
            # remat stores an out x in matrix column-major: row-major (in, out).
            tensors[name] = values.reshape(cols, rows).T.copy() if cols else values
        layers.append(tensors)
    n = args.seq * args.batch * args.hidden
    shape = (args.batch, args.seq, args.hidden)  # token = batch * seq + position, features contiguous
    return layers, fill_uniform(n, seed, 3, 1.0).reshape(shape), fill_uniform(n, seed, 4, 1.0).reshape(shape)


class Layer(torch.nn.Module):
    """One pre-LN GPT-2 block as remat runs it (core/executor/transformer.h)."""

    def __init__(self, t, heads, device):
        super().__init__()
        h = t["ln1_gamma"].shape[0]
        self.heads = heads
        self.ln1 = torch.nn.LayerNorm(h, eps=1e-5)
        self.qkv = torch.nn.Linear(h, 3 * h)
        self.proj = torch.nn.Linear(h, h)
        self.ln2 = torch.nn.LayerNorm(h, eps=1e-5)
        self.fc1 = torch.nn.Linear(h, 4 * h)
        self.fc2 = torch.nn.Linear(4 * h, h)
        pairs = [(self.ln1.weight, "ln1_gamma"), (self.ln1.bias, "ln1_beta"), (self.qkv.weight, "qkv_weight"),
                 (self.qkv.bias, "qkv_bias"), (self.proj.weight, "proj_weight"), (self.proj.bias, "proj_bias"),
                 (self.ln2.weight, "ln2_gamma"), (self.ln2.bias, "ln2_beta"), (self.fc1.weight, "fc1_weight"),
                 (self.fc1.bias, "fc1_bias"), (self.fc2.weight, "fc2_weight"), (self.fc2.bias, "fc2_bias")]
        self.names = {}
        with torch.no_grad():
            for param, name in pairs:
                param.copy_(torch.from_numpy(t[name]))
                self.names[name] = param
        self.to(device)

    def forward(self, x):
        b, s, h = x.shape
        d = h // self.heads
        q, k, v = self.qkv(self.ln1(x)).split(h, dim=2)
        q = q.view(b, s, self.heads, d).transpose(1, 2)
        k = k.view(b, s, self.heads, d).transpose(1, 2)
        v = v.view(b, s, self.heads, d).transpose(1, 2)
        att = torch.softmax((q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(d)), dim=-1)
        ctx = (att @ v).transpose(1, 2).contiguous().view(b, s, h)
        x = x + self.proj(ctx)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)), approximate="tanh"))


def step(layers, x, target, per_layer_checkpoint):
    for layer in layers:
        x = checkpoint(layer, x, use_reentrant=False) if per_layer_checkpoint else layer(x)
    loss = 0.5 * ((x - target) ** 2).sum()
    loss.backward()
    return loss


def saved_bytes_per_layer(layers, x):
    """Bytes PyTorch's autograd saves for each layer: each storage once, parameters excluded."""
    params = {p.data_ptr() for layer in layers for p in layer.parameters()}
    counts = []
    for layer in layers:
        seen = {}

        def pack(t):
            storage = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage().untyped()
            ptr = storage.data_ptr()
            if ptr not in params:
                seen[ptr] = storage.nbytes()
            return t

        with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            y = layer(x)
        counts.append(sum(seen.values()))
        x = y.detach().requires_grad_(True)
    return counts


def peak_bytes(args, layers, x, target, per_layer_checkpoint):
    """Highest bytes allocated during one step above what existed before it."""
    if args.device == "cuda":
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        step(layers, x, target, per_layer_checkpoint)
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - before
    return cpu_step_peak(torch, lambda: step(layers, x, target, per_layer_checkpoint))


def zero_grads(layers, x):
    for layer in layers:
        for p in layer.parameters():
            p.grad.zero_()
    x.grad = None  # allocated inside the step, as remat's b_0


def median_step_seconds(args, layers, x, target, per_layer_checkpoint):
    times = []
    for _ in range(args.repeat):
        zero_grads(layers, x)
        if args.device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        step(layers, x, target, per_layer_checkpoint)
        if args.device == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def run_remat(args):
    cmd = [args.remat, "measure", "--network", "transformer", "--backend", args.device, "--strategy",
           "store-all,periodic", "--every", "1", "--layers", str(args.layers), "--hidden", str(args.hidden),
           "--heads", str(args.heads), "--seq", str(args.seq), "--batch", str(args.batch), "--repeat",
           str(args.repeat), "--verify", "--json"] + (["--threads", str(args.threads)] if args.device == "cpu" else [])
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        sys.exit(f"torch_transformer_reference: cannot run {args.remat}: {e}")
    if done.returncode != 0:
        sys.exit(f"torch_transformer_reference: remat failed ({done.returncode}): {done.stderr.strip()}")
    doc = json.loads(done.stdout)
    return doc, {row["strategy"]: row for row in doc["strategies"]}


def gradient_agreement(doc, layers):
    """Largest relative difference of any tensor's L2 norm, and of its sum (relative to its
    largest entry times its size, as sums cancel), remat vs torch."""
    worst = {"l2": 0.0, "sum": 0.0}
    for entry in doc["gradients"]:
        g = layers[entry["layer"] - 1].names[entry["tensor"]].grad.double()
        l2, total = g.norm().item(), g.sum().item()
        worst["l2"] = max(worst["l2"], abs(entry["l2"] - l2) / max(l2, 1e-30))
        scale = max(g.abs().max().item() * g.numel(), 1e-30)
        worst["sum"] = max(worst["sum"], abs(entry["sum"] - total) / scale)
    return worst


def linear_gemm_shapes(args):
    """(m, n, k) of one layer's linear GEMMs: forward, weight gradients, input gradients (N tokens)."""
    n, h = args.seq * args.batch, args.hidden
    layer = [(n, 3 * h, h), (n, h, h), (n, 4 * h, h), (n, h, 4 * h)]  # (tokens, out, in)
    return ([(t, o, i) for t, o, i in layer] + [(o, i, t) for t, o, i in layer] + [(t, i, o) for t, o, i in layer])


def sgemm_rate(args):
    """GFLOP/s of torch.mm (the BLAS's sgemm) on one layer's linear GEMMs, this thread count."""
    shapes = linear_gemm_shapes(args)
    operands = [(torch.rand(m, k), torch.rand(k, n_), torch.empty(m, n_)) for m, n_, k in shapes]
    flops = sum(2.0 * m * n_ * k for m, n_, k in shapes)

    def once():
        for a, b, c in operands:
            torch.mm(a, b, out=c)

    once()
    times = []
    for _ in range(max(5, args.repeat)):
        start = time.perf_counter()
        once()
        times.append(time.perf_counter() - start)
    return flops / statistics.median(times) / 1e9


def main():
    args = parse_args()
    torch.set_num_threads(args.split[0])
    device = torch.device(args.device)
    if args.device == "cuda" and not torch.cuda.is_available():
        sys.exit("torch_transformer_reference: --device cuda but torch sees no CUDA device")
    blas = torch_blas.describe(torch)
    no_ratio = torch_blas.refusal(blas) if args.device == "cpu" else None
    doc, rows = run_remat(args)

    tensors, x_np, target_np = remat_parameters(args)
    layers = [Layer(t, args.heads, device) for t in tensors]
    x = torch.from_numpy(x_np).to(device).requires_grad_(True)
    target = torch.from_numpy(target_np).to(device)
    saved = saved_bytes_per_layer(layers, x)
    step(layers, x, target, False)  # warm-up: allocates .grad, which later steps zero in place
    grad_diff = gradient_agreement(doc, layers)

    result = {"machine": platform.node(), "processor": platform.processor() or platform.machine(),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "command": " ".join(sys.argv),
              "torch": torch.__version__, "blas": blas, "device": doc["device"], "threads": args.threads,
              "torch_threads": args.split[0], "blas_threads": args.split[1],
              "torch_threads_seen": torch.get_num_threads(),
              "rounds": args.rounds, "repeat": args.repeat, "network": doc["network"]}
    plan = (("store_all", "store-all", False), ("per_layer_checkpointing", "periodic", True))
    layer_flops = 24.0 * args.seq * args.batch * args.hidden ** 2 + 4.0 * args.seq ** 2 * args.batch * args.hidden
    for label, strategy, ckpt in plan:
        zero_grads(layers, x)
        r = rows[strategy]
        result[label] = {"remat_measured_peak_bytes": r["measured_peak_bytes"],
                         "remat_predicted_peak_bytes": r["predicted_peak_bytes"],
                         "torch_peak_bytes": peak_bytes(args, layers, x, target, ckpt),
                         "remat_flops": r["predicted_cost"] * 1e9,
                         # every layer forward, backward twice its forward; checkpointing re-runs every layer
                         "torch_flops": layer_flops * args.layers * (4 if ckpt else 3),
                         "remat_rounds": [], "torch_rounds": []}
        result[label]["peak_ratio"] = r["measured_peak_bytes"] / result[label]["torch_peak_bytes"]
    # Rounds: remat's steps, then PyTorch's, so that other work on the machine slows both alike.
    for k in range(args.rounds):
        if k > 0:
            doc, rows = run_remat(args)
        for label, strategy, ckpt in plan:
            result[label]["remat_rounds"].append(rows[strategy]["seconds_per_step"])
            result[label]["torch_rounds"].append(median_step_seconds(args, layers, x, target, ckpt))
    # Against the reference BLAS a share of its sgemm would mislead as much as a time ratio.
    probe = sgemm_rate(args) if args.device == "cpu" and not no_ratio else None
    result["sgemm_gflops_per_s"] = probe
    for label, _, _ in plan:
        r = result[label]
        r["remat_seconds"] = statistics.median(r["remat_rounds"])
        r["torch_seconds"] = statistics.median(r["torch_rounds"])
        # The median of the rounds' ratios: each round's two sides ran moments apart.
        r["time_ratio"] = None if no_ratio else statistics.median(
            a / b for a, b in zip(r["remat_rounds"], r["torch_rounds"]))
        r["remat_gflops_per_s"] = r["remat_flops"] / r["remat_seconds"] / 1e9
        r["torch_gflops_per_s"] = r["torch_flops"] / r["torch_seconds"] / 1e9
    if no_ratio:
        result["no_time_ratio_because"] = no_ratio
    layer_bytes = doc["network"]["node_bytes"] + doc["network"]["saved_bytes_per_layer"]
    result["bytes_per_layer"] = {"remat_output_plus_saved": layer_bytes, "torch_saved": saved,
                                 "ratio": [layer_bytes / b for b in saved]}
    result["gradients_max_relative_difference"] = grad_diff
    if args.json:
        print(json.dumps(result, indent=2))
        return
    mib = 1 << 20
    net = doc["network"]
    print(f"{result['date']}  {result['machine']} ({result['processor']}), remat {args.threads} thread(s), "
          f"PyTorch {torch_threads.name(args.split)}; {args.rounds} round(s) of {args.repeat} steps per side")
    print(torch_blas.summary(blas))
    print(f"remat: {doc['device']}")
    print(f"network: L = {net['layers']}, h = {net['hidden']}, {net['heads']} heads, seq {net['seq']}, "
          f"batch {net['batch']}, fp32; a_0 (in remat's peaks only) {net['node_bytes'] / mib:.2f} MiB")
    print(f"bytes held per layer: remat {layer_bytes / mib:.2f} MiB (output + saved), torch saved "
          f"{saved[0] / mib:.2f} MiB: ratio {layer_bytes / saved[0]:.3f}")
    for label, _, _ in plan:
        r = result[label]
        ratio = "refused (see below)" if no_ratio else f"{r['time_ratio']:.3f}"
        print(f"{label:>24}: peak remat {r['remat_measured_peak_bytes'] / mib:8.2f} MiB (predicted "
              f"{r['remat_predicted_peak_bytes'] / mib:.2f}) torch {r['torch_peak_bytes'] / mib:8.2f} MiB "
              f"ratio {r['peak_ratio']:.3f}; step remat {r['remat_seconds']:.4f} s torch {r['torch_seconds']:.4f} s "
              f"ratio {ratio}")
        rounds = ", ".join(f"{a:.4f}/{b:.4f}" for a, b in zip(r["remat_rounds"], r["torch_rounds"]))
        share = (lambda g: f" = {100 * g / probe:.0f} % of sgemm") if probe else (lambda g: "")
        print(f"{'':>26}rounds remat/torch s: {rounds}; GFLOP/s remat {r['remat_gflops_per_s']:.1f}"
              f"{share(r['remat_gflops_per_s'])}, torch {r['torch_gflops_per_s']:.1f}{share(r['torch_gflops_per_s'])}")
    if probe:
        print(f"{blas['verdict']} sgemm (torch.mm on the layer's 12 linear GEMMs, {args.threads} thread(s)): "
              f"{probe:.1f} GFLOP/s")
    if no_ratio:
        print(f"no time ratio: {no_ratio}")
    print(f"gradients, remat vs torch, largest relative difference of a tensor's L2 norm {grad_diff['l2']:.2e}, "
          f"of its sum (relative to max |g| x size) {grad_diff['sum']:.2e}")


if __name__ == "__main__":
    main()
