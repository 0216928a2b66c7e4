"""remat beside transformers' own checkpointing, in one run: a Hugging Face
model (python/examples/hf_*.py) trained one step at a time plain, with
model.gradient_checkpointing_enable() (every layer checkpointed), and with
remat_torch.auto_checkpoint at two budgets: HF's measured peak (the same
memory, which remat reaches re-running less) and halfway between that and the
plain peak. Per run: the peak held in the step (LiveTensors, every storage
PyTorch makes, inputs included, weights and their gradients not), the median
step time over --steps timed steps (without the counter), and the largest
gradient difference from the plain model.

    scripts/torch2-python bench/hf_compare.py --example python/examples/hf_gpt2.py --size tiny
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import torch  # noqa: E402

import remat_torch  # noqa: E402
from remat_torch.counting import LiveTensors  # noqa: E402
from remat_torch.steps import held_before_step, preallocate_gradients, step  # noqa: E402


def load(path):
    spec = importlib.util.spec_from_file_location("example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(model, batch, steps):
    preallocate_gradients(model)
    torch.manual_seed(3)
    step(model, batch, "warm-up")
    times = []
    for _ in range(steps):
        preallocate_gradients(model)
        torch.manual_seed(3)
        start = time.perf_counter()
        step(model, batch, "timed")
        times.append(time.perf_counter() - start)
    preallocate_gradients(model)
    torch.manual_seed(3)
    live = LiveTensors(ignore=held_before_step(model, batch))
    with live:
        step(model, batch, "counted")
    inputs = sum(t.untyped_storage().nbytes() for t in batch[1].values() if isinstance(t, torch.Tensor))
    grads = [p.grad.clone() for p in model.parameters()]
    return live.peak + inputs, statistics.median(times), grads


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--example", required=True, help="python/examples/hf_*.py")
    parser.add_argument("--size", default="tiny", help="tiny (tests) or model (the file's full size)")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    example = load(args.example)
    build = getattr(example, args.size)
    batch_of = getattr(example, "inputs" if args.size == "model" else f"{args.size}_inputs")
    torch.manual_seed(0)
    reference_model = build().train()
    state = reference_model.state_dict()
    batch = ((), batch_of())

    def fresh():
        model = build().train()
        model.load_state_dict(state)
        return model

    rows = []
    peak, seconds, reference = measure(reference_model, batch, args.steps)
    rows.append({"run": "plain (store-all)", "peak_bytes": peak, "step_s": seconds, "max_grad_diff": 0.0})
    plain_peak = peak

    model = fresh()
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    peak, seconds, grads = measure(model, batch, args.steps)
    hf_peak = peak
    rows.append({"run": "transformers gradient_checkpointing_enable()", "peak_bytes": peak, "step_s": seconds,
                 "max_grad_diff": max((g - r).abs().max().item() for g, r in zip(grads, reference))})

    for title, budget in (("remat auto_checkpoint, budget = HF's peak", hf_peak),
                          ("remat auto_checkpoint, budget halfway to plain", (hf_peak + plain_peak) // 2)):
        model = fresh()
        try:
            report = remat_torch.auto_checkpoint(model, batch[1], budget=int(budget))
        except remat_torch.UsageError as e:
            rows.append({"run": title, "budget_bytes": int(budget), "refused": str(e)})
            continue
        peak, seconds, grads = measure(model, batch, args.steps)
        rows.append({"run": title, "budget_bytes": int(budget), "predicted_peak_bytes": report.predicted_peak_bytes,
                     "peak_bytes": peak, "step_s": seconds, "segments": len(report.checkpointed),
                     "trace_s": round(report.seconds["trace"], 2), "plan_s": round(report.seconds["plan"], 2),
                     "max_grad_diff": max((g - r).abs().max().item() for g, r in zip(grads, reference))})

    result = {"example": args.example, "size": args.size, "torch": torch.__version__,
              "transformers": __import__("transformers").__version__, "threads": torch.get_num_threads(),
              "date": time.strftime("%Y-%m-%d"), "rows": rows}
    print(f"{args.example}:{args.size}, PyTorch {result['torch']}, transformers {result['transformers']}, "
          f"{result['threads']} threads, {result['date']}")
    print(f"{'run':<50} {'budget':>10} {'predicted':>10} {'peak':>10} {'step s':>8} {'max|dgrad|':>10}")
    for row in rows:
        if "refused" in row:
            print(f"{row['run']:<50} {row['budget_bytes'] / 2**20:>9.2f}M  refused: {row['refused']}")
            continue
        budget = f"{row['budget_bytes'] / 2**20:.2f}M" if "budget_bytes" in row else "-"
        predicted = f"{row['predicted_peak_bytes'] / 2**20:.2f}M" if "predicted_peak_bytes" in row else "-"
        print(f"{row['run']:<50} {budget:>10} {predicted:>10} {row['peak_bytes'] / 2**20:>9.2f}M "
              f"{row['step_s']:>8.3f} {row['max_grad_diff']:>10.3g}")
    if args.json:
        with open(args.json + ".tmp", "w") as f:
            json.dump(result, f, indent=2)
        os.replace(args.json + ".tmp", args.json)


if __name__ == "__main__":
    main()
