"""trace --granularity op: a remat model file with one node per PyTorch op
that makes a new tensor inside the model's blocks (docs/pytorch.md, "Op
level").

Seen by a dispatch mode over the aten ops of one training step:
- a node is an op call whose output has a storage not seen before (views
  join the storage they view; in-place ops such as dropout's `bernoulli_`
  join the node whose storage they rewrite and add their time to it, unless
  they read a node made from that storage's value: then they are a node of
  their own, which owns the storage from then on);
- its `bytes` are that storage's, its inputs the nodes that own the storages
  of its arguments (views resolved);
- what its backward keeps is read from autograd itself, after the forward:
  every `_saved_*` tensor of the op's grad_fn is its own output ("saves":
  "output"), one of its inputs ("saves": [that input]) or another output of
  the same op (LayerNorm's mean and rstd, dropout's mask: `saved_bytes`);
  parameters and buffers are not counted;
- `forward_cost`: the median time of the node's calls over the timed steps
  (ms); `flops` for matrix products; `backward_cost` is taken as twice the
  forward (PyTorch's backward ops are not attributed op by op);
- `module` names the block the op runs in, `op` the aten op; the name is
  MODULE#CALL:OP, CALL the index of the op call in the block's forward,
  which is how remat_torch.apply finds the op again.

Ops outside the blocks are nodes too, without a module: always kept. The
first node is every tensor the model is called with (token ids, a mask,
labels), as module level takes them (remat_torch.inputs); the step
differentiates the model's own loss where it returns one (steps.py)."""
import datetime
import statistics
import time

import torch

from .blocks import _auto_blocks, _pattern_blocks
from .compat import StorageWeakRef, TorchDispatchMode, storage_bytes, storage_key, storage_of
from .counting import LiveTensors, _tensors, flops_of
from .errors import UsageError
from .ops import is_inplace, numbered, op_name, run_op
from .inputs import build_inputs, check_signature, describe, text as inputs_text
from .spec import build_model, parse_device, parse_dtype
from .steps import OUTPUT_GRADIENT, backward, current_autocast, batch_tensors, differentiated_from, loss_of, output_tensors, run_forward

TIMED_STEPS = 3
# FLOPs per output element of the ops that are not matrix products (as
# resources/models/gpt2-block-ops.json counts them); any other op: 1, a view: 0.
ELEMENT_FLOPS = {"aten::_softmax": 5, "aten::native_layer_norm": 8, "aten::gelu": 8, "aten::tanh": 4,
                 "aten::_log_softmax": 5, "aten::_safe_softmax": 5}


class BlockCalls:
    """Which block is running and the index of each op call inside it:
    forward hooks on the block modules push and pop the block."""

    def __init__(self, model, blocks):
        self.stack = []
        self.calls = {"": 0}
        self.runs = {}
        self.handles = []
        # While the recording step runs: _Owners, and per block the nodes
        # whose outputs it is called with (checkpoint_arguments).
        self.owners = None
        self.arguments = {}
        named = dict(model.named_modules())
        for name in blocks:
            try:  # PyTorch 2: the keyword arguments too (Llama's position_ids)
                handle = named[name].register_forward_pre_hook(self._enter(name), with_kwargs=True)
            except TypeError:  # 1.13
                handle = named[name].register_forward_pre_hook(self._enter(name))
            self.handles.append(handle)
            self.handles.append(named[name].register_forward_hook(self._leave()))

    def _enter(self, name):
        def hook(module, args, kwargs=None):
            if self.owners is not None:
                found = self.arguments.setdefault(name, [])
                for t in _tensors((args, kwargs or {})):
                    owner = self.owners.get(t)
                    if owner is not None and owner not in found:
                        found.append(owner)
            self.stack.append(name)
            self.calls[name] = 0
            self.runs[name] = self.runs.get(name, 0) + 1
        return hook

    def _leave(self):
        def hook(module, args, output):
            self.stack.pop()
        return hook

    def next_call(self, func):
        module = self.stack[-1] if self.stack else ""
        if not numbered(func):
            return module, -1
        index = self.calls[module]
        self.calls[module] = index + 1
        return module, index

    def remove(self):
        for h in self.handles:
            h.remove()


