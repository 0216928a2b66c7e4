"""remat_torch.apply with an op-level plan (remat plan --granularity op
--json): each checkpointed block runs under a selective checkpoint that keeps
exactly the planned tensors and re-runs every other op of the block once,
right before the block's backward needs what it saved (docs/pytorch.md, "Op
level").

The plan names each node MODULE#CALL:OP, CALL the index of the op call in the
block's forward (remat_torch trace --granularity op counts them the same way).
A kept node's call (and the in-place calls that finish it, like dropout's
`bernoulli_`) is cached in the forward pass and handed back, not run, when the
block is re-run.

PyTorch 2.4 and later: torch.utils.checkpoint with
`create_selective_checkpoint_contexts` and a policy built from the plan
(MUST_SAVE for the kept calls and the in-place calls that finish them,
PREFER_RECOMPUTE for the rest; early stop off, so that every other op is
re-run, as remat counts; random ops handed back from the cache still draw
their numbers). Older PyTorch (Debian's
1.13): the same semantics built here on saved_tensors_hooks (what the block
saves is packed as an index, nothing is held) and a dispatch mode (the cache
in the forward pass, handing back in the re-run)."""
import collections
import contextlib
import weakref

import torch
import torch.utils.checkpoint

from . import calls
from .compat import (CheckpointPolicy, TorchDispatchMode, checkpoint, checkpoint_early_stop,
                     create_selective_checkpoint_contexts, no_dispatch_modes)
from .errors import UsageError
from .hf import without_cache
from .inputs import describe, from_trace
from .plans import check_same_model, node_call
from .ops import is_inplace, numbered, op_name, run_op


def kept_calls(block):
    return {node_call(n["node"]) for n in block["nodes"] if n["keep"]}


def _detached(value):
    return torch.utils._pytree.tree_map(lambda t: t.detach() if isinstance(t, torch.Tensor) else t, value)


_RANDOM = ("bernoulli", "dropout", "uniform", "normal", "rand", "exponential", "geometric", "cauchy", "log_normal")


def _consumes_rng(func):
    name = op_name(func)
    return any(word in name for word in _RANDOM)


class _Identities:
    """A set of tensors by identity that holds none of them: an id() alone
    is reused once its tensor is freed, and dropout's fresh mask taken for
    a kept tensor had its bernoulli_ skipped (a mask of whatever memory held,
    gradients 1e23 off). A weak reference tells a live tensor from a new one
    at the same id."""

    def __init__(self):
        self._refs = {}

    def add(self, tensor):
        self._refs[id(tensor)] = weakref.ref(tensor)

    def __contains__(self, tensor):
        ref = self._refs.get(id(tensor))
        return ref is not None and ref() is tensor


class _Cache(TorchDispatchMode):
    """Forward pass: remembers the outputs of the kept calls (aliases: the
    in-place calls that finish a kept tensor, like dropout's bernoulli_,
    show through)."""

    def __init__(self, kept, store):
        super().__init__()
        self.kept, self.store = kept, store
        self.call = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        call = self.call if numbered(func) else -1
        self.call += call >= 0
        out = run_op(func, args, kwargs)
        if call in self.kept:
            self.store[call] = _detached(out)
        return out


class _HandBack(TorchDispatchMode):
    """The re-run: kept outputs handed back instead of computed; in-place
    calls on them skipped (the forward pass applied them already). Random
    ops skipped so still draw their numbers, on scratch tensors, so that the
    re-run's other random ops (dropout masks that are not kept) draw exactly
    what the forward pass drew."""

    def __init__(self, store):
        super().__init__()
        self.store = store
        self.call = 0
        self.handed = _Identities()  # the tensors handed back

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        call = self.call if numbered(func) else -1
        self.call += call >= 0
        kwargs = kwargs or {}
        if call in self.store:
            out = self.store.pop(call)
            if _consumes_rng(func):
                run_op(func, args, kwargs)
            for t in torch.utils._pytree.tree_flatten(out)[0]:
                if isinstance(t, torch.Tensor):
                    self.handed.add(t)
            return out
        if is_inplace(func) and args and isinstance(args[0], torch.Tensor) and args[0] in self.handed:
            if _consumes_rng(func):
                run_op(func, (torch.empty(args[0].shape, dtype=args[0].dtype, device=args[0].device),) + tuple(args[1:]), kwargs)
            return args[0]
        return run_op(func, args, kwargs)


def _selective_113(run, args, kwargs, kept):
    """One call of a block under the selective checkpoint, PyTorch < 2.4."""
    store = {}
    rng = torch.get_rng_state()
    saved = []  # re-run's saved tensors, in pack order; None once unpacked
    state = {"packs": 0, "rerun": False}

    def rerun():
        state["rerun"] = True
        with torch.random.fork_rng(devices=[]):
            torch.set_rng_state(rng)
            with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(
                    lambda t: saved.append(t) or len(saved) - 1, lambda i: saved[i]), _HandBack(store):
                run(*args, **kwargs)

    def pack(t):
        index = state["packs"]
        state["packs"] += 1
        return index

    def unpack(index):
        if not state["rerun"]:
            rerun()
        t = saved[index]
        saved[index] = None
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, unpack), _Cache(kept, store):
        return run(*args, **kwargs)


