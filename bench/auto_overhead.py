"""What remat_torch.auto_checkpoint costs beside the same work done by hand
(trace, write the model file, `remat plan --budget B --json`, apply), on the
same model, alternating the two, --rounds times each; prints the medians.

    scripts/torch2-python bench/auto_overhead.py --model python/examples/hf_gpt2.py:tiny \\
        --inputs python/examples/hf_gpt2.py:tiny_inputs --budget 300000
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import remat_torch  # noqa: E402
from remat_torch.inputs import build_inputs  # noqa: E402
from remat_torch.planning import budget_text, find_remat  # noqa: E402
from remat_torch.spec import build_model  # noqa: E402
from remat_torch.tracing import trace, write_model_file  # noqa: E402


def by_hand(spec, recorded, budget, steps):
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model.json")
        write_model_file(trace(spec, recorded, timing_steps=steps), path)
        plan = json.loads(subprocess.run([find_remat(), "plan", "--model", path, "--budget", budget_text(budget),
                                          "--json"], capture_output=True, text=True, check=True).stdout)
    remat_torch.apply(build_model(spec), plan)
    return time.perf_counter() - start


def in_one_call(spec, recorded, budget, steps):
    import torch
    start = time.perf_counter()
    model = build_model(spec).train()
    args, kwargs = build_inputs(recorded, torch.float32, torch.device("cpu"))
    remat_torch.auto_checkpoint(model, kwargs or args, budget=budget, timing_steps=steps)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--inputs", required=True, help="FILE.py:callable")
    parser.add_argument("--budget", required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--timing-steps", type=int, default=5)
    args = parser.parse_args()
    recorded = {"function": args.inputs}
    budget = int(args.budget) if args.budget.isdigit() else args.budget
    hand, auto = [], []
    for _ in range(args.rounds):
        hand.append(by_hand(args.model, recorded, budget, args.timing_steps))
        auto.append(in_one_call(args.model, recorded, budget, args.timing_steps))
    h, a = statistics.median(hand), statistics.median(auto)
    print(f"{args.model}: by hand {h:.2f} s, auto_checkpoint {a:.2f} s ({a / h - 1:+.1%}); runs: "
          f"{[round(t, 2) for t in hand]} / {[round(t, 2) for t in auto]}")


if __name__ == "__main__":
    main()