class _Owners:
    """Storage -> node, forgetting storages PyTorch has freed (a new tensor
    may get a dead one's address)."""

    def __init__(self):
        self._map = {}

    def get(self, tensor):
        entry = self._map.get(storage_key(tensor))
        if entry is None or entry[1].expired():
            return None
        return entry[0]

    def set(self, tensor, node):
        storage = storage_of(tensor)
        self._map[storage_key(tensor)] = (node, StorageWeakRef(storage), storage._cdata)

    def storages(self):
        """(address, weak reference) of every storage seen, for LiveTensors.adopt."""
        return [(entry[2], entry[1]) for entry in self._map.values()]


class _Recorder(TorchDispatchMode):
    def __init__(self, blocks, given, ignored):
        """GIVEN: the tensors the model is called with (token ids, a mask,
        labels...): together node 0, held all step, never given a gradient."""
        super().__init__()
        self.blocks = blocks
        self.owners = _Owners()
        self.ignored = {storage_key(t) for t in ignored}
        distinct = {storage_key(t): t for t in given}
        self.nodes = [{"name": "input", "module": "", "call": -1, "op": "input",
                       "bytes": sum(storage_bytes(t) for t in distinct.values()),
                       "inputs": [], "extra": {}, "grad_fns": [], "flops": 0, "matmul_flops": 0,
                       "requires_grad": False, "first": storage_key(given[0])}]
        for t in distinct.values():
            self.owners.set(t, 0)
        self.pending = None

    def _settle(self):
        if self.pending is not None:
            index, tensor = self.pending
            grad_fn = tensor.grad_fn
            if grad_fn is not None and all(g is not grad_fn for g in self.nodes[index]["grad_fns"]):
                self.nodes[index]["grad_fns"].append(grad_fn)
            self.nodes[index]["requires_grad"] |= tensor.requires_grad
            self.pending = None

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self._settle()
        module, call = self.blocks.next_call(func)
        out = run_op(func, args, kwargs)
        inputs = []
        for t in _tensors((args, kwargs or {})):
            owner = self.owners.get(t)
            if owner is not None and owner not in inputs:
                inputs.append(owner)
        if len(inputs) > 1 and 0 in inputs:
            # A mask or labels read beside another node: the input is held all
            # step and gets no gradient, and an edge would have remat hold this
            # node's gradient until the end of the step for a b_0 PyTorch never
            # makes (docs/pytorch.md, "The input feeds every block").
            inputs.remove(0)
        outs = _tensors(out)
        fresh = [t for t in outs if self.owners.get(t) is None and storage_key(t) not in self.ignored]
        if fresh:
            index = len(self.nodes)
            self.nodes.append({"name": f"{module}#{call}:{op_name(func)[6:]}", "module": module, "call": call,
                               "op": op_name(func), "bytes": storage_bytes(fresh[0]), "inputs": inputs,
                               "extra": {storage_key(t): storage_bytes(t) for t in fresh[1:]}, "grad_fns": [],
                               "matmul_flops": flops_of(func, args, out),
                               "flops": flops_of(func, args, out) or ELEMENT_FLOPS.get(op_name(func), 1) * fresh[0].numel(),
                               "requires_grad": False,
                               "first": storage_key(fresh[0])})
            for t in fresh:
                self.owners.set(t, index)
            self.pending = (index, fresh[0])
        elif outs and is_inplace(func):
            index = self.owners.get(outs[0])
            if index is not None:
                added = [i for i in inputs if i != index and i not in self.nodes[index]["inputs"]]
                if any(self._reads(i, index) for i in added):
                    self._rewrite(index, outs[0], module, call, func, args, out, inputs)
                else:
                    node = self.nodes[index]
                    node.setdefault("inplace", []).append(call)
                    node["inputs"] += added
                    self.pending = (index, outs[0])
        return out

    def _reads(self, start, target):
        """Whether node START reads node TARGET, directly or through others."""
        stack, seen = [start], set()
        while stack:
            i = stack.pop()
            if i == target:
                return True
            if i not in seen:
                seen.add(i)
                stack.extend(self.nodes[i]["inputs"])
        return False

    def _rewrite(self, index, tensor, module, call, func, args, out, inputs):
        """An in-place op into node INDEX's storage that reads a node made from
        INDEX's value (Hugging Face's shift_tokens_right: `shifted.masked_fill_(
        shifted == -100, pad)`): joined to INDEX, the node would read a node that
        reads it, an edge back in the file. It is a node of its own instead, made
        after everything it reads, and owns the storage from then on: later
        readers read it, not INDEX. Its bytes are the storage's, counted beside
        INDEX's while INDEX is alive (until this op, its last reader, has run)."""
        new = len(self.nodes)
        self.nodes.append({"name": f"{module}#{call}:{op_name(func)[6:]}", "module": module, "call": call,
                           "op": op_name(func), "bytes": storage_bytes(tensor),
                           "inputs": [index] + [i for i in inputs if i != index], "extra": {}, "grad_fns": [],
                           "matmul_flops": flops_of(func, args, out),
                           "flops": flops_of(func, args, out) or ELEMENT_FLOPS.get(op_name(func), 1) * tensor.numel(),
                           "requires_grad": False, "first": storage_key(tensor), "rewrites": index})
        self.owners.set(tensor, new)
        self.pending = (new, tensor)


