"""PyTorch's auto-SAC (torch.distributed._tools, private) in
bench/framework_race.py, on the CPU.

Its pipeline, as PyTorch's own tests run it: the model and batch made fake
(FakeTensorMode), one training step under MemTracker (per-module memory),
RuntimeEstimator (per-module time) and SACEstimator (per-op memory and time,
each module's trade-off curve), aggregate_stats and parse_module_info into
the module tree, sac_milp (a MILP solved by PuLP's CBC) choosing which
modules to checkpoint and what share of each one's activation memory to
discard within a budget, then get_optimal_checkpointing_policy_per_module
(a second MILP per module) choosing the ops to save. The race applies the
result as selective checkpointing: each chosen module runs under
torch.utils.checkpoint with a policy that saves the ops the MILP saved, in
the order SACEstimator saw them.

One change, because the CPU has no accelerator: both of PyTorch's time
estimates refuse to run without one (the roofline model asserts
torch.accelerator.is_available(); the benchmark mode times with
accelerator events). The estimate used here is PyTorch's roofline formula
itself (torch.utils._runtime_estimation's get_compute_time and
get_transfer_time: the larger of FLOPs at 75 % of peak and bytes over DRAM
bandwidth), pinned by its own `gpu_type` argument to a datasheet device,
ROOFLINE_DEVICE, since the CPU has no datasheet entry. Only the ops'
relative costs matter to the MILPs' choices.

The budget: sac_milp's memory model counts parameters, gradients and
activations; the race's counter counts neither weights nor gradients. With
them in, its peak is the end of the backward (every weight and gradient,
few activations), which no checkpointing lowers, and a cut below it is
infeasible; so sac_milp runs with a world_size so large that parameters and
gradients (which it divides by world_size, FSDP's shards) drop out, and each
target is passed as auto-SAC's own store-all activation peak less what the
target saves below store-all's measured peak: auto-SAC is asked to cut as
many bytes as the eager peer did."""
import contextlib
import copy
import importlib.util
import io

import torch
import torch.utils._pytree as pytree
from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts

from remat_torch.steps import step

ROOFLINE_DEVICE = "NVIDIA H100"
# sac_milp divides parameters and gradients by its world_size (FSDP's shards);
# one this large takes them out of its memory model, as the race's counter
# leaves them out of its peaks.
WITHOUT_WEIGHTS = 2**40


class Missing(Exception):
    """Auto-SAC cannot run here at all; the message says why."""


class NoPlan(Exception):
    """Auto-SAC found no plan at one budget; the message says why."""


def missing():
    """Why auto-SAC cannot run in this Python, or None."""
    try:
        from torch.distributed._tools import ilp_utils, sac_estimator  # noqa: F401
    except Exception as e:  # a private module: absent or moved in this PyTorch
        return f"torch.distributed._tools has no usable auto-SAC in PyTorch {torch.__version__}: {e}"
    if importlib.util.find_spec("pulp") is None:
        return ("torch.distributed._tools.sac_ilp.sac_milp solves its MILP with PuLP (CBC), which is not installed "
                "in this Python (scripts/torch2-python installs a pinned pulp)")
    import pulp
    if not pulp.PULP_CBC_CMD(msg=0).available():
        return f"PuLP {pulp.__version__} has no CBC solver binary here"
    return None


def _roofline(func, args, kwargs):
    """PyTorch's roofline estimate of one op (out, milliseconds), pinned to
    ROOFLINE_DEVICE's datasheet instead of querying an accelerator."""
    from torch.utils._runtime_estimation import _FLOAT_TYPES, _IGNORE_OPS, get_compute_time, get_transfer_time
    kwargs = kwargs or {}
    out = func(*args, **kwargs)
    packet = func._overloadpacket
    if packet in _IGNORE_OPS:
        return out, 0.0
    flat_in, flat_out = pytree.tree_leaves((args, kwargs)), pytree.tree_leaves(out)
    transfer = get_transfer_time(flat_in, flat_out, gpu_type=ROOFLINE_DEVICE)
    dtypes = {t.dtype for t in flat_out if isinstance(t, torch.Tensor) and t.dtype in _FLOAT_TYPES}
    compute = get_compute_time(packet, args, kwargs, out, dtypes, gpu_type=ROOFLINE_DEVICE) if dtypes else 0.0
    return out, max(transfer, compute) / 1e6


