"""remat_torch verify: one training step with each plan applied and one
without, in PyTorch, against remat's prediction (docs/pytorch.md).

Per run: remat's predicted peak and the peak PyTorch held (CPU: LiveTensors,
every storage made in the step followed op by op; CUDA: the caching
allocator's max_memory_allocated over the step), both counting the input
batch and nothing that existed before the step (weights, their gradients,
allocated in advance so that gradients accumulate in place); each node's
forward evaluations (forward pre-hooks on its first module) against remat's
schedule; the largest difference of any weight gradient from the plain
model's."""
import json

import torch

from .applying import apply
from .compat import storage_bytes, storage_key
from .counting import LiveTensors
from .errors import UsageError
from .inputs import build_inputs, describe, recorded_inputs
from .op_verify import verify_ops
from .plans import budget_bytes, check_same_model, load_plan, plan_title, traced_model
from .reports import over_budget, report_text
from .spec import build_model, parse_device, parse_dtype
from .steps import autocast, batch_tensors, held_before_step, preallocate_gradients, step


def _count_evaluations(model, nodes):
    """Forward pre-hooks on each node's first module: they fire on real runs
    only (a checkpoint's re-run included, apply's hand-back not)."""
    counts = {node: 0 for node, _ in nodes}
    named = dict(model.named_modules())
    handles = []
    for node, modules in nodes:
        if modules[0] not in named:
            raise UsageError(f"the plan's node {node} runs module {modules[0]!r}, which this model does not have")

        def hook(module, args, node=node):
            counts[node] += 1
        handles.append(named[modules[0]].register_forward_pre_hook(hook))
    return counts, handles


def _measured_step(model, batch, device, what):
    """Peak bytes held during one training step, the inputs included."""
    inputs_bytes = sum({storage_key(t): storage_bytes(t) for t in batch_tensors(batch)}.values())
    preallocate_gradients(model)
    if device.type == "cuda":
        torch.cuda.synchronize(device)
        base = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)
        step(model, batch, what)
        torch.cuda.synchronize(device)
        return torch.cuda.max_memory_allocated(device) - base + inputs_bytes
    live = LiveTensors(ignore=held_before_step(model, batch))
    with live:
        step(model, batch, what)
    return live.peak + inputs_bytes


def _run(spec, inputs, dtype, device, plan, nodes, what):
    model = build_model(spec).to(device=device, dtype=dtype).train()
    batch = build_inputs(inputs, dtype, device)
    if device.type == "cuda":  # the first step also allocates cuBLAS/cuDNN workspaces: not the plan's
        step(model, batch, what)
    if plan is not None:
        apply(model, plan)
    counts, handles = _count_evaluations(model, nodes)
    torch.manual_seed(3)  # dropout draws the same masks in every run
    peak = _measured_step(model, batch, device, what)
    for h in handles:
        h.remove()
    grads = [p.grad.detach().clone() for p in model.parameters() if p.grad is not None]
    return peak, counts, grads


def _max_difference(grads, reference):
    worst = 0.0
    for g, r in zip(grads, reference):
        worst = max(worst, (g.double() - r.double()).abs().max().item())
    return worst


def verify(plans, spec=None, inputs=None, device="cpu", progress=None):
    """The runs of verify as dicts (the JSON of --json). `inputs`: a record
    of remat_torch.inputs (default: the plan's)."""
    progress = progress or (lambda step_index, total, text: None)
    plans = [load_plan(p) for p in plans]
    traced_spec, traced_inputs, dtype_name = traced_model(plans[0])
    for plan in plans:
        check_same_model(plan, spec if spec is not None else traced_spec,
                         inputs if inputs is not None else traced_inputs)
    spec = spec or traced_spec
    inputs = inputs or traced_inputs
    mixed = plans[0].get("trace", {}).get("autocast")
    with autocast(mixed):  # as traced: mixed precision or not
        result = _verify(plans, spec, inputs, device, progress, dtype_name)
    result["autocast"] = mixed
    return result


def _verify(plans, spec, inputs, device, progress, dtype_name):
    if any("selective" in plan for plan in plans):
        if not all("selective" in plan for plan in plans):
            raise UsageError("verify takes op-level plans (remat plan --granularity op) or block-level plans, not both")
        return verify_ops(plans, spec, inputs, dtype_name, device, progress)
    dtype, device_value = parse_dtype(dtype_name), parse_device(device)
    # A node without modules (the loss the model's own code computes) runs once per step, never checkpointed.
    nodes = [(e["node"], e["modules"]) for e in plans[0]["apply"]["forward_evaluations"] if e["modules"]]
    total = len(plans) + 1
    progress(1, total, "plain model (no checkpoints)")
    peak, counts, reference = _run(spec, inputs, dtype, device_value, None, nodes, spec)
    runs = [{
        "plan": "store-all (the plain model, no checkpoints)",
        "file": None,
        "predicted_peak_bytes": plans[0]["store_all"]["peak_bytes"],
        "observed_peak_bytes": peak,
        "budget_bytes": None,
        "within_budget": None,
        "forward_evaluations": {"predicted": {n: 1 for n, _ in nodes}, "observed": counts},
        "max_grad_diff": 0.0,
    }]
    for k, plan in enumerate(plans):
        progress(k + 2, total, plan_title(plan))
        peak, counts, grads = _run(spec, inputs, dtype, device_value, plan, nodes, spec)
        budget = budget_bytes(plan)
        runs.append({
            "plan": plan_title(plan),
            "file": plan["_where"],
            "predicted_peak_bytes": plan["apply"]["predicted_peak_bytes"],
            "observed_peak_bytes": peak,
            "budget_bytes": budget,
            "within_budget": None if budget is None else peak <= budget,
            "forward_evaluations": {
                "predicted": {e["node"]: e["evaluations"] for e in plan["apply"]["forward_evaluations"]
                              if e["modules"]},
                "observed": counts},
            "max_grad_diff": _max_difference(grads, reference),
        })
    counter = ("torch.cuda.max_memory_allocated over the step" if device_value.type == "cuda" else
               "LiveTensors: storages made in the step, followed op by op")
    return {"model": spec, "input": describe(inputs), "inputs": inputs, "dtype": dtype_name, "device": device, "torch": torch.__version__,
            "threads": torch.get_num_threads(), "counter": counter, "runs": runs}


def verify_command(plan_paths, spec, input_texts, inputs_function, device, as_json, progress):
    """(the text to print, the over-budget line or "")."""
    inputs = recorded_inputs(input_texts, inputs_function) if (input_texts or inputs_function) else None
    result = verify(plan_paths, spec, inputs, device, progress)
    return (json.dumps(result, indent=2) if as_json else report_text(result)), over_budget(result)
