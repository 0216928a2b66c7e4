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

On the CPU (--device cpu): remat's CPU backend at --threads N against
PyTorch on its BLAS (OpenBLAS; a ratio against the reference BLAS is refused,
bench/torch_blas.py). Rounds (--rounds) take turns, remat's --repeat steps
then PyTorch's, and the ratio is the median of the rounds' ratios, so that
other work on the machine spoils a round, not a side. PyTorch's peak comes
from its profiler (bench/torch_cpu_peak.py, a lower bound); remat's is its
tracking allocator's. At N > 1 cores PyTorch is timed in each split of them
between its own threads and its BLAS's (bench/torch_threads.py) and the
fastest is the peer of each step, named in the result.

Usage (on the GPU machine; scripts/gpu-check.sh runs it):
  python3 bench/torch_reference.py --remat build/gpu-check/app/cli/remat \\
      --n 64 --width 1024 --batch 256 --every 8 --repeat 20 [--json]
  python3 bench/torch_reference.py --summarize result.json   # one line from a --json result
  /usr/bin/python3 bench/torch_reference.py --device cpu --remat build/release/app/cli/remat \
      --n 16 --width 1024 --batch 256 --every 4 [--threads N] [--split TORCH,BLAS]
Needs: python3, torch (with CUDA for --device cuda). Exit status 2 on bad arguments, 1 when remat
or CUDA fails or the two sides would not run the same computation.

On CUDA the GEMMs run on cuBLAS on both sides; the script still prints which
CPU BLAS PyTorch loaded (bench/torch_blas.py), as every PyTorch comparison
here does.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_blas  # noqa: E402
import torch_threads  # noqa: E402
from torch_cpu_peak import cpu_step_peak  # noqa: E402

LABELS = ("store_all", "checkpoints")
THREADS = torch_threads.threads_from_argv(sys.argv, torch_blas.available_cores())


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--remat", help="path of the remat CLI built with CUDA")
    p.add_argument("--n", type=int, default=64)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--every", type=int, default=8, help="checkpoint every K-th node (1 <= K < n)")
    p.add_argument("--repeat", type=int, default=5, help="timed steps; the median is reported")
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--threads", type=int, default=torch_blas.available_cores(),
                   help="CPU: cores for both sides, remat's --threads and PyTorch's split of them (default: every "
                        "core)")
    p.add_argument("--split", type=torch_threads.parse_split, default=None, metavar="TORCH,BLAS",
                   help="CPU: PyTorch's own threads and its BLAS's, each <= --threads (default: every split, the "
                        "fastest is the peer)")
    p.add_argument("--rounds", type=int, default=3,
                   help="CPU: rounds in which remat and PyTorch take turns; the median of the rounds' ratios")
    p.add_argument("--json", action="store_true", help="print one JSON document instead of a table")
    p.add_argument("--summarize", metavar="FILE", help="print one line of ratios from a --json result and exit")
    a = p.parse_args(argv)
    if a.summarize:
        return a
    if not a.remat:
        p.error("--remat is required (the remat CLI built with CUDA)")
    for name, lo in (("n", 2), ("width", 1), ("batch", 1), ("repeat", 1), ("every", 1), ("threads", 1),
                     ("rounds", 1)):
        if getattr(a, name) < lo:
            p.error(f"--{name} must be >= {lo}, got {getattr(a, name)}")
    a.split = a.split or (a.threads, a.threads)
    if max(a.split) > a.threads:
        p.error(f"--split {a.split[0]},{a.split[1]} uses more than --threads {a.threads} cores")
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
    cmd = [args.remat, "measure", "--backend", args.device, "--strategy", "store-all,checkpoints",
           "--checkpoints", ",".join(map(str, checkpoints)),
           "--n", str(args.n), "--width", str(args.width), "--batch", str(args.batch),
           "--repeat", str(args.repeat), "--json"] + (["--threads", str(args.threads)] if args.device == "cpu" else [])
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError as e:
        sys.exit(f"torch_reference: cannot run {args.remat}: {e}")
    if done.returncode != 0:
        sys.exit(f"torch_reference: remat failed ({done.returncode}): {done.stderr.strip()}")
    doc = json.loads(done.stdout)
    return doc, {row["strategy"]: row for row in doc["strategies"]}


