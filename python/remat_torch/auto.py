"""remat_torch.auto_checkpoint: trace, plan and apply in one call, in the
training script (docs/pytorch.md, "One call").

    report = remat_torch.auto_checkpoint(model, batch, budget="8GiB")
    print(report)                      # predicted peak, what is checkpointed
    for batch in loader: model(**batch).loss.backward(); ...

The model is traced in this process on `example_inputs` (a tensor, a tuple
of positional arguments, or a dict of keyword arguments, as the training
loop calls it), planned by remat's own binary for the budget, and the plan
applied in place. Tracing runs real training steps; the model is left as it
was found: gradients, buffers (BatchNorm's running statistics) and the RNG
state are restored."""
import dataclasses
import time

import torch

from .applying import apply
from .errors import UsageError
from .planning import plan as remat_plan
from .plans import budget_bytes
from .steps import batch_tensors

_DTYPE_NAMES = {torch.float32: "float32", torch.float64: "float64", torch.bfloat16: "bfloat16",
                torch.float16: "float16"}


@dataclasses.dataclass
class AutoCheckpointReport:
    """What auto_checkpoint did. `checkpointed`: the module names under a
    checkpoint (module level: one list per segment; op level: the blocks);
    `kept` and `rerun` (op level): per block, the ops kept and re-run."""
    granularity: str
    budget: str
    predicted_peak_bytes: int
    store_all_peak_bytes: int
    checkpointed: list
    kept: dict
    rerun: dict
    plan: dict
    seconds: dict

    def __str__(self):
        saved = 1 - self.predicted_peak_bytes / self.store_all_peak_bytes if self.store_all_peak_bytes else 0
        what = (f"{len(self.checkpointed)} checkpointed segment(s)" if self.granularity == "module" else
                f"{len(self.checkpointed)} block(s) under a selective checkpoint")
        return (f"remat: predicted peak {self.predicted_peak_bytes / 2**20:.1f} MiB for budget {self.budget} "
                f"(store-all {self.store_all_peak_bytes / 2**20:.1f} MiB, {saved:.0%} less); {what}; "
                f"trace {self.seconds['trace']:.1f} s, plan {self.seconds['plan']:.1f} s")


def _batch(example_inputs):
    if isinstance(example_inputs, torch.Tensor):
        return (example_inputs,), {}
    if isinstance(example_inputs, dict) and example_inputs and all(isinstance(k, str) for k in example_inputs):
        return (), dict(example_inputs)
    if isinstance(example_inputs, (tuple, list)) and example_inputs:
        return tuple(example_inputs), {}
    raise UsageError(f"example_inputs: got {type(example_inputs).__name__}; expected a tensor, a tuple of "
                     "positional arguments or a dict of keyword arguments, as the model is called in training")


def _model_dtype_device(model):
    for p in model.parameters():
        if p.is_floating_point():
            return _DTYPE_NAMES.get(p.dtype, "float32"), p.device.type
    return "float32", "cpu"


class _Restored:
    """Gradients, buffers and the RNG state as they were before the trace."""

    def __init__(self, model):
        self.model = model

    def __enter__(self):
        self.grads = {id(p): p.grad for p in self.model.parameters()}
        self.buffers = [(b, b.detach().clone()) for b in self.model.buffers()]
        self.training = self.model.training
        self.rng = torch.random.fork_rng(devices=[])
        self.rng.__enter__()
        return self

    def __exit__(self, *exc):
        self.rng.__exit__(*exc)
        with torch.no_grad():
            for buffer, value in self.buffers:
                buffer.copy_(value)
        for p in self.model.parameters():
            p.grad = self.grads.get(id(p))
        self.model.train(self.training)
        return False


def auto_checkpoint(model, example_inputs, budget="8GiB", granularity="module", blocks="auto", timing_steps=3,
                    cost="time", effort=None):
    """Traces `model` on `example_inputs`, plans it with remat for `budget`
    (bytes, or text such as "8GiB"), applies the plan in place and returns
    an AutoCheckpointReport. granularity "module" checkpoints whole blocks;
    "op" keeps some tensors of each block and re-runs the rest (PyTorch
    2.4+'s selective checkpointing, or its equivalent on 1.13)."""
    if granularity not in ("module", "op"):
        raise UsageError(f"granularity {granularity!r}: expected \"module\" or \"op\"")
    if not isinstance(model, torch.nn.Module):
        raise UsageError(f"model: got {type(model).__name__}, not a torch.nn.Module")
    batch = _batch(example_inputs)
    if not batch_tensors(batch):
        raise UsageError("example_inputs hold no tensor")
    dtype, device = _model_dtype_device(model)
    label = f"{type(model).__name__} (in-process)"
    recorded = {"function": "auto_checkpoint's example_inputs"}
    seconds = {}
    start = time.perf_counter()
    with _Restored(model):
        model.train()
        if granularity == "op":
            from .op_trace import trace_ops
            doc = trace_ops(label, recorded, dtype, device, blocks, cost=cost, model=model, batch=batch)
        else:
            from .tracing import trace
            doc = trace(label, recorded, dtype, device, blocks, timing_steps=timing_steps, cost=cost, model=model,
                        batch=batch)
    seconds["trace"] = time.perf_counter() - start
    start = time.perf_counter()
    options = ["--effort", f"{int(effort)}"] if effort is not None and granularity == "op" else []
    planned = remat_plan(doc, budget, granularity, options)
    wanted = budget_bytes(planned)
    if granularity == "module" and wanted is not None and planned["store_all"]["peak_bytes"] <= wanted:
        # The whole model fits: nothing to re-run (remat's graph heuristic
        # may still checkpoint some blocks at a budget above store-all's peak).
        planned = remat_plan(doc, None, granularity, ["--strategy", "store-all"])
        planned["budget"] = {"bytes": wanted}
    seconds["plan"] = time.perf_counter() - start
    start = time.perf_counter()
    apply(model, planned)
    seconds["apply"] = time.perf_counter() - start
    return _report(planned, granularity, str(budget), seconds)


def _report(planned, granularity, budget, seconds):
    store_all = planned["store_all"]["peak_bytes"]
    if granularity == "op":
        blocks = [b for b in planned["selective"]["blocks"] if b["checkpointed"]]
        kept = {b["module"]: [n["node"] for n in b["nodes"] if n["keep"]] for b in blocks}
        rerun = {b["module"]: [n["node"] for n in b["nodes"] if not n["keep"]] for b in blocks}
        return AutoCheckpointReport(granularity, budget, planned["selective"]["predicted_peak_bytes"], store_all,
                                    [b["module"] for b in blocks], kept, rerun, planned, seconds)
    segments = [s["modules"] for s in planned["apply"]["segments"]]
    return AutoCheckpointReport(granularity, budget, planned["apply"]["predicted_peak_bytes"], store_all, segments,
                                {}, {}, planned, seconds)
