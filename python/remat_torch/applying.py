"""remat_torch.apply: a remat plan as torch.utils.checkpoint wrappers, in place
(docs/pytorch.md).

Each checkpointed segment of the plan becomes one non-reentrant checkpoint
(preserve_rng_state=True). A segment of several nodes is run by its first
module: it calls the segment's modules one after the other inside the
checkpoint and hands the later modules' outputs out when the model's own
code calls them (which trace checked it does with exactly the previous
output). The modules stay the same objects, so their hooks fire, also when
the checkpoint re-runs them."""
import torch

from . import calls
from .compat import checkpoint
from .errors import UsageError
from .hf import without_cache
from .plans import load_plan


def _real_call(module):
    return lambda *args, **kwargs: type(module)._remat_original_class.__call__(module, *args, **kwargs)


_METADATA_PROPERTIES = {"shape", "dtype", "device", "layout", "ndim", "is_cuda", "is_sparse", "is_quantized",
                        "is_meta", "names"}
_METADATA_METHODS = {"dim", "size", "numel", "nelement", "ndimension", "is_floating_point", "is_complex",
                     "__len__"}


class _HandedOver(torch.Tensor):
    """What the model's code gets for the output of a module inside a
    checkpointed segment whose only reader is the segment's next module: its
    shape and dtype, not its data. The code between them only passes it on
    (trace saw the next module called with exactly it), but the call that
    passes it on can hold it: a Sequential's argument tuple keeps its input
    until the Sequential returns, which would keep a real output alive long
    after the plan frees it (regnet's stem output through every block of
    its trunk). Anything else done with it is an error, not silent garbage."""
    _remat_module = ""
    _remat_requires_grad = False

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        descriptor = getattr(func, "__self__", None)
        prop = getattr(descriptor, "__name__", None) if getattr(func, "__name__", None) == "__get__" else None
        if prop == "requires_grad":
            return args[0]._remat_requires_grad
        if prop in _METADATA_PROPERTIES or getattr(func, "__name__", None) in _METADATA_METHODS:
            with torch._C.DisableTorchFunction():
                return func(*args, **(kwargs or {}))
        module = next((a._remat_module for a in args if isinstance(a, _HandedOver)), "a module")
        raise RuntimeError(
            f"remat_torch.apply: the output of {module} was used by {getattr(func, '__name__', func)} outside its "
            "checkpointed segment, where the model file says only the next module reads it; trace the model "
            "again")


def _stand_in(output, module_name):
    if not isinstance(output, torch.Tensor) or type(output) is not torch.Tensor:
        return output
    base = torch.empty((), dtype=output.dtype, device=output.device).expand(output.shape)
    stand_in = torch.Tensor._make_subclass(_HandedOver, base)
    stand_in._remat_module = module_name
    stand_in._remat_requires_grad = output.requires_grad
    return stand_in


def _wrap_segment(modules, names, internal=()):
    pending = []  # (module, the input the model must pass, the output to hand back)

    def head(run, args, kwargs):
        kwargs = without_cache(modules[0], kwargs)
        if len(modules) == 1:
            return checkpoint(run, *args, **kwargs)

        def segment(*a, **k):
            outputs = [run(*a, **k)]
            for module in modules[1:]:
                outputs.append(_real_call(module)(outputs[-1]))
            return tuple(outputs)

        outputs = [_stand_in(o, names[i]) if names[i] in internal else o
                   for i, o in enumerate(checkpoint(segment, *args, **kwargs))]
        pending[:] = [(m, outputs[i], outputs[i + 1]) for i, m in enumerate(modules[1:])]
        return outputs[0]

    def later(index):
        def call(run, args, kwargs):
            if pending and pending[0][0] is modules[index]:
                _, expected, output = pending.pop(0)
                if len(args) == 1 and args[0] is expected and all(v is None for v in kwargs.values()):
                    return output
                pending.clear()
                raise RuntimeError(
                    f"remat_torch.apply: {names[index]} was called with something else than the output of "
                    f"{names[index - 1]}, so one checkpoint cannot span both; trace the model again (trace "
                    "marks such nodes \"chained\": false and remat plan cuts segments there)")
            return run(*args, **kwargs)  # called on its own, outside its segment
        return call

    calls.intercept(modules[0], head)
    for index in range(1, len(modules)):
        calls.intercept(modules[index], later(index))