class _Alive(TorchDispatchMode):
    """A plain forward pass, holding nothing of its own (the recording step's
    grad_fns keep more alive): by (block, call index), the op outputs still
    alive right after each op call."""

    def __init__(self, blocks, ignored):
        super().__init__()
        self.blocks = blocks
        self.ignored = {storage_of(t)._cdata for t in ignored}
        self.made = {}   # storage address -> (call key, weak reference)
        self.after = {}  # call key -> call keys of the outputs alive after it

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        key = self.blocks.next_call(func)
        out = run_op(func, args, kwargs)
        for t in _tensors(out):
            storage = storage_of(t)
            entry = self.made.get(storage._cdata)
            if storage._cdata not in self.ignored and (entry is None or entry[1].expired()):
                # The first new storage is the node's output (as _Recorder
                # counts it); the others (LayerNorm's mean and rstd) are saved.
                self.made[storage._cdata] = (key, StorageWeakRef(storage))
                break
        self.after[key] = {k for k, ref in self.made.values() if not ref.expired()}
        return out


def _alive_after(nodes, model, batch, spec, calls, ignored):
    """Sets each node's "alive_after": the earlier nodes whose outputs a
    plain forward pass still holds when it is made."""
    alive = _Alive(calls, ignored)
    calls.calls[""] = 0
    with alive:
        output = run_forward(model, batch, spec)
    del output
    index_of = {(n["module"], n["call"]): i for i, n in enumerate(nodes) if i}
    # A storage rewritten in place by a node of its own (_Recorder._rewrite)
    # is the storage of its first op to _Alive: from that node on, it is that
    # node's output.
    newer = {n["rewrites"]: i for i, n in enumerate(nodes) if "rewrites" in n}

    def current(j, i):
        while j in newer and newer[j] < i:
            j = newer[j]
        return j

    for i, node in enumerate(nodes):
        after = alive.after.get((node["module"], node["call"]), [])
        found = [current(index_of[k], i) for k in after if k in index_of and index_of[k] < i]
        node["alive_after"] = [j for j in dict.fromkeys(found) if j != i]


class _Timer(TorchDispatchMode):
    """Time of every op call, by (block, call index)."""

    def __init__(self, blocks):
        super().__init__()
        self.blocks = blocks
        self.times = {}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        key = self.blocks.next_call(func)
        start = time.perf_counter()
        out = run_op(func, args, kwargs)
        self.times[key] = self.times.get(key, 0.0) + time.perf_counter() - start
        return out


