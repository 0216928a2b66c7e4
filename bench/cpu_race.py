#!/usr/bin/env python3
"""The CPU targets in one run: remat against PyTorch at its best (Debian's
1.13 on OpenBLAS, and PyTorch 2 from PyPI through scripts/torch2-python),
and remat's GEMM-bound steps against OpenBLAS's sgemm, at one thread and at
every core, same machine, same run.

For each thread count (1 and every core) it runs
  * bench/torch_transformer_reference.py --json on L 4 h 256 a 4 s 128 b 4
    and L 2 h 768 a 12 s 128 b 2, and bench/torch_reference.py --device cpu
    --json on the tanh MLP n 16 w 1024 b 256 (checkpoints every 4): remat and
    PyTorch in alternating rounds, PyTorch's BLAS checked and named, no ratio
    against the reference BLAS. At every core PyTorch is timed in each split
    of the cores between its own threads and its BLAS's (torch N / BLAS 1,
    torch 1 / BLAS N, torch N / BLAS N; bench/torch_threads.py) and the
    fastest split is the PyTorch's time of each step. Each race runs once
    per Python: python3's PyTorch (1.13 on OpenBLAS) and --torch2's (PyTorch
    2 from PyPI, its own BLAS; default scripts/torch2-python, 'none' to
    skip); the faster of them at its best split (against remat in its
    own paired rounds: they ran at different times) is the step's peer,
    named in the summary, and its own paired rounds set the ratio;
  * bench_executor n 16 w 1024 b 256 (the tanh network's store-all step)
    and bench_transformer on both shapes: each step's FLOP rate over
    OpenBLAS's sgemm on the step's very GEMMs, in the same process;
writes every raw output to --out and prints a Markdown summary with the
machine, the date, the load average before and after each part (what else
was running) and the commands.

Usage:
  /usr/bin/python3 bench/cpu_race.py --build build/release [--out bench/results/DATE-cpu] [--rounds 7]
      [--torch2 scripts/torch2-python|none] [--skip-gemm]
Targets (reported, not asserted): remat / PyTorch step time <= 1 against
the fastest PyTorch at its fastest split, for store-all and per-layer checkpointing at both
thread counts; every step >= 80 % of OpenBLAS's sgemm rate on its GEMMs.
"""

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH2 = os.path.join(os.path.dirname(HERE), "scripts", "torch2-python")
sys.path.insert(0, HERE)
import torch_blas  # noqa: E402
import torch_threads  # noqa: E402

SHAPES = [(4, 256, 4, 128, 4), (2, 768, 12, 128, 2)]
MLP_NAME = "tanh MLP n 16 w 1024 b 256"
MLP_ARGS = ["--n", "16", "--width", "1024", "--batch", "256", "--every", "4"]


def shape_name(s):
    return f"L {s[0]} h {s[1]} a {s[2]} s {s[3]} b {s[4]}"


def shape_args(s):
    return ["--layers", str(s[0]), "--hidden", str(s[1]), "--heads", str(s[2]), "--seq", str(s[3]),
            "--batch", str(s[4])]


def load():
    return "%.1f/%.1f/%.1f" % os.getloadavg()


def run(cmd, out_path, log):
    before = load()
    started = time.time()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    with open(out_path, "w") as f:
        f.write(done.stdout)
    if done.returncode != 0:
        sys.exit(f"cpu_race: {' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}")
    log.append({"command": " ".join(cmd), "output": os.path.basename(out_path), "load_before": before,
                "load_after": load(), "seconds": round(time.time() - started, 1)})
    return done.stdout


