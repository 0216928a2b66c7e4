"""remat_torch: bring a PyTorch model into remat and a remat plan back out
(docs/pytorch.md).

    import remat_torch
    remat_torch.apply(model, "plan.json")   # torch.utils.checkpoint where the plan says
    remat_torch.auto_checkpoint(model, batch, budget="8GiB")   # trace, plan and apply in one call

The command line: python3 -m remat_torch trace | apply | verify."""
from .errors import UsageError

__all__ = ["apply", "auto_checkpoint", "inputs_of", "remove", "trace", "UsageError"]


def auto_checkpoint(model, example_inputs, budget="8GiB", granularity="module", **options):
    """Trace `model` on `example_inputs` in this process, plan it with the
    remat binary for `budget` ("8GiB" or bytes), apply the plan in place;
    returns a report (predicted_peak_bytes, plan, what is checkpointed,
    kept and re-run). granularity: "module" or "op"."""
    from .auto import auto_checkpoint as _auto
    return _auto(model, example_inputs, budget, granularity, **options)


def apply(model, plan):
    """Wraps the segments `plan` (remat plan --json: a dict or a path)
    checkpoints in `model`, in place; returns the segments as module names."""
    from .applying import apply as _apply
    return _apply(model, plan)


def remove(model):
    """Undoes apply()."""
    from .applying import remove as _remove
    return _remove(model)


def trace(spec, inputs, **options):
    """The model file (a dict) of SPEC traced on `inputs`: a shape, or
    {"tensors": ["8x512:int64:0..50257", ...]} or {"function": "FILE.py:callable"}."""
    from .tracing import trace as _trace
    return _trace(spec, inputs, **options)


def inputs_of(plan, dtype=None, device="cpu"):
    """(args, kwargs): the inputs the plan's model was traced with, rebuilt
    as trace and verify build them (`model(*args, **kwargs)`)."""
    import torch
    from .inputs import build_inputs
    from .plans import load_plan, traced_model
    from .spec import parse_dtype
    _, recorded, traced_dtype = traced_model(load_plan(plan))
    return build_inputs(recorded, dtype or parse_dtype(traced_dtype), torch.device(device))