def _saved(nodes, owners_of_key, ignored):
    """What each node's backward keeps, read from autograd's grad_fns."""
    for index, node in enumerate(nodes):
        node["saves_output"] = False
        node["saved_inputs"] = []
        node["saved_extra"] = {}
        node["saved_owners"] = []  # the nodes whose outputs saved_extra holds, beside the node's inputs
        for grad_fn in node["grad_fns"]:
            for attribute in dir(grad_fn):
                if not attribute.startswith("_saved_"):
                    continue
                try:
                    value = getattr(grad_fn, attribute)
                except RuntimeError:  # freed already, or not a tensor
                    continue
                for t in _tensors(value):
                    key = storage_key(t)
                    if key in ignored:
                        continue
                    owner = owners_of_key(t)
                    if key == node["first"]:
                        node["saves_output"] = True
                    elif key in node["extra"]:
                        node["saved_extra"][key] = node["extra"][key]
                    elif owner is not None and owner in node["inputs"]:
                        if owner not in node["saved_inputs"]:
                            node["saved_inputs"].append(owner)
                    elif owner == 0:
                        continue  # the input read beside another node (a mask): held all step anyway
                    elif owner is not None:
                        node["saved_extra"][key] = storage_bytes(t)
                        if owner not in node["saved_owners"]:
                            node["saved_owners"].append(owner)


def _held_by_code(nodes):
    """Forward workspace of each node: the outputs of earlier nodes that
    PyTorch still holds when it is made although remat has freed them (every
    reader has run, no backward reads them). A block's Python locals do that:
    GPT's `scores = scores.masked_fill(...)` keeps the masked scores until the
    block returns, after the softmax that was their last reader.

    And, per node in a block, how much of that the block neither made nor
    reads: the model's own locals (Hugging Face GPT-2's token and position
    embeddings, held until the model's forward returns), which a re-run of
    the block in the backward does not hold, the model's forward having
    returned. The block's inputs stay: the checkpoint holds them for the
    re-run."""
    read_later = {0, len(nodes) - 1}  # the input and the model's output: held all step
    last_reader = list(range(len(nodes)))
    for i, node in enumerate(nodes):
        if node["saves_output"]:
            read_later.add(i)
        read_later.update(node["saved_inputs"])
        # By owner, not by data pointer: a node's own saved extras (LayerNorm's
        # mean and rstd) may sit where a freed node's output was, and that node
        # was taken for read later (its locals' bytes left out of the workspace
        # of a RoBERTa layer's attention in one trace out of two).
        read_later.update(node["saved_owners"])
        for p in node["inputs"]:
            last_reader[p] = max(last_reader[p], i)
    held = [[j for j in node.get("alive_after", ()) if j not in read_later and last_reader[j] < i]
            for i, node in enumerate(nodes)]
    block_inputs = {}
    for node in nodes:
        if node["module"]:
            block_inputs.setdefault(node["module"], set()).update(
                p for p in node["inputs"] if nodes[p]["module"] != node["module"])
    total = [sum(nodes[j]["bytes"] for j in js) for js in held]
    outside = [sum(nodes[j]["bytes"] for j in js
                   if nodes[j]["module"] != nodes[i]["module"] and j not in block_inputs[nodes[i]["module"]])
               if nodes[i]["module"] else 0 for i, js in enumerate(held)]
    return total, outside, held


def _checkpoint_arguments(nodes, alive, arguments, held_nodes):
    """The file's "checkpoint_arguments": per node made outside the blocks
    that a block is called with, the blocks, and the last node whose
    workspace counts it. A checkpointed block's checkpoint keeps its
    arguments for the re-run until the block's backward is over, whether
    or not an op of the block reads them (Hugging Face Llama hands every
    layer its position_ids, which only the rotary embedding before the
    layers reads: 128 B at the LM head's backward, counted by no node);
    only PyTorch's run of a plan knows which blocks are checkpointed."""
    blocks_of = {}
    for block, found in arguments.items():
        for p in found:
            if p and alive[p] and nodes[p]["module"] != block:
                blocks_of.setdefault(p, []).append(block)
    entries = []
    for p in sorted(blocks_of):
        entry = {"node": nodes[p]["name"], "blocks": blocks_of[p]}
        through = [i for i, js in enumerate(held_nodes) if p in js and alive[i]]
        if through:
            entry["workspace_through"] = nodes[max(through)]["name"]
        entries.append(entry)
    return entries