def _fake_copy(model, batch, fake):
    """(a copy of `model` whose parameters and buffers are fake tensors, tied
    weights kept tied; the batch made fake)."""
    clone = copy.deepcopy(model)
    made = {}

    def fake_of(t):
        if id(t) not in made:
            made[id(t)] = fake.from_tensor(t)
        return made[id(t)]
    for module in clone.modules():
        for name, p in list(module._parameters.items()):
            if p is not None:
                if id(p) not in made:
                    made[id(p)] = torch.nn.Parameter(fake.from_tensor(p.detach()), requires_grad=p.requires_grad)
                module._parameters[name] = made[id(p)]
        for name, b in list(module._buffers.items()):
            if b is not None:
                module._buffers[name] = fake_of(b)
    fake_batch = pytree.tree_map_only(torch.Tensor, fake_of, batch)
    return clone, fake_batch


def _drop_modules_without_backward(memory, runtime):
    """aggregate_stats reads every tracked module's pre-backward memory
    snapshot; a module whose outputs need no gradient (a rotary embedding's
    cos / sin tables) never runs a backward and has none, and aggregate_stats
    fails on it (KeyError). Such modules hold no activations to discard:
    they are left out of the statistics and of the module orders, whole
    subtrees at a time, so parse_module_info's tree stays consistent.
    Returns their names. Modules called more than once keep their first
    place in each order only."""
    from torch.distributed._tools.mem_tracker import _ModState
    dropped = [(module, stats.mod_fqn) for module, stats in list(memory.memory_tracking.items())
               if _ModState.PRE_BW not in stats.snapshots]
    for module, _ in dropped:
        del memory.memory_tracking[module]
    names = {fqn for _, fqn in dropped}
    for order in (runtime.mod_fw_pre_order, runtime.mod_bw_pre_order, runtime.mod_fw_post_order,
                  runtime.mod_bw_post_order):
        # parse_module_info also takes each module to run once a step: a module
        # called twice or more (torchvision's Bottleneck calls its one ReLU three
        # times) is listed at its first call only
        seen = set()
        order[:] = [fqn for fqn in order if fqn not in names and not (fqn in seen or seen.add(fqn))]
    return sorted(names)


def _root_name(model):
    return type(model).__name__


class AutoSAC:
    """Statistics gathered once per model; plan(target) per budget."""

    def __init__(self, model, batch, store_all_peak):
        from torch._subclasses.fake_tensor import FakeTensorMode
        from torch.distributed._tools.ilp_utils import aggregate_stats, get_peak_memory_runtime_baseline, \
            parse_module_info
        from torch.distributed._tools.mem_tracker import MemTracker
        from torch.distributed._tools.runtime_estimator import RuntimeEstimator
        from torch.distributed._tools.sac_estimator import SACEstimator

        reason = missing()
        if reason:
            raise Missing(reason)
        fake = FakeTensorMode()
        fake_model, fake_batch = _fake_copy(model, batch, fake)
        fake_model.train()
        # RuntimeEstimator prints its total on stdout, where the race writes its JSON
        with fake, contextlib.redirect_stdout(io.StringIO()):
            memory = MemTracker()
            memory.track_external(fake_model)
            with memory:
                step(fake_model, fake_batch, "auto-SAC's MemTracker step")
            fake_model.zero_grad(set_to_none=True)
            runtime = RuntimeEstimator()
            runtime._estimate, runtime._estimate_mode_type = _roofline, f"roofline ({ROOFLINE_DEVICE} datasheet)"
            with runtime:
                step(fake_model, fake_batch, "auto-SAC's RuntimeEstimator step")
            fake_model.zero_grad(set_to_none=True)
            self.sac = SACEstimator()
            self.sac._estimate_runtime = _roofline
            with self.sac:
                step(fake_model, fake_batch, "auto-SAC's SACEstimator step")
            self.dropped = _drop_modules_without_backward(memory, runtime)
            info = aggregate_stats(fake_model, memory, runtime, self.sac, torch.device("cpu"))
        self.graph = parse_module_info(info)
        self.with_weights_bytes, self.baseline_ms = get_peak_memory_runtime_baseline(self.graph)
        # Its store-all peak without weights and gradients (what the race's counter leaves out)
        self.baseline_bytes = max(n["act_total"] + n["act_grad_per_module"] for n in self.graph.nodes)
        self.store_all_peak = store_all_peak
        self.root = _root_name(model)
        self.resolved = []

    def plan(self, target_bytes):
        """({module fqn: [1 save / 0 re-run per op]}, facts for the JSON) for
        a measured-peak target; NoPlan where the MILP has none."""
        from torch.distributed._tools.sac_ilp import get_optimal_checkpointing_policy_per_module, sac_milp
        budget = self.baseline_bytes - (self.store_all_peak - target_bytes)
        if budget <= 0:
            raise NoPlan(f"the target is {self.store_all_peak - target_bytes} B below store-all's measured peak, "
                         f"more than auto-SAC's own store-all estimate ({self.baseline_bytes} B) holds")
        with contextlib.redirect_stdout(io.StringIO()):
            decisions, recompute_ms, peak = sac_milp(self.graph, memory_budget=budget / 2**30,
                                                     world_size=WITHOUT_WEIGHTS)
        if peak == -1:
            raise NoPlan(f"sac_milp found no solution within {budget} B (its estimate of store-all: "
                         f"{self.baseline_bytes} B)")
        policies = {}
        for fqn, discard in decisions.items():
            with contextlib.redirect_stdout(io.StringIO()):
                try:
                    ops = get_optimal_checkpointing_policy_per_module(self.sac.sac_mod_stats[fqn], 1 - discard)
                except TypeError:  # round(None): see _op_policy
                    ops = _op_policy(self.sac.sac_mod_stats[fqn], 1 - discard)
                    self.resolved.append(fqn)
            if not ops:
                raise NoPlan(f"get_optimal_checkpointing_policy_per_module found no op policy for {fqn} "
                             f"at {1 - discard:.4f} of its activation memory")
            policies[fqn] = ops
        facts = {"auto_sac_modules_without_backward": self.dropped, "auto_sac_budget_bytes": int(budget), "auto_sac_store_all_estimate_bytes": int(self.baseline_bytes),
                 "auto_sac_estimated_peak_bytes": int(peak), "auto_sac_recompute_ms_estimate": recompute_ms,
                 "auto_sac_discard": decisions, "runtime_estimate": f"PyTorch's roofline, {ROOFLINE_DEVICE} datasheet",
                 "auto_sac_op_milp_resolved_here": sorted(set(self.resolved))}
        return policies, facts