class _ReplayRandom(TorchDispatchMode):
    """PyTorch 2's re-run, on top of its cached mode: a random op whose
    output the forward pass cached (dropout's bernoulli_ on a kept mask) is
    handed back from the cache without running, so it would not draw its
    numbers and every later random op of the re-run (the masks not kept)
    would draw other numbers than the forward pass did. It draws them here,
    on a scratch tensor, before the cache hands the output back."""

    def __init__(self, saved_random):
        super().__init__()
        self.saved_random = saved_random
        self.seen = collections.Counter()

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        if numbered(func) and _consumes_rng(func):
            index = self.seen[func]
            self.seen[func] += 1
            if (func, index) in self.saved_random and args and isinstance(args[0], torch.Tensor):
                with no_dispatch_modes():
                    scratch = torch.empty(args[0].shape, dtype=args[0].dtype, device=args[0].device)
                    func(scratch, *args[1:], **(kwargs or {}))
        # Not run_op: a number made a tensor here would be a lift_fresh the
        # cache below never saw in the forward pass.
        return func(*args, **(kwargs or {}))


def _selective_24(run, args, kwargs, kept):
    """One call of a block under PyTorch 2's selective checkpoint. The kept
    calls are MUST_SAVE; so are the in-place calls that finish a kept tensor
    afterwards (dropout's bernoulli_ and div_ on its mask), which a re-run
    must not apply a second time to the cached tensor; every other op is
    re-run."""
    state = {"call": 0, "kept": _Identities()}  # the kept outputs, while the forward pass runs
    saved_random = set()  # (op, its index among that op's calls): random ops the cache hands back
    per_op = collections.Counter()

    def policy(ctx, op, *a, **k):
        if ctx.is_recompute:  # PyTorch 2.4-2.5 ask in the re-run too; the forward pass decided
            return CheckpointPolicy.PREFER_RECOMPUTE
        index = per_op[op]
        per_op[op] += 1
        if not numbered(op):
            return CheckpointPolicy.PREFER_RECOMPUTE
        call = state["call"]
        state["call"] += 1
        save = call in kept
        if not save and is_inplace(op) and a and isinstance(a[0], torch.Tensor) and a[0] in state["kept"]:
            save = True
        if not save:
            return CheckpointPolicy.PREFER_RECOMPUTE
        output = getattr(ctx, "op_output", None)
        for t in torch.utils._pytree.tree_flatten(output)[0]:
            if isinstance(t, torch.Tensor):
                state["kept"].add(t)
        if _consumes_rng(op):
            saved_random.add((op, index))
        return CheckpointPolicy.MUST_SAVE

    def contexts():
        forward, recompute = create_selective_checkpoint_contexts(policy, allow_cache_entry_mutation=True)
        return forward, _stacked(recompute, _ReplayRandom(saved_random))

    with checkpoint_early_stop(False):
        return checkpoint(run, *args, context_fn=contexts, **kwargs)


@contextlib.contextmanager
def _stacked(*contexts):
    with contextlib.ExitStack() as stack:
        for context in contexts:
            stack.enter_context(context)
        yield


def selective_runner():
    """The implementation this PyTorch gets."""
    if create_selective_checkpoint_contexts is not None:
        return _selective_24
    return _selective_113


def apply_selective(model, plan):
    """Wraps each checkpointed block of an op-level plan; returns their names."""
    named = dict(model.named_modules())
    blocks = [b for b in plan["selective"]["blocks"] if b["checkpointed"]]
    for block in blocks:
        if block["module"] not in named:
            traced = plan.get("trace", {}).get("model", "another model")
            raise UsageError(f"{plan['_where']} checkpoints module {block['module']!r}, which this model does not "
                             f"have: the plan was made for {traced}")
        if calls.is_intercepted(named[block["module"]]):
            raise UsageError(f"module {block['module']!r} is already wrapped (apply a plan once; "
                             "remat_torch.remove first)")
    runner = selective_runner()
    for block in blocks:
        kept = kept_calls(block)
        module = named[block["module"]]
        calls.intercept(module, lambda run, args, kwargs, kept=kept, module=module:
                        runner(run, args, without_cache(module, kwargs), kept))
    return [b["module"] for b in blocks]


def describe_selective(plan, plan_path, spec=None):
    """What apply does with an op-level plan, in words."""
    trace = plan.get("trace") or {}
    blocks = plan["selective"]["blocks"]
    checkpointed = [b for b in blocks if b["checkpointed"]]
    lines = [f"{plan_path}: op-level plan for {trace.get('model', 'the traced model')} ("
             + (describe(from_trace(trace)) if trace.get("input") or trace.get("inputs") else "input unknown") + "), "
             f"predicted peak {plan['selective']['predicted_peak_bytes'] / 2**20:.1f} MiB (store-all "
             f"{plan['store_all']['peak_bytes'] / 2**20:.1f} MiB); {len(checkpointed)} of {len(blocks)} blocks "
             f"under a selective checkpoint ({'create_selective_checkpoint_contexts' if selective_runner() is _selective_24 else 'saved-tensor hooks and a dispatch mode'}):"]
    for block in checkpointed:
        rerun = [n["node"].split(":", 1)[-1] for n in block["nodes"] if not n["keep"]]
        lines.append(f"  {block['module']}: keeps {sum(n['keep'] for n in block['nodes'])} tensors, re-runs "
                     f"{len(rerun)} ops ({', '.join(rerun)})")
    if spec is not None:
        from .spec import build_model
        check_same_model(plan, spec, None)
        apply_selective(build_model(spec), plan)
        lines.append(f"applied to {spec}: all {len(checkpointed)} blocks found")
    lines.append(f"in a script: import remat_torch; remat_torch.apply(model, {str(plan_path)!r})")
    return "\n".join(lines)
