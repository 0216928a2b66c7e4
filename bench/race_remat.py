"""remat's plans in bench/framework_race.py: the model traced once per
granularity (costs in FLOPs, the race's axis), then planned by the remat
binary at each budget and applied to a fresh copy, as auto_checkpoint
does in one call."""
from remat_torch.applying import apply
from remat_torch.auto import _Restored, _model_dtype_device
from remat_torch.errors import UsageError
from remat_torch.planning import plan as remat_plan

GRANULARITIES = (("block-level", "module"), ("op-level", "op"))


def trace(model, batch, granularity):
    """(the model file (a dict) of `model` on `batch`, its cost kind); the
    model is left as found. FLOPs where remat's tracer can weigh every node
    by them; at block level a node without a matrix product (an embedding)
    has none, and the tracer refuses: then measured time, the next best."""
    try:
        return _trace(model, batch, granularity, "flops"), "flops"
    except UsageError as e:
        if "--cost time" not in str(e):
            raise
    return _trace(model, batch, granularity, "time"), "time"


def _trace(model, batch, granularity, cost):
    dtype, device = _model_dtype_device(model)
    label, recorded = f"{type(model).__name__} (framework race)", {"function": "the race's --inputs"}
    with _Restored(model):
        model.train()
        if granularity == "op":
            from remat_torch.op_trace import trace_ops
            return trace_ops(label, recorded, dtype, device, "auto", cost=cost, model=model, batch=batch)
        from remat_torch.tracing import trace as trace_blocks
        return trace_blocks(label, recorded, dtype, device, "auto", timing_steps=1, cost=cost, model=model,
                            batch=batch)


def planned(doc, granularity, budget):
    """(the plan, its predicted peak) at `budget` bytes; UsageError with
    remat's one line where it refuses (a budget below its least peak)."""
    plan = remat_plan(doc, int(budget), granularity)
    if granularity == "module" and not plan["apply"].get("appliable", False):
        raise UsageError(f"the block-level plan does not run in PyTorch: {plan['apply'].get('reason', '?')}")
    predicted = plan["selective"]["predicted_peak_bytes"] if granularity == "op" else \
        plan["apply"]["predicted_peak_bytes"]
    return plan, predicted


def applied(model, plan):
    apply(model, plan)
    return model


__all__ = ["GRANULARITIES", "trace", "planned", "applied", "UsageError"]