def of_openblas(text, label):
    """The 'of OpenBLAS' percentage of the row starting with `label` in a bench's table."""
    for line in text.splitlines():
        if line.startswith(label):
            found = re.findall(r"([0-9.]+)%", line)
            numbers = re.findall(r"[0-9]+\.[0-9]+", line)
            if found:
                return float(found[-1]), numbers
    return None, []


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", required=True, help="build folder with app/cli/remat and bench/executor")
    p.add_argument("--out", default=None, help="folder for the raw outputs (default bench/results/<date>-cpu)")
    p.add_argument("--rounds", type=int, default=7,
                   help="rounds of each PyTorch race (median): a burst of other work spoils a round, not the median")
    p.add_argument("--repeat", type=int, default=5, help="steps per round and side of each PyTorch race")
    p.add_argument("--bench-repeat", type=int, default=11,
                   help="interleaved rounds of the C++ benchmarks (median): more than the race's, since each round "
                        "holds one step, one bare-GEMM pass and one OpenBLAS pass, and a burst of other work can "
                        "take a whole round")
    p.add_argument("--torch2", default=TORCH2 if os.path.exists(TORCH2) else "none",
                   help="a second PyTorch's Python (default scripts/torch2-python, PyTorch 2 from PyPI), raced beside "
                        "python3's; 'none' races python3's only")
    p.add_argument("--skip-gemm", action="store_true",
                   help="leave out the C++ GEMM benchmarks (bench_transformer, bench_executor): the PyTorch races only")
    p.add_argument("--from-raw", action="store_true",
                   help="run nothing: print the summary of the raw output already in --out (its runs.json and JSONs)")
    args = p.parse_args()
    if args.from_raw:
        return summary_from_raw(args)
    date = time.strftime("%Y-%m-%d", time.gmtime())
    out = args.out or os.path.join(HERE, "results", f"{date}-cpu")
    os.makedirs(out, exist_ok=True)
    remat = os.path.join(args.build, "app", "cli", "remat")
    benches = os.path.join(args.build, "bench", "executor")
    cores = torch_blas.available_cores()
    race_args = ["--rounds", str(args.rounds), "--repeat", str(args.repeat), "--json"]
    pythons = [("", [sys.executable])]
    if args.torch2 != "none":
        pythons.append(("torch2-", [args.torch2]))
    log, races, gemm_bound = [], [], []

    def race(what, threads, script, script_args, tag, steps):
        """Each Python's run of the race script; one race entry with every peer's doc."""
        docs = []
        for prefix, python in pythons:
            docs.append(json.loads(run(python + [os.path.join(HERE, script), "--remat", remat, "--threads",
                                                  str(threads)] + race_args + script_args,
                                       os.path.join(out, f"{prefix}torch-{tag}.json"), log)))
            docs[-1]["load"] = f"{log[-1]['load_before']} / {log[-1]['load_after']}"
        races.append((what, threads, docs, steps))

    for threads in sorted({1, cores}):
        for s in SHAPES:
            tag = f"L{s[0]}-h{s[1]}-t{threads}"
            race(f"transformer {shape_name(s)}", threads, "torch_transformer_reference.py", shape_args(s), tag,
                 (("store-all", "store_all"), ("per-layer ckpt", "per_layer_checkpointing")))
            if args.skip_gemm:
                continue
            text = run([os.path.join(benches, "bench_transformer"), *map(str, s), str(args.bench_repeat), str(threads)],
                       os.path.join(out, f"bench-transformer-{tag}.txt"), log)
            for label in ("store-all", "per-layer checkpointing"):
                share, numbers = of_openblas(text, label)
                gemm_bound.append((f"transformer {shape_name(s)}, {label}", threads, share, numbers))
        race(MLP_NAME, threads, "torch_reference.py", ["--device", "cpu"] + MLP_ARGS, f"mlp-t{threads}",
             (("store-all", "store_all"), ("ckpt every 4", "checkpoints")))
        if args.skip_gemm:
            continue
        text = run([os.path.join(benches, "bench_executor"), "16", "1024", "256", str(args.bench_repeat), str(threads),
                    "selected"], os.path.join(out, f"bench-executor-t{threads}.txt"), log)
        share, numbers = of_openblas(text, "avx") if "avx" in text else of_openblas(text, "baseline")
        gemm_bound.append((f"{MLP_NAME}, store-all", threads, share, numbers))
    with open(os.path.join(out, "runs.json"), "w") as f:
        json.dump({"machine": platform.node(), "processor": platform.processor(), "date": date, "runs": log}, f,
                  indent=2)
    print_summary(date, cores, out, log, races, gemm_bound)


def summary_from_raw(args):
    """The summary of a finished run, from the files it wrote to --out."""
    with open(os.path.join(args.out, "runs.json")) as f:
        meta = json.load(f)
    log = meta["runs"]
    loads = {e["output"]: f"{e['load_before']} / {e['load_after']}" for e in log}
    prefixes = [""] + (["torch2-"] if any(e["output"].startswith("torch2-") for e in log) else [])
    cores = max(int(re.search(r"-t([0-9]+)\.json$", e["output"]).group(1)) for e in log
                if re.search(r"-t([0-9]+)\.json$", e["output"]))
    races = []

    def docs_of(tag):
        docs = []
        for prefix in prefixes:
            name = f"{prefix}torch-{tag}.json"
            with open(os.path.join(args.out, name)) as f:
                docs.append(json.load(f))
            docs[-1]["load"] = loads.get(name, "?")
        return docs
    for threads in sorted({1, cores}):
        for s in SHAPES:
            races.append((f"transformer {shape_name(s)}", threads, docs_of(f"L{s[0]}-h{s[1]}-t{threads}"),
                          (("store-all", "store_all"), ("per-layer ckpt", "per_layer_checkpointing"))))
        races.append((MLP_NAME, threads, docs_of(f"mlp-t{threads}"),
                      (("store-all", "store_all"), ("ckpt every 4", "checkpoints"))))
    print_summary(meta["date"], cores, args.out, log, races, [])