def apply(model, plan):
    """Wraps the plan's checkpointed segments in `model` in place; returns
    them as lists of module names. `plan`: what remat plan --json printed
    (a dict or a path)."""
    plan = load_plan(plan)
    _take_over_hf_checkpointing(model)
    if "selective" in plan:
        from .selective import apply_selective
        return apply_selective(model, plan)
    segments = [s["modules"] for s in plan["apply"]["segments"]]
    internal = [set(s.get("internal_outputs", ())) for s in plan["apply"]["segments"]]
    named = dict(model.named_modules())
    for names in segments:
        for name in names:
            if name not in named:
                traced = plan.get("trace", {}).get("model", "another model")
                raise UsageError(f"{plan['_where']} checkpoints module {name!r}, which this model does not have: "
                                 f"the plan was made for {traced}")
            if calls.is_intercepted(named[name]):
                raise UsageError(f"module {name!r} is already wrapped (apply a plan once; remat_torch.remove first)")
    for names, inside in zip(segments, internal):
        _wrap_segment([named[n] for n in names], names, inside)
    return segments


def remove(model):
    """Undoes apply(): every module back to its own class, transformers'
    own checkpointing flags as they were."""
    for module in model.modules():
        calls.release(module)
        if "_remat_hf_flag" in module.__dict__:
            module.gradient_checkpointing = module.__dict__.pop("_remat_hf_flag")


def _take_over_hf_checkpointing(model):
    """transformers' layers checkpoint themselves when their
    `gradient_checkpointing` flag is on (model.gradient_checkpointing_enable());
    a plan's checkpoint around such a layer would run it under two
    wrappers, and a layer the plan keeps would still be re-run. The plan
    decides alone: every such flag is switched off (remove() restores it)."""
    for module in model.modules():
        flag = getattr(module, "gradient_checkpointing", None)
        if isinstance(flag, bool) and "_remat_hf_flag" not in module.__dict__:
            module.__dict__["_remat_hf_flag"] = flag
            module.gradient_checkpointing = False


def _mib(value):
    return f"{value / 2**20:.1f} MiB"


def describe_plan(plan_path, spec=None):
    """What apply does with a plan, in words, for python3 -m remat_torch apply."""
    from .plans import check_same_model, plan_title
    plan = load_plan(plan_path)
    if "selective" in plan:
        from .selective import describe_selective
        return describe_selective(plan, plan_path, spec)
    lines = []
    trace = plan.get("trace") or {}
    model_text = trace.get("model", "the traced model")
    if trace.get("input") or trace.get("inputs"):
        from .inputs import describe, from_trace
        model_text += f" ({describe(from_trace(trace))}; differentiated from the "
        model_text += f"{trace.get('differentiated_from', 'output gradient')})"
    segments = plan["apply"]["segments"]
    lines.append(f"{plan_path}: {plan_title(plan)} for {model_text}")
    lines.append(f"predicted peak {_mib(plan['apply']['predicted_peak_bytes'])} (store-all "
                 f"{_mib(plan['store_all']['peak_bytes'])}); {len(segments)} checkpointed "
                 f"segment{'s' if len(segments) != 1 else ''}:")
    for s in segments:
        chain = " -> ".join(s["modules"])
        lines.append(f"  checkpoint({chain}, use_reentrant=False, preserve_rng_state=True)")
    if not segments:
        lines.append("  none: every node runs once and keeps what its backward needs (store-all)")
    else:
        lines.append("every other node runs once and keeps what its backward needs.")
    if not plan["apply"].get("matches_plan", True):
        lines.append("note: PyTorch runs these segments its own way (it keeps a segment's last output that the next "
                     "node saved, re-runs a segment whole before the backward of its last node); the predicted peak "
                     "is remat's count of that, not of the plan's own schedule")
    if spec is not None:
        import torch  # noqa: F401  (the model is built to check the names)
        from .spec import build_model
        check_same_model(plan, spec, None)
        model = build_model(spec)
        apply(model, plan)
        lines.append(f"applied to {spec}: all {sum(len(s['modules']) for s in segments)} modules found")
    lines.append(f"in a script: import remat_torch; remat_torch.apply(model, {str(plan_path)!r})")
    return "\n".join(lines)