def _backward_measured(nodes, output, spec, ignored, forward_storages):
    """The recording step's backward under LiveTensors, with a hook after
    every node's grad_fn: the most it held above what it started with, less
    the gradients it makes for its node inputs (remat counts those as b_p), is the
    node's backward workspace (weight gradients before they are added into
    .grad, the intermediates of a softmax's backward...). remat charges it to
    the gradient computed first among the node's inputs.

    The model's output and its gradient stay referenced by
    torch.autograd.backward's arguments until the backward returns; remat
    counts them in PyTorch's run of a plan (app/cli/op_plan_command.cpp),
    which holds both to the end, so no window carries them. The first window
    (the last node's own) makes the gradient: its growth has it, and so does
    that run: it is taken off there."""
    live = LiveTensors(ignore=ignored)
    live.adopt(forward_storages)  # made by the forward, before the windows: views of them are not new bytes
    state = {"start": 0, "windows": 0, "dropped": []}
    handles = []
    gradient = 0  # the output gradient's bytes, made in the first window
    if differentiated_from(output, spec) == OUTPUT_GRADIENT:
        gradient = sum(storage_bytes(t) for t in output_tensors(output))

    def takers(index):
        return [p for p in nodes[index]["inputs"] if nodes[p]["requires_grad"]]

    def after(index):
        # What remat counts as made here: the gradients of the node's inputs.
        made = sum(nodes[p]["bytes"] for p in takers(index))

        def hook(grad_inputs, grad_outputs):
            made_here = gradient if state["windows"] == 0 else 0
            state["start"] -= sum(entry[1] for entry in state["dropped"] if entry[0].expired())
            nodes[index]["backward_extra"] = max(nodes[index].get("backward_extra", 0),
                                                 live.window_peak - state["start"] - made - made_here)
            state["windows"] += 1
            carry(index)
            live.reset_window()
            # The hook's own arguments hold the gradient that flowed into the
            # node, which the engine may drop as soon as the hook returns.
            # Counted in the next window's start, it hid as much of that
            # window's growth (Llama's LM head on 2.15: 8 of its 16 MiB weight
            # gradient). Left out of the start only where the window's end
            # finds it freed: taken out unchecked, 1.13's encoder and GPT-2
            # layers were over-predicted by 2 to 3 %.
            passed_on = {storage_key(t) for t in _tensors(grad_inputs)}
            dropped = {}
            for t in _tensors(grad_outputs):
                entry = live.entry_of(t)
                if entry is not None and entry[1] and storage_key(t) not in passed_on:
                    dropped[id(entry)] = entry
            live.window_peak -= sum(entry[1] for entry in dropped.values())
            state["dropped"] = list(dropped.values())
            state["start"] = live.sample() - state["carried"]
        return hook

    # A weight two nodes use (GPT-2's LM head tied to its token embedding):
    # autograd's engine holds the first node's gradient of it until the
    # other's is added, from the first user's backward to the last's. remat
    # holds no such tensor, so it is carried into every window in between,
    # as module level carries it (tracing.py, carried()).
    tied = _tied_weights(nodes)
    users_left = {key: set(users) for key, (users, _) in tied.items()}
    state["carried"] = 0

    def carry(index):
        for key, (users, size) in tied.items():
            if index in users_left[key]:
                users_left[key].discard(index)
                if len(users_left[key]) == len(users) - 1:
                    state["carried"] += size
                if not users_left[key]:
                    state["carried"] -= size

    for index, node in enumerate(nodes):
        for grad_fn in node["grad_fns"][:1]:
            handles.append(grad_fn.register_hook(after(index)))
    with live:
        live.reset_window()
        backward(output, spec)
    for h in handles:
        h.remove()
    return [(sorted(users), size) for users, size in tied.values()]


