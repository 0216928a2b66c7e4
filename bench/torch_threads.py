"""How PyTorch uses the cores of a CPU race, and the race at PyTorch's best.

PyTorch on the CPU has two thread pools: its own (OpenMP, torch.set_num_threads,
used by elementwise ops, reductions and ops it splits itself) and its BLAS's
(OpenBLAS's pthreads, OPENBLAS_NUM_THREADS, used inside each GEMM). With both
at N on N cores they fight over the cores: on the 2-core development VM the
transformer step took 0.376 s with both at 2, 0.249 s with torch 2 / BLAS 1
and 0.149 s with torch 1 / BLAS 2. A race at N > 1 cores therefore times
PyTorch in each split and takes the fastest as the peer, per step.

    splits(n)                      the (torch, BLAS) thread splits of n cores
    split_from_argv(argv, n)       the split a run was given (--split T,B), else None
    configure(split)               before `import torch`: the BLAS's and OpenMP's threads
    races_every_split(argv, n, d)  whether this run should time every split
    race_every_split(script, argv, labels)
                                   run the script once per split, merge: the fastest peer per label
"""

import argparse
import json
import os
import subprocess
import sys


def splits(threads):
    """(torch threads, BLAS threads) PyTorch can run on `threads` cores; one way at one core."""
    return [(1, 1)] if threads == 1 else [(threads, 1), (1, threads), (threads, threads)]


def name(split):
    return f"torch {split[0]} / BLAS {split[1]}"


def _value_of(argv, flag):
    for i, a in enumerate(argv):
        if a == flag and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith(flag + "="):
            return a.split("=", 1)[1]
    return None


def threads_from_argv(argv, default):
    """--threads N in argv, else `default`; an unreadable value is left to argparse, which says so."""
    value = _value_of(argv, "--threads")
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def split_from_argv(argv):
    """--split T,B in argv as (T, B), or None when absent or unreadable (argparse then says why)."""
    value = _value_of(argv, "--split")
    try:
        t, b = (int(x) for x in value.split(","))
        return (t, b)
    except (AttributeError, ValueError):
        return None


def parse_split(text):
    """argparse type for --split T,B."""
    try:
        t, b = (int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"--split takes TORCH,BLAS thread counts such as 1,2, got {text!r}") from None
    if t < 1 or b < 1:
        raise argparse.ArgumentTypeError(f"--split thread counts must be >= 1, got {text!r}")
    return (t, b)


def configure(split):
    """OpenBLAS (and OpenMP, MKL) read their thread counts once, when they load: set them before torch does.
    Without this, Debian's OpenBLAS runs every core whatever torch.set_num_threads says. The caller still
    calls torch.set_num_threads(split[0]).

    OMP_WAIT_POLICY=PASSIVE unless the caller set one: with libgomp's default, PyTorch's OpenMP threads
    busy-wait between its parallel ops and take the cores from OpenBLAS's own threads; on a 2-core machine
    shared with other work a step then ran 7-9x slower than with PASSIVE (2.11 s against 0.31 s here,
    2026-11-24)."""
    torch_threads, blas_threads = split
    os.environ["OMP_NUM_THREADS"] = str(torch_threads)
    os.environ["OPENBLAS_NUM_THREADS"] = str(blas_threads)
    os.environ["MKL_NUM_THREADS"] = str(blas_threads)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def races_every_split(argv, threads, default_device="cpu"):
    """A CPU run at more than one thread without --split times each split in a child process of its own (each
    needs its BLAS loaded with its own thread count)."""
    device = _value_of(argv, "--device") or default_device
    return threads > 1 and _value_of(argv, "--split") is None and device == "cpu"


def _run_split(script, argv, split):
    command = [sys.executable, script] + [a for a in argv if a != "--json"] + ["--split", f"{split[0]},{split[1]}",
                                                                              "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        sys.exit(done.returncode)
    return json.loads(done.stdout)


def merge(runs, labels):
    """One result from the runs of every split: the run-wide fields of the last split (both pools on every
    core, so a BLAS rate in them is at every core), and per label the entry of the split whose PyTorch step
    was fastest (its own rounds and paired ratio), with every split's times beside it."""
    merged = dict(runs[-1][1])
    merged["run_wide_fields_from"] = name(runs[-1][0])
    merged["splits"] = [{"torch_threads": s[0], "blas_threads": s[1], "torch_threads_seen": doc.get("torch_threads_seen"),
                         "blas": doc.get("blas"), "command": doc.get("command")} for s, doc in runs]
    for label in labels:
        fastest_split, fastest = min(runs, key=lambda run: run[1][label]["torch_seconds"])
        entry = dict(fastest[label])
        entry["peer"] = {"torch_threads": fastest_split[0], "blas_threads": fastest_split[1],
                         "name": name(fastest_split)}
        entry["every_split"] = [{"torch_threads": s[0], "blas_threads": s[1], "name": name(s),
                                 "torch_seconds": doc[label]["torch_seconds"],
                                 "remat_seconds": doc[label]["remat_seconds"],
                                 "time_ratio": doc[label]["time_ratio"]} for s, doc in runs]
        merged[label] = entry
    return merged


def race_every_split(script, argv, labels, threads):
    """Run `script argv` once per split of `threads` cores; print the merged result (JSON with --json, else a
    table of every split and the peer chosen per label)."""
    runs = [(split, _run_split(script, argv, split)) for split in splits(threads)]
    merged = merge(runs, labels)
    merged["command"] = " ".join([os.path.basename(script)] + argv)
    if "--json" in argv:
        print(json.dumps(merged, indent=2))
        return
    print(f"PyTorch timed in each split of {threads} cores, remat at {threads} threads in every run; "
          "the peer is the fastest split per step")
    for label in labels:
        entry = merged[label]
        print(f"{label}:")
        for s in entry["every_split"]:
            ratio = "refused" if s["time_ratio"] is None else f"{s['time_ratio']:.3f}"
            print(f"  {s['name']:>18}: PyTorch {s['torch_seconds']:.4f} s, remat {s['remat_seconds']:.4f} s, "
                  f"ratio {ratio}")
        ratio = "refused" if entry["time_ratio"] is None else f"{entry['time_ratio']:.3f}"
        print(f"  peer: {entry['peer']['name']}, remat / PyTorch {ratio}")
    print("each split's full report: add --split TORCH,BLAS")
