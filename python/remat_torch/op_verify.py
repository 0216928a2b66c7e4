"""verify with an op-level plan (docs/pytorch.md, "Op level"): one training
step of the plain model and one with the plan applied, each under LiveTensors
(the peak) and a dispatch mode counting every op call by kind. The re-runs
the plan made, per op kind, are the calls the planned step made beyond the
plain one (the backward is the same in both, so it cancels), set against the
plan's "recomputations"; the gradients against the plain model's; the peak
against the plan's prediction."""
import collections

import torch

from .applying import apply
from .compat import TorchDispatchMode, storage_bytes
from .counting import LiveTensors
from .ops import op_name, run_op
from .plans import budget_bytes
from .inputs import build_inputs, describe
from .spec import build_model, parse_device, parse_dtype
from .steps import batch_tensors, held_before_step, preallocate_gradients, step


class OpCounter(TorchDispatchMode):
    """Calls of every aten op, by name."""

    def __init__(self):
        super().__init__()
        self.calls = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls[op_name(func)] += 1
        return run_op(func, args, kwargs)


def _step(spec, inputs, dtype, device, plan):
    model = build_model(spec).to(device=device, dtype=dtype).train()
    batch = build_inputs(inputs, dtype, device)
    if plan is not None:
        apply(model, plan)
    preallocate_gradients(model)
    torch.manual_seed(3)  # dropout draws the same masks in every run
    live, counter = LiveTensors(ignore=held_before_step(model, batch)), OpCounter()
    with live, counter:
        step(model, batch, spec)
    grads = [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]
    return live.peak + sum(storage_bytes(t) for t in batch_tensors(batch)), counter.calls, grads


def verify_ops(plans, spec, inputs, dtype_name, device="cpu", progress=None):
    progress = progress or (lambda step_index, total, text: None)
    dtype, device_value = parse_dtype(dtype_name), parse_device(device)
    if device_value.type != "cpu":
        from .errors import UsageError
        raise UsageError("verify of an op-level plan runs on the CPU (LiveTensors); --device cpu")
    total = len(plans) + 1
    progress(1, total, "plain model (no checkpoints)")
    peak, plain_calls, reference = _step(spec, inputs, dtype, device_value, None)
    runs = [{"plan": "store-all (the plain model, no checkpoints)", "file": None,
             "predicted_peak_bytes": plans[0]["store_all"]["peak_bytes"], "observed_peak_bytes": peak,
             "budget_bytes": None, "within_budget": None,
             "recomputations": {"predicted": {}, "observed": {}}, "max_grad_diff": 0.0}]
    for k, plan in enumerate(plans):
        progress(k + 2, total, plan["plan"].get("strategy", "op-level"))
        peak, calls, grads = _step(spec, inputs, dtype, device_value, plan)
        predicted = plan["selective"]["recomputations"]
        kinds = set(predicted) | {n["op"] for b in plan["selective"]["blocks"] for n in b["nodes"]}
        observed = {kind: calls[kind] - plain_calls[kind] for kind in sorted(kinds)
                    if calls[kind] != plain_calls[kind] or kind in predicted}
        worst = max(((g.double() - r.double()).abs().max().item() for g, r in zip(grads, reference)), default=0.0)
        budget = budget_bytes(plan)
        runs.append({"plan": f"op-level plan for {budget} B" if budget is not None else "op-level",
                     "file": plan["_where"], "predicted_peak_bytes": plan["selective"]["predicted_peak_bytes"],
                     "observed_peak_bytes": peak, "budget_bytes": budget,
                     "within_budget": None if budget is None else peak <= budget,
                     "recomputations": {"predicted": dict(sorted(predicted.items())), "observed": observed},
                     "max_grad_diff": worst})
    return {"model": spec, "input": describe(inputs), "inputs": inputs, "dtype": dtype_name, "device": device, "torch": torch.__version__,
            "threads": torch.get_num_threads(), "granularity": "op",
            "counter": "LiveTensors: storages made in the step, followed op by op", "runs": runs}