def _tied_weights(nodes):
    """{weight storage: (the nodes whose backward makes a gradient of it,
    its bytes)} for the weights more than one node uses: found by walking
    each node's grad_fn back to AccumulateGrad, not through another node's."""
    owner = {g: i for i, node in enumerate(nodes) for g in node["grad_fns"]}
    users, sizes = {}, {}
    for index, node in enumerate(nodes):
        stack, seen = [g for g in node["grad_fns"][:1]], set()
        while stack and len(seen) < 64:
            fn = stack.pop()
            if fn is None or fn in seen or (fn in owner and owner[fn] != index):
                continue
            seen.add(fn)
            variable = getattr(fn, "variable", None)
            if isinstance(variable, torch.Tensor):
                key = storage_key(variable)
                users.setdefault(key, set()).add(index)
                sizes[key] = storage_bytes(variable)
                continue
            stack.extend(f for f, _ in fn.next_functions)
    return {key: (found, sizes[key]) for key, found in users.items() if len(found) > 1}


def _tied_gradients(nodes, alive, tied):
    """The file's "tied_gradients": per weight two nodes use, its bytes and
    the nodes, in forward order. Autograd's engine holds the last user's
    gradient of it from that node's backward to the first user's; the
    backward windows carry it (backward_workspace), but a checkpointed
    block re-run in between holds it too, and only PyTorch's run of a plan
    (app/cli/op_plan_command.cpp) can place it there."""
    return [{"bytes": size, "nodes": [nodes[i]["name"] for i in users if alive[i]]}
            for users, size in tied if sum(alive[i] for i in users) > 1]


def _in_order(nodes):
    """The nodes listed so that every node comes after its inputs, else in the
    order they were made, and {recorded index: new index}. An in-place op
    reading a later node breaks the made order: a Bottleneck's `out +=
    identity` adds the downsample branch's BatchNorm, made after `bn3`, into
    bn3's storage, so bn3's node reads a later one. It is listed after that
    input, where its final value is made; it holds the same storage from its
    first op on, but what is alive when the in-place op runs is the same in
    both orders."""
    count = len(nodes)
    for node in nodes:
        node["inputs"] = [p for p in node["inputs"] if p < count]
    moved, order, waiting = {}, [], []
    for i in range(count):
        waiting.append(i)
        placed = True
        while placed:
            placed = False
            for j in waiting:
                if all(p in moved for p in nodes[j]["inputs"] if p != j):
                    moved[j] = len(order)
                    order.append(j)
                    waiting.remove(j)
                    placed = True
                    break
    order += waiting  # a cycle cannot arise from ops run in order; kept as made if it did
    for j in waiting:
        moved[j] = order.index(j)
    listed = [nodes[i] for i in order]
    for node in listed:
        node["inputs"] = [moved[p] for p in node["inputs"] if p in moved]
        if "rewrites" in node:
            node["rewrites"] = moved[node["rewrites"]]
    return listed, moved


def _drop_dead(nodes):
    """Nodes no later node reads (an unused output) cannot be in a model
    file: their inputs no longer count them as readers."""
    alive = [True] * len(nodes)
    changed = True
    while changed:
        changed = False
        readers = [0] * len(nodes)
        for i, node in enumerate(nodes):
            if alive[i]:
                for p in node["inputs"]:
                    readers[p] += 1
        for i in range(1, len(nodes) - 1):
            if alive[i] and readers[i] == 0:
                alive[i] = False
                changed = True
    return alive


