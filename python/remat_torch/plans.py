"""Reading the JSON that `remat plan --json` prints (docs/cli.md, docs/pytorch.md)."""
import json
import os

from .errors import UsageError


def load_plan(plan):
    """The plan as a dict, from a dict or a path; refused with the reason when
    it is not a plan, or cannot run in PyTorch."""
    where = "the plan"
    if isinstance(plan, (str, os.PathLike)):
        where = str(plan)
        try:
            with open(plan) as f:
                plan = json.load(f)
        except OSError as e:
            raise UsageError(f"{where}: cannot read the plan ({e.strerror})") from None
        except ValueError as e:
            raise UsageError(f"{where}: not JSON ({e}); expected what remat plan --json prints") from None
    if isinstance(plan, dict) and isinstance(plan.get("selective"), dict) and "plan" in plan:
        return check_selective_plan(plan, where)
    if not isinstance(plan, dict) or not isinstance(plan.get("apply"), dict) or "plan" not in plan:
        raise UsageError(f"{where}: not the output of remat plan --model FILE --json (no \"apply\" section)")
    applied = plan["apply"]
    if not applied.get("appliable"):
        raise UsageError(f"{where}: this plan cannot run in PyTorch: {applied.get('reason', 'no reason given')}")
    if not isinstance(applied.get("segments"), list):
        raise UsageError(f"{where}: \"apply\" has no list of segments")
    plan = dict(plan)
    plan["_where"] = where
    return plan


def plan_title(plan):
    p = plan["plan"]
    return f"{p.get('name', '?')} ({p.get('description', '')})" if p.get("description") else p.get("name", "?")


def traced_model(plan):
    """(spec, inputs record, dtype) the plan's model file was traced from."""
    from .inputs import from_trace
    trace = plan.get("trace")
    if not isinstance(trace, dict) or "model" not in trace or ("input" not in trace and "inputs" not in trace):
        raise UsageError(f"{plan['_where']}: its model file was not made by remat_torch trace "
                         "(no \"trace\" section): no PyTorch model to run")
    return trace["model"], from_trace(trace), trace.get("dtype", "float32")


def check_same_model(plan, spec, inputs):
    """Refuses a plan made for another model or other inputs."""
    from .inputs import describe
    traced_spec, traced_inputs, _ = traced_model(plan)
    if spec is not None and spec != traced_spec:
        raise UsageError(f"{plan['_where']} was planned for {traced_spec} ({describe(traced_inputs)}), "
                         f"not for {spec}: plan the model file traced from {spec}")
    if inputs is not None and inputs != traced_inputs:
        raise UsageError(f"{plan['_where']} was planned for {describe(traced_inputs)}, not "
                         f"{describe(inputs)}: its sizes hold for those inputs only; trace and plan again")


def budget_bytes(plan):
    """The byte budget the plan was made for, or None."""
    budget = plan.get("budget")
    return budget.get("bytes") if isinstance(budget, dict) else None


def node_call(name):
    """MODULE#CALL:OP -> CALL."""
    try:
        return int(name.split("#", 1)[1].split(":", 1)[0])
    except (IndexError, ValueError):
        raise UsageError(f"op-level plan node {name!r} is not named MODULE#CALL:OP "
                         "(remat_torch trace --granularity op names them so)") from None


def check_selective_plan(plan, where):
    """An op-level plan as apply and verify read it; refused with the reason
    when its kept tensors cannot rebuild the rest (remat plan never writes
    such a plan; a hand-edited one may)."""
    blocks = plan["selective"].get("blocks")
    if not isinstance(blocks, list) or not blocks:
        raise UsageError(f"{where}: \"selective\" has no list of blocks")
    for block in blocks:
        nodes = block.get("nodes") if isinstance(block, dict) else None
        if not isinstance(nodes, list) or not nodes or not isinstance(block.get("module"), str):
            raise UsageError(f"{where}: a block of \"selective\" lacks its module or nodes")
        for node in nodes:
            node_call(node.get("node", ""))
        if block.get("checkpointed") and not nodes[-1].get("keep"):
            raise UsageError(f"{where}: block {block['module']} re-runs its output {nodes[-1]['node']}, which "
                             "nothing could rebuild it from (the next block's input must be kept)")
    plan = dict(plan)
    plan["_where"] = where
    return plan