class TorchMlp:
    """The network in PyTorch on args.device: a step with or without the checkpoints, and the GEMMs of one
    store-all step alone; layer calls are counted so that both sides' computations can be compared."""

    def __init__(self, args, checkpoints, last_recomputed):
        import torch
        from torch.utils.checkpoint import checkpoint

        self.torch, self.args = torch, args
        if args.device == "cuda":
            if not torch.cuda.is_available():
                sys.exit("torch_reference: CUDA not available to PyTorch")
            # The same arithmetic as remat: fp32 GEMMs without TF32.
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        else:
            torch.set_num_threads(args.split[0])
        dev = self.dev = torch.device(args.device)
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
        self.evaluations = 0

        def layers(a, first, last):
            for i in range(first, last):  # layers first+1..last (0-based weights index i)
                a = torch.addmm(biases[i], torch.tanh(a), weights[i].t())
                self.evaluations += 1
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

        self.steps = {"store_all": lambda: step(False), "checkpoints": lambda: step(True)}
        self.gemms = gemms

    def seconds(self, fn):
        """Median of --repeat timed runs of fn; on CUDA between two events with the device idle at the start,
        as in remat's runStep."""
        torch, times = self.torch, []
        for _ in range(self.args.repeat):
            if self.args.device == "cuda":
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                torch.cuda.synchronize()
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop) / 1000.0)
            else:
                started = time.perf_counter()
                fn()
                times.append(time.perf_counter() - started)
        return statistics.median(times)

    def probe(self, fn):
        """Warm-up, then one step that counts layer calls and the peak above what existed before it."""
        torch = self.torch
        fn()  # warm-up (BLAS handles, allocator caches), as remat's warm-up step
        self.evaluations = 0
        if self.args.device == "cpu":
            return {"peak_allocated_bytes": cpu_step_peak(torch, fn), "peak_reserved_growth_bytes": None,
                    "forward_evaluations": self.evaluations}
        torch.cuda.synchronize()
        torch.cuda.empty_cache()  # as remat trims its pool before the probe step
        base_allocated = torch.cuda.memory_allocated()
        base_reserved = torch.cuda.memory_reserved()
        torch.cuda.reset_peak_memory_stats()
        fn()
        torch.cuda.synchronize()
        return {"peak_allocated_bytes": torch.cuda.max_memory_allocated() - base_allocated,
                "peak_reserved_growth_bytes": torch.cuda.max_memory_reserved() - base_reserved,
                "forward_evaluations": self.evaluations}

    def describe(self):
        torch = self.torch
        cuda = self.args.device == "cuda"
        return {"device": torch.cuda.get_device_name(self.dev) if cuda else f"CPU, {torch_threads.name(self.args.split)}",
                "cuda_runtime": torch.version.cuda if cuda else None,
                "blas": torch_blas.describe(torch), "torch": torch.__version__,
                "torch_threads_seen": torch.get_num_threads()}


def torch_session(args, checkpoints, last_recomputed):
    """CUDA: PyTorch's side in one go (remat's ran just before on the idle device)."""
    net = TorchMlp(args, checkpoints, last_recomputed)
    result = net.describe()
    for label, fn in net.steps.items():
        result[label] = dict(net.probe(fn), seconds=net.seconds(fn))
    net.probe(net.gemms)
    result["gemms_alone_seconds"] = net.seconds(net.gemms)
    return result


