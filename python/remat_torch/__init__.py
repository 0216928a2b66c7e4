"""remat_torch: bring a PyTorch model into remat and a remat plan back out
(docs/pytorch.md).

    import remat_torch
    remat_torch.apply(model, "plan.json")   # torch.utils.checkpoint where the plan says

The command line: python3 -m remat_torch trace | apply | verify."""
from .errors import UsageError

__all__ = ["apply", "remove", "trace", "UsageError"]


def apply(model, plan):
    """Wraps the segments `plan` (remat plan --json: a dict or a path)
    checkpoints in `model`, in place; returns the segments as module names."""
    from .applying import apply as _apply
    return _apply(model, plan)


def remove(model):
    """Undoes apply()."""
    from .applying import remove as _remove
    return _remove(model)


def trace(spec, shape, **options):
    """The model file (a dict) of SPEC traced on an input of `shape`."""
    from .tracing import trace as _trace
    return _trace(spec, shape, **options)