def trace_ops(spec, recorded, dtype="float32", device="cpu", blocks="auto", command="", progress=None, cost="time",
              model=None, batch=None):
    """The op-level model file (a dict) of SPEC on the inputs `recorded` (a
    record of remat_torch.inputs: tensors or a function, as at module level);
    costs in ms (`cost` "time") or GFLOP ("flops")."""
    if cost not in ("time", "flops"):
        raise UsageError(f"--cost {cost!r}: expected time or flops")
    progress = progress or (lambda step, total, text: None)
    if current_autocast():
        raise UsageError("--autocast at op level is not supported yet (autocast's cached weight copies and casts "
                         "are not modelled op by op); trace at module level")
    dtype_value, device_value = parse_dtype(dtype), parse_device(device)
    if model is None:  # else: a model and (args, kwargs) built by the caller (auto_checkpoint), SPEC its label
        model = build_model(spec).to(device=device_value, dtype=dtype_value).train()
        batch = build_inputs(recorded, dtype_value, device_value)
    check_signature(model, *batch, recorded)
    given = _given(batch, spec)
    chosen = _auto_blocks(model) if blocks == "auto" else _pattern_blocks(model, blocks)
    if not chosen:
        raise UsageError(f"{spec}: no blocks found to trace at op level; name them with --blocks")
    calls = BlockCalls(model, chosen)
    ignored = list(model.parameters()) + list(model.buffers())
    try:
        progress(1, 2, "recording every op and what autograd saves (first training step)")
        recorder = _Recorder(calls, given, ignored)
        calls.owners = recorder.owners
        with recorder:
            output = run_forward(model, batch, spec)
        recorder._settle()
        calls.owners = None
        repeated = [name for name, runs in calls.runs.items() if runs > 1]
        if repeated:
            raise UsageError(f"{spec}: block {repeated[0]} runs {calls.runs[repeated[0]]} times in one forward pass; "
                             "op-level tracing needs each block to run once (choose --blocks)")
        nodes = recorder.nodes
        gradient_from = differentiated_from(output, spec)
        loss = loss_of(output, spec)
        out_key = [storage_key(t) for t in ([loss] if loss is not None else _tensors(output))]
        made = [i for i, n in enumerate(nodes) if i and n["first"] in out_key]
        if not made:
            raise UsageError(f"{spec}: its {'loss' if loss is not None else 'output'} is not made by an op of "
                             "the step (the input handed back?); nothing to trace at op level")
        nodes, moved = _in_order(nodes[:max(made) + 1])
        arguments = {block: [moved[i] for i in found if i in moved] for block, found in calls.arguments.items()}
        _saved(nodes, lambda t: moved.get(recorder.owners.get(t)), recorder.ignored)
        tied = _backward_measured(nodes, output, spec, ignored + given, recorder.owners.storages())
        del loss, output, recorder
        _alive_after(nodes, model, batch, spec, calls, ignored + given)

        progress(2, 2, f"timing every op ({TIMED_STEPS} training steps)")
        samples = {}
        for _ in range(TIMED_STEPS):
            timer = _Timer(calls)
            with timer:
                output = run_forward(model, batch, spec)
            backward(output, spec)
            del output
            for key, seconds in timer.times.items():
                samples.setdefault(key, []).append(seconds)
    finally:
        calls.remove()
    return _document(spec, recorded, batch, dtype, device, blocks, command, nodes, samples, cost, gradient_from, tied,
                     arguments)


def _given(batch, spec):
    """The tensors the model is called with: together the file's first node."""
    given = batch_tensors(batch)
    if not given:
        raise UsageError(f"{spec}: its inputs hold no tensor; op-level tracing needs at least one")
    return given