def cpu_rounds(args, checkpoints, last_recomputed, rows):
    """CPU: the probes, then --rounds rounds of remat's steps and PyTorch's taking turns; each side's time the
    median of its rounds, the ratio the median of the rounds' ratios."""
    net = TorchMlp(args, checkpoints, last_recomputed)
    result = net.describe()
    no_ratio = torch_blas.refusal(result["blas"])
    strategies = {"store_all": "store-all", "checkpoints": "checkpoints"}
    for label, fn in net.steps.items():
        result[label] = dict(net.probe(fn), remat_rounds=[], torch_rounds=[])
    for k in range(args.rounds):
        if k > 0:
            rows = run_remat(args, checkpoints)[1]
        for label, fn in net.steps.items():
            result[label]["remat_rounds"].append(rows[strategies[label]]["seconds_per_step"])
            result[label]["torch_rounds"].append(net.seconds(fn))
    for label in net.steps:
        r = result[label]
        r["seconds"] = r["torch_seconds"] = statistics.median(r["torch_rounds"])
        r["remat_seconds"] = statistics.median(r["remat_rounds"])
        r["time_ratio"] = None if no_ratio else statistics.median(
            a / b for a, b in zip(r["remat_rounds"], r["torch_rounds"]))
    net.probe(net.gemms)
    result["gemms_alone_seconds"] = net.seconds(net.gemms)
    if no_ratio:
        result["no_time_ratio_because"] = no_ratio
    return result


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
    if torch_threads.races_every_split(sys.argv, THREADS, default_device="cuda"):
        parse_args()  # bad arguments are said here, once
        torch_threads.race_every_split(os.path.abspath(__file__), sys.argv[1:], LABELS, THREADS)
        return
    args = parse_args()
    if args.device == "cpu":
        torch_threads.configure(args.split)  # torch loads later, in TorchMlp
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
    if args.device == "cpu":
        torch_res = cpu_rounds(args, checkpoints, last_recomputed, rows)
        for name in LABELS:  # remat's time: the median of its rounds, as PyTorch's
            remat[name]["seconds"] = torch_res[name]["remat_seconds"]
    else:
        torch_res = torch_session(args, checkpoints, last_recomputed)
    # PyTorch before 2.0 has no early stop in its checkpoint: it re-runs a segment whole, its last layer too,
    # whose output the backward never reads. That extra layer a segment is the peer's own cost, not another
    # placement of checkpoints; anything else is.
    whole_segments = sum(hi - lo for lo, hi in zip([0] + checkpoints, checkpoints + [args.n]))
    if not last_recomputed:
        whole_segments -= args.n - checkpoints[-1]
    for name in LABELS:
        mine, theirs = remat[name]["forward_evaluations"], torch_res[name]["forward_evaluations"]
        rerun_whole = name == "checkpoints" and theirs == args.n + whole_segments
        if mine != theirs and not rerun_whole:
            sys.exit(f"torch_reference: {name}: remat makes {mine} forward evaluations, PyTorch {theirs}; "
                     "not the same computation")
        torch_res[name]["reruns_segment_outputs"] = rerun_whole and mine != theirs
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
    if args.device == "cpu":
        # The CPU's figures: remat's tracking allocator against PyTorch's profiler (a lower bound), and the
        # paired rounds' ratio; at the top level per step for bench/torch_threads.py's merge.
        result.update({"threads": args.threads, "torch_threads": args.split[0], "blas_threads": args.split[1],
                       "torch_threads_seen": torch_res["torch_threads_seen"], "rounds": args.rounds,
                       "blas": torch_res["blas"]})
        for name in LABELS:
            t = torch_res[name]
            result["ratios"][name] = {"counted_peak_over_profiler_peak": ratio(remat[name]["counted_peak_bytes"],
                                                                               t["peak_allocated_bytes"]),
                                      "time": t["time_ratio"]}
            result[name] = {"remat_seconds": t["remat_seconds"], "torch_seconds": t["torch_seconds"],
                            "time_ratio": t["time_ratio"], "remat_rounds": t["remat_rounds"],
                            "torch_rounds": t["torch_rounds"], "remat_peak_bytes": remat[name]["counted_peak_bytes"],
                            "torch_peak_bytes": t["peak_allocated_bytes"]}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    net = result["network"]
    print(f"network n={net['n']} width={net['width']} batch={net['batch']} fp32; checkpoints every {args.every}"
          f" (last segment {'recomputed' if last_recomputed else 'kept'}, as remat does)")
    print(f"remat: {result['remat_device']}\ntorch {result['torch_version']}: {result['torch_device']}")
    cpu = args.device == "cpu"
    if cpu:
        print(f"remat {args.threads} thread(s), PyTorch {torch_threads.name(args.split)}; {args.rounds} round(s) of "
              f"{args.repeat} steps per side; {torch_blas.summary(torch_res['blas'])}\n")
        rows_of = (("counted peak / profiler peak", "counted_peak_bytes", "peak_allocated_bytes"),
                   ("s/step", "seconds", "seconds"))
    else:
        print(f"GEMMs on cuBLAS (CUDA {torch_res['cuda_runtime']}) on both sides; on the CPU, "
              f"{torch_blas.summary(torch_res['blas'])}\n")
        rows_of = (("pool peak / max allocated", "allocator_peak_bytes", "peak_allocated_bytes"),
                   ("device growth / max reserved", "device_peak_bytes", "peak_reserved_growth_bytes"),
                   ("s/step", "seconds", "seconds"))
    print(f"{'':42}{'remat':>16}{'pytorch':>16}{'remat/pytorch':>16}")
    for name, label in (("store_all", "store-all"), ("checkpoints", "checkpoints")):
        r, t = remat[name], torch_res[name]
        for what, mine_key, theirs_key in rows_of:
            mine, theirs = r[mine_key], t[theirs_key]
            q = result["ratios"][name]["time"] if cpu and what == "s/step" else ratio(mine, theirs)
            print(f"{label + ' ' + what:42}{mine:>16.6g}{theirs:>16.6g}{'n/a' if q is None else f'{q:.3f}':>16}")
    if torch_res.get("no_time_ratio_because"):
        print(f"no time ratio: {torch_res['no_time_ratio_because']}")
    gemm_ratio = result["ratios"]["store_all_time_over_gemms_alone"]
    print(f"\n{'PyTorch BLAS' if cpu else 'cuBLAS'} GEMMs alone: {torch_res['gemms_alone_seconds']:.6g} s; remat "
          f"store-all / GEMMs = {gemm_ratio:.3f}{'' if cpu else ' (target <= 1.15)'}")


if __name__ == "__main__":
    main()