def _op_policy(stats, budget):
    """get_optimal_checkpointing_policy_per_module's MILP, constraint for
    constraint, for the modules where PyTorch's own fails: an op that holds
    no memory and costs no time appears in no constraint, CBC leaves its
    variable unset (None), and PyTorch's `round(x.varValue)` raises
    TypeError (torchvision's Bottleneck: its batch norms' in-place updates).
    Here such an op is saved (it holds 0 bytes)."""
    import math

    from pulp import PULP_CBC_CMD, LpInteger, LpMaximize, LpProblem, LpVariable, lpDot
    n = len(stats.func_names)
    prob = LpProblem("SAC-per-module", LpMaximize)
    x = LpVariable.matrix("x", list(range(n)), 0, 1, LpInteger)
    if stats.force_store_random:
        for i in stats.rand_ops:
            prob += x[i] == 1
    else:
        for i1, i2 in zip(stats.rand_ops[:-1], stats.rand_ops[1:]):
            prob += x[i1] == x[i2]
    for i in stats.view_like_ops:
        prob += x[i] == 0
    for op, parent in stats.inplace_ops:
        prob += (x[op] == x[parent]) if op != parent else (x[op] == 1)
    prob += lpDot(x, stats.memory) <= math.ceil(budget * sum(stats.memory))
    prob += lpDot(x, stats.runtimes)
    if prob.solve(PULP_CBC_CMD(gapRel=0.05, timeLimit=10, msg=0)) != 1:
        return []
    return [1 if v.varValue is None else round(v.varValue) for v in x]


class _Policy:
    """The per-module op decisions as a selective-checkpoint policy: the
    n-th op of the forward (and of its re-run) that SACEstimator counts
    gets the n-th decision."""

    def __init__(self, fqn, ops):
        from torch.distributed._tools.sac_estimator import OPS_TO_ALWAYS_SKIP
        self.fqn, self.ops, self.skip = fqn, ops, OPS_TO_ALWAYS_SKIP
        self.counts = {False: 0, True: 0}

    def __call__(self, ctx, func, *args, **kwargs):
        if func in self.skip:
            return CheckpointPolicy.MUST_RECOMPUTE
        n = self.counts[ctx.is_recompute]
        self.counts[ctx.is_recompute] += 1
        if n >= len(self.ops):
            raise RuntimeError(f"auto-SAC policy of {self.fqn}: op {n} ({func}) beyond the {len(self.ops)} "
                               "ops SACEstimator counted")
        return CheckpointPolicy.PREFER_SAVE if self.ops[n] == 1 else CheckpointPolicy.MUST_RECOMPUTE


def applied(model, policies):
    """`model` with each module of `policies` checkpointed under its policy."""
    from race_peers import _wrap
    root = _root_name(model)
    named = {(f"{root}.{name}" if name else root): module for name, module in model.named_modules()}
    for fqn, ops in policies.items():
        if fqn not in named:
            raise NoPlan(f"auto-SAC chose {fqn}, which the model does not have")
        _wrap(named[fqn], lambda fqn=fqn, ops=ops: create_selective_checkpoint_contexts(_Policy(fqn, ops)))
    return model