def _document(spec, recorded, batch, dtype, device, blocks, command, nodes, samples, cost, gradient_from, tied,
              arguments):
    alive = _drop_dead(nodes)
    held, outside, held_nodes = _held_by_code(nodes)
    workspace = [0] * len(nodes)
    for node in nodes:
        takers = [p for p in node["inputs"] if alive[p] and nodes[p]["requires_grad"]]
        if takers and node.get("backward_extra", 0) > 0:
            workspace[max(takers)] = max(workspace[max(takers)], node["backward_extra"])
    index = {}
    file_nodes = []
    outside_block = {}
    edges = []
    for i, node in enumerate(nodes):
        if not alive[i]:
            continue
        index[i] = len(file_nodes)
        entry = {"name": node["name"]}
        if i == 0:
            entry.update({"bytes": max(1, node["bytes"]), "grad_bytes": 1, "forward_cost": 0, "backward_cost": 0})
            file_nodes.append(entry)
            continue
        if node["module"]:
            entry["module"] = node["module"]
        entry["op"] = node["op"]
        entry["bytes"] = max(1, node["bytes"])
        if not node["requires_grad"]:
            entry["grad_bytes"] = 1  # no gradient flows into it (a dropout mask, an index)
        if node["saved_extra"]:
            entry["saved_bytes"] = sum(node["saved_extra"].values())
        keys = [(node["module"], node["call"])] + [(node["module"], c) for c in node.get("inplace", [])]
        ms = sum(statistics.median(samples.get(k, [0.0])) for k in keys) * 1000
        forward = round(ms, 4) if cost == "time" else round(node["flops"] / 1e9, 6)
        entry["forward_cost"] = forward
        entry["backward_cost"] = round(2 * forward, 6) if node["requires_grad"] else 0
        if node["matmul_flops"]:
            entry["flops"] = node["matmul_flops"]
        if held[i]:
            entry["workspace"] = held[i]
        if outside[i]:
            outside_block[node["name"]] = outside[i]
        if workspace[i]:
            entry["backward_workspace"] = workspace[i]
        inputs = [p for p in node["inputs"] if alive[p]]
        names = [nodes[p]["name"] for p in inputs]
        entry["saves"] = [nodes[p]["name"] for p in node["saved_inputs"] if alive[p]] + (
            ["output"] if node["saves_output"] else [])
        edges += [[n, node["name"]] for n in names]
        file_nodes.append(entry)
    for entry in file_nodes[1:]:
        if not any(e[1] == entry["name"] for e in edges):
            # A constant made inside the model (torch.ones for a causal mask):
            # it reads nothing; the file says it reads the input, which is
            # always held, so that it has the input edge every node needs.
            edges.append([file_nodes[0]["name"], entry["name"]])
            entry["comment"] = "a constant: reads no tensor (its edge from the input only places it)"
    stamp = datetime.date.today().isoformat()
    return {
        "format": "remat-model",
        "version": 1,
        "name": f"{spec}, {describe(recorded)} {dtype}, op level (traced)",
        "source": (f"Traced op by op by remat_torch from {spec}, {describe(recorded)} {dtype} on {device}, "
                   f"PyTorch {torch.__version__}, {torch.get_num_threads()} threads, {stamp}, blocks {blocks}. "
                   f"Command: {command or '(the Python API)'}. One node per aten op that makes a new tensor; "
                   "bytes are storages; saves and saved_bytes are what autograd's grad_fns keep; forward_cost is "
                   + (f"the median of {TIMED_STEPS} timed steps in ms" if cost == "time" else
                      "GFLOP: 2mkn per matrix product, per output element 5 for softmax, 8 for LayerNorm and GELU, "
                      "1 for any other op")
                   + ", backward_cost twice that."),
        "units": {"bytes": "B", "cost": "ms" if cost == "time" else "GFLOP"},
        "trace": {"tool": "remat_torch trace", "granularity": "op", "command": command, "model": spec,
                  "input": list(batch_tensors(batch)[0].shape), "inputs": recorded,
                  "input_tensors": inputs_text(*batch), "differentiated_from": gradient_from,
                  "autocast": current_autocast(),
                  "dtype": dtype, "device": device, "blocks": blocks,
                  "torch": torch.__version__, "threads": torch.get_num_threads(), "date": stamp,
                  "tied_gradients": _tied_gradients(nodes, alive, tied),
                  "workspace_outside_block": outside_block,
                  "checkpoint_arguments": _checkpoint_arguments(nodes, alive, arguments, held_nodes)},
        "nodes": file_nodes,
        "edges": edges,
    }