def ratio_text(r):
    return "refused" if r is None else f"{r:.3f}"


def peer_name(entry, threads):
    return entry["peer"]["name"] if "peer" in entry else torch_threads.name((threads, threads))


def version(doc):
    """The PyTorch version a race script's JSON names (torch_reference.py
    keeps it under torch_version, its "torch" being PyTorch's results)."""
    return doc.get("torch_version") or doc["torch"]


def fastest(docs, label):
    """The doc whose PyTorch (at its best split) was the faster for `label`.
    The PyTorches ran one after the other, each paired round by round with
    remat, so the load can differ between them: faster means faster against
    remat in its own rounds (the larger remat / PyTorch ratio), not the
    smaller raw time; by raw time only where a ratio is refused."""
    if all(d[label]["time_ratio"] is not None for d in docs):
        return max(docs, key=lambda d: d[label]["time_ratio"])
    return min(docs, key=lambda d: d[label]["torch_seconds"])


def print_summary(date, cores, out, log, races, gemm_bound):
    print(f"# CPU race, {date}, {platform.node()} ({cores} cores); raw output in {out}")
    for threads in sorted({1, cores}):
        docs = next(d for _, t, d, _ in races if t == threads)
        for doc in docs:
            print(f"{threads} thread(s): remat {doc['device'] if 'device' in doc else doc['remat_device']}; "
                  f"{torch_blas.summary(doc['blas'])}")
    print("\nPeer: of every PyTorch raced (each in the split of the cores between its threads and its BLAS's whose "
          "step was fastest, torch T / BLAS B), the faster against remat in its own paired rounds (the PyTorches "
          "ran one after the other, so raw times may differ by load); those rounds set the ratio.\n")
    print("| network | threads | step | remat s | peer PyTorch s | peer | remat / peer | other PyTorch s | "
          "load before / after (peer's run) |")
    print("| --- | ---: | --- | ---: | ---: | --- | ---: | --- | --- |")
    for what, threads, docs, steps in races:
        for step_name, label in steps:
            doc = fastest(docs, label)
            r = doc[label]
            others = ", ".join(f"{version(d)}: {d[label]['torch_seconds']:.4f} ({peer_name(d[label], threads)}, "
                               f"remat / it {ratio_text(d[label]['time_ratio'])})" for d in docs if d is not doc)
            print(f"| {what} | {threads} | {step_name} | {r['remat_seconds']:.4f} | {r['torch_seconds']:.4f} | "
                  f"PyTorch {version(doc)}, {peer_name(r, threads)} | {ratio_text(r['time_ratio'])} | "
                  f"{others or '-'} | {doc['load']} |")
    if any(t > 1 for _, t, _, _ in races):
        print("\nEvery split at every core (PyTorch s, remat / PyTorch in that split's own rounds):\n")
        splits = torch_threads.splits(cores)
        print("| network | PyTorch | step | " + " | ".join(torch_threads.name(x) for x in splits) + " |")
        print("| --- | --- | --- |" + " ---: |" * len(splits))
        for what, threads, docs, steps in races:
            if threads == 1:
                continue
            for doc in docs:
                for step_name, label in steps:
                    cells = [f"{x['torch_seconds']:.4f} s ({ratio_text(x['time_ratio'])})"
                             for x in doc[label]["every_split"]]
                    print(f"| {what} | {version(doc)} | {step_name} | " + " | ".join(cells) + " |")
    refused = next((d["no_time_ratio_because"] for _, _, docs, _ in races for d in docs
                    if "no_time_ratio_because" in d), None)
    if refused:
        print(f"\nno time ratio: {refused}")
    if gemm_bound:
        print("\n| GEMM-bound step | threads | step GFLOP/s | OpenBLAS sgemm on its GEMMs, GFLOP/s | step / OpenBLAS |")
        print("| --- | ---: | ---: | ---: | ---: |")
    for what, threads, share, numbers in gemm_bound:
        # the row's numbers: step s, step GFLOP/s, its GEMMs on remat's kernels, on OpenBLAS, the share
        step_rate = numbers[1] if len(numbers) > 3 else "?"
        blas_rate = numbers[3] if len(numbers) > 3 else "?"
        print(f"| {what} | {threads} | {step_rate} | {blas_rate} | "
              f"{'n/a' if share is None else f'{share:.1f} %'} |")
    print("\ncommands (load average before / after):")
    for e in log:
        print(f"  {e['command']}   [{e['load_before']} / {e['load_after']}, {e['seconds']} s]")


if __name__ == "__main__":
    main()
