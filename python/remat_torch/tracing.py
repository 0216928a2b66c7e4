"""remat_torch trace: a PyTorch model as a remat model file, every number
measured in real training steps (docs/pytorch.md).

Three steps run: the first finds the nodes (which modules run, in which
order, what each takes and returns) and warms up; the second times every
node's forward and backward; the third counts bytes: what each node's forward
saves for its backward (saved_tensors_hooks, each storage once, parameters
and buffers excluded, views resolved to their storage), the largest
transient memory above that in its forward and backward (LiveTensors), and
the FLOPs of its matrix products and convolutions."""
import datetime
import json
import os
import tempfile

import torch

from . import calls
from .blocks import candidate_units
from .compat import storage_key, storage_of
from .counting import CudaMeter, LiveTensors, Stopwatch, _tensors, flops_of
from .errors import UsageError
from .ops import op_name
from .inputs import build_inputs, check_signature, describe, text as inputs_text
from .spec import build_model, parse_device, parse_dtype
from .steps import (LOSS, backward, batch_tensors, current_autocast, differentiated_from, held_before_step,
                    loss_of, output_tensors,
                    preallocate_gradients, run_forward)
from .timing import COST_KINDS, identical_groups, median_costs

FORMAT_NOTE = ("bytes: the node's output storages; saved_bytes: what its forward saves for its backward besides its "
               "input and output (saved_tensors_hooks, each storage once, parameters and buffers excluded); "
               "workspace and backward_workspace: the largest transient bytes above that while it runs (every "
               "storage PyTorch makes, followed op by op); flops: its matrix products and convolutions, forward")


def _keys(value):
    return {storage_key(t): storage_of(t).nbytes() for t in _tensors(value)}


class _Recorder:
    """Intercepts the candidate modules for one step and calls back."""

    def __init__(self, modules, names, on_call):
        self._modules = [modules[n] for n in names]
        for name, module in zip(names, self._modules):
            calls.intercept(module, self._interceptor(name, on_call))

    @staticmethod
    def _interceptor(name, on_call):
        return lambda run, args, kwargs: on_call(name, run, args, kwargs)

    def close(self):
        for module in self._modules:
            calls.release(module)


def _discover(model, batch, modules, names, blocks, what):
    """The module calls of one forward pass, in order, with what each took
    and returned, and which candidates run more than once."""
    records = []

    def on_call(name, run, args, kwargs):
        record = {"name": name, "args": args, "kwargs": kwargs}
        records.append(record)
        record["output"] = run(*args, **kwargs)
        record["grad_fns"] = [t.grad_fn for t in _tensors(record["output"]) if t.grad_fn is not None]
        return record["output"]

    recorder = _Recorder(modules, names, on_call)
    try:
        output = run_forward(model, batch, what)
    finally:
        recorder.close()
    counts = {}
    for r in records:
        counts[r["name"]] = counts.get(r["name"], 0) + 1
    repeated = sorted(n for n, c in counts.items() if c > 1)
    if repeated and blocks != "auto":
        raise UsageError(f"--blocks {blocks!r}: module {repeated[0]} runs {counts[repeated[0]]} times in one forward "
                         "pass; a node must run once (choose its parent, or blocks that contain it)")
    return [r for r in records if counts[r["name"]] == 1], repeated, output


def _input_node_output(batch):
    """Node 0: the one positional tensor (a module called with exactly it is
    chained to the input), or all the input tensors."""
    args, kwargs = batch
    if len(args) == 1 and not kwargs and isinstance(args[0], torch.Tensor):
        return args[0]
    return batch_tensors(batch)


def _group(records, batch):
    """Nodes: consecutive calls merged where a call only rewrites or views its
    predecessor's output (an in-place ReLU, a flatten), so that one storage is
    one node. Node 0 is the input."""
    nodes = [{"records": [], "output": _input_node_output(batch), "chained": False}]
    for r in records:
        previous = nodes[-1]["output"]
        kwargs_given = any(v is not None for v in r["kwargs"].values())
        chained = len(r["args"]) == 1 and not kwargs_given and r["args"][0] is previous
        out_keys = set(_keys(r["output"]))
        if chained and out_keys and out_keys <= set(_keys(previous)):
            nodes[-1]["records"].append(r)
            nodes[-1]["output"] = r["output"]
        else:
            nodes.append({"records": [r], "output": r["output"], "chained": chained})
    return nodes


def _add_loss_node(nodes, output, what):
    """A last node for a loss computed by the model's own code after its last
    module (every Hugging Face LM): the step lets go of the model's output
    before its backward, so PyTorch frees the logits right after the forward
    (the loss's log-softmax saved its own output, not the logits) and frees
    the log-softmax at the end of the loss's backward, before the head's.
    As the head's own output and saved bytes, remat held both a node
    longer. A node of its own, with no module, says so: it is never
    checkpointed (a_n is never re-run)."""
    loss = loss_of(output, what)
    if loss is None or set(_keys(loss)) & set(_keys(nodes[-1]["output"])):
        return nodes
    return nodes + [{"records": [], "output": loss, "chained": False, "loss": True}]


def _side_inputs(model, nodes):
    """Bytes of the tensors nodes take that are no node's output, no weight
    and need no gradient (an attention mask made from the inputs): a
    checkpointed segment keeps its arguments until its backward, so they
    live as long as the inputs; counted once per storage."""
    known = set()
    for node in nodes:
        known.update(_keys(node["output"]))
    known.update(storage_key(t) for t in list(model.parameters()) + list(model.buffers()))
    side = {}
    for node in nodes[1:]:
        if not node["records"]:
            continue
        first = node["records"][0]
        for t in _tensors((first["args"], first["kwargs"])):
            key = storage_key(t)
            if key not in known and not t.requires_grad:
                side[key] = storage_of(t).nbytes()
    return sum(side.values())


def _edges(nodes):
    """Which earlier nodes each node reads, found by walking autograd's graph
    back from its inputs to the nearest node output (through any code between
    modules: flatten, cat, a positional embedding); by storage for inputs
    that need no gradient."""
    owner = {}
    storage_owner = {}
    for index, node in enumerate(nodes):
        for r in node["records"]:
            for fn in r["grad_fns"]:
                owner[fn] = index
        for key in _keys(node["output"]):
            storage_owner.setdefault(key, index)
    # A node whose output needs no gradient (Llama's rotary embedding: cos
    # and sin from a buffer) gets one edge, to its first reader: PyTorch
    # makes no gradient for it, whereas an edge to every reader would have
    # remat keep every reader's internals until the backward reaches it
    # (both of two checkpointed layers' saved tensors at once).
    no_gradient = {index for index, node in enumerate(nodes)
                   if index and not any(t.requires_grad for t in _tensors(node["output"]))}
    first_reader = {}
    inputs = []
    for index, node in enumerate(nodes):
        if index == 0:
            inputs.append([])
            continue
        found = set()
        reads_input = False
        if node["records"]:
            first = node["records"][0]
            read = _tensors((first["args"], first["kwargs"]))
        else:  # the loss: walked back from its own grad_fn
            read = [t for t in _tensors(node["output"]) if t.grad_fn is not None]
        for t in read:
            if t.grad_fn is None:
                source = storage_owner.get(storage_key(t))
                if source == 0:  # the model's input (a mask, token ids): held all step, never given a gradient
                    reads_input = True
                elif source in no_gradient and source < index:
                    first_reader.setdefault(source, index)
                elif source is not None and source < index:
                    found.add(source)
                continue
            seen, stack = set(), [t.grad_fn]
            while stack and len(seen) < 100000:
                fn = stack.pop()
                if fn is None or fn in seen:
                    continue
                seen.add(fn)
                if fn in owner and owner[fn] < index:
                    found.add(owner[fn])
                    continue
                stack.extend(next_fn for next_fn, _ in fn.next_functions)
        # An edge from the input only where nothing else feeds the node: remat
        # would otherwise hold every consumer's gradient and internals for
        # b_0, which PyTorch never makes.
        if reads_input and not found:
            found.add(0)
        inputs.append(sorted(found) or [index - 1])
    for source, reader in first_reader.items():
        if source not in inputs[reader]:
            inputs[reader] = sorted(inputs[reader] + [source])
    last = len(nodes) - 1
    fed = {i for ins in inputs for i in ins}
    for index in range(last):
        if index not in fed:  # an output beside the last one (an auxiliary head): it feeds the loss
            inputs[last].append(index)
    return inputs


def _timing(model, batch, modules, nodes, watch, what):
    """Milliseconds of each node's forward and backward in one step."""
    node_of = {r["name"]: i for i, n in enumerate(nodes) for r in n["records"]}
    forward = [0.0] * len(nodes)
    grad_times = {}
    last_end = [None]

    def hook(t, index):
        t.register_hook(lambda g, i=index: None if i in grad_times else grad_times.update({i: watch.now()}))

    def on_call(name, run, args, kwargs):
        start = watch.now()
        out = run(*args, **kwargs)
        index = node_of[name]
        forward[index] += watch.now() - start
        if nodes[index]["records"][-1]["name"] == name:
            for t in output_tensors(out):
                hook(t, index)
            last_end[0] = watch.now()
        return out

    recorder = _Recorder(modules, list(node_of), on_call)
    try:
        output = run_forward(model, batch, what)
    finally:
        recorder.close()
    if nodes[-1].get("loss"):
        forward[-1] = watch.now() - last_end[0]
        hook(loss_of(output, what), len(nodes) - 1)
    backward(output, what)
    end = watch.now()
    return [1000 * t for t in forward], _backward_windows(grad_times, end, len(nodes), lambda a, b: 1000 * (b - a))


def _backward_windows(events, end, count, measure):
    """Node i's backward runs from its output gradient's arrival to the next
    arrival (the backward pass reaches nodes in reverse order)."""
    result = [0.0] * count
    order = sorted(events.items(), key=lambda item: item[1])
    for k, (index, start) in enumerate(order):
        stop = order[k + 1][1] if k + 1 < len(order) else end
        result[index] = max(0.0, measure(start, stop))
    return result


def _counting(model, batch, modules, nodes, device, what):
    """Saved bytes, transient bytes and FLOPs of each node in one step."""
    node_of = {r["name"]: i for i, n in enumerate(nodes) for r in n["records"]}
    count = len(nodes)
    weights = {storage_key(t) for t in list(model.parameters()) + list(model.buffers())}
    preallocate_gradients(model)
    ops = LiveTensors(ignore=held_before_step(model, batch))
    meter = ops if device.type == "cpu" else CudaMeter(device)
    state = {"node": None, "next": 1, "forward": True, "open": None}
    has_loss_node = bool(nodes[-1].get("loss"))
    packed = [set() for _ in range(count)]  # node -> the storages its forward (and the code before it) saves
    saved_owner = {}       # storage -> (node, bytes): the first node that saved it
    outputs = {storage_key(t) for t in batch_tensors(batch)}
    node_outputs = {0: _keys(batch_tensors(batch))}  # node -> its output storages
    kept = []              # node outputs stay alive through the forward: their addresses stay theirs
    workspace, backward_workspace = [0] * count, [0] * count
    flops, glue_saved = [0] * count, [0] * count

    # Under torch.autocast, a weight's bf16 copy is made once per forward
    # pass and cached by autocast until the forward returns, whether or not
    # its layer is checkpointed; the backward keeps it as long as a saved
    # tensor does. Counted as held all step (with the input), not as any
    # node's saved bytes, since a checkpoint does not free it.
    weight_casts, saved_casts = {}, {}

    def pack(t):
        key = storage_key(t)
        if state["forward"]:
            packed[min(state["next"], count - 1) if state["node"] is None else state["node"]].add(key)
        if key in weight_casts:  # saved: held into the backward (an unsaved bias copy dies with the forward)
            saved_casts[key] = weight_casts[key]
            remat_counts([t])
            return t
        if key not in weights and key not in saved_owner:
            node = state["node"]
            if node is None and state["forward"]:  # code between modules: it computes the next node's input
                node = min(state["next"], count - 1)
                glue_saved[node] += storage_of(t).nbytes()
            saved_owner[key] = (node, storage_of(t).nbytes())
        remat_counts([t])
        return t

    def on_op(func, args, out):
        if (current_autocast() and op_name(func) == "aten::_to_copy" and args and isinstance(args[0], torch.Tensor)
                and storage_key(args[0]) in weights and isinstance(out, torch.Tensor)):
            weight_casts.setdefault(storage_key(out), storage_of(out).nbytes())
        if state["forward"] and state["node"] is not None:
            flops[state["node"]] += flops_of(func, args, out)

    counted = set()        # LiveTensors entries remat counts: node outputs, saved tensors, node gradients
    # The model's output and its gradient stay referenced by the training step
    # (torch.autograd.backward's arguments) until the backward returns; remat
    # frees the output once its gradient is made, the gradient once the last
    # node's backward has run.
    held_output, held_gradient = set(), set()
    state["arrivals"] = 0

    def carried():
        """Bytes PyTorch holds from one node's backward into the next that
        remat does not count: neither a node output, nor saved, nor a node
        gradient. The loss and its gradient; the first gradient of a weight
        used by two nodes (a tied embedding and LM head), which autograd's
        engine holds until the second is added to it (docs/pytorch.md)."""
        if meter is not ops:
            return 0  # CUDA: the allocator's total has no storages to tell apart
        late = (held_output if state["arrivals"] >= 1 else set()) | (held_gradient if state["arrivals"] >= 2 else set())
        return sum(size for entry, size in ops.live_storages().items() if entry not in counted or entry in late)

    def remat_counts(tensors):
        if meter is ops:
            counted.update(e for e in map(ops.entry_of, tensors) if e is not None)

    def on_gradient(index, gradient):
        # Node k's backward runs from its output gradient's arrival to the
        # next arrival, which brings b_j (j: the node that gradient is for):
        # remat counts that backward's transient bytes at "compute b_j", where
        # it holds what PyTorch holds at the start, less node k's output if k
        # saved it itself (a final ReLU: PyTorch keeps it for k's backward,
        # remat has freed it after b_k), less what PyTorch carries that remat
        # does not count (carried()), plus b_j.
        now = meter.sample()
        if state["open"] is not None:
            opened, start, carry = state["open"]
            arrived = sum(storage_of(t).nbytes() for t in _tensors(gradient))
            backward_workspace[index] = max(0, meter.window_peak - (start - self_saved(opened) - carry) - arrived)
        remat_counts(_tensors(gradient))
        state["arrivals"] += 1
        if state["arrivals"] == 1 and not loss_inside:  # the output gradient: held by the step to its end
            held_gradient.update(e for e in map(ops.entry_of, _tensors(gradient)) if e is not None)
        state["open"] = (index, now, carried())
        meter.reset_window()

    def self_saved(index):
        return sum(size for key, size in node_outputs.get(index, {}).items()
                   if saved_owner.get(key, (None,))[0] == index)

    def on_call(name, run, args, kwargs):
        index = node_of[name]
        if nodes[index]["records"][0]["name"] == name:
            meter.reset_window()
        state["node"] = index
        out = run(*args, **kwargs)
        state["node"] = None
        if nodes[index]["records"][-1]["name"] == name:
            state["next"] = index + 1
            workspace[index] = max(0, meter.window_peak - meter.sample())
            node_outputs[index] = _keys(out)
            remat_counts(_tensors(out))
            outputs.update(node_outputs[index])
            kept.append(out)
            for t in output_tensors(out):
                t.register_hook(lambda g, i=index: on_gradient(i, g))
            if has_loss_node and index == count - 2:
                meter.reset_window()  # the loss's forward window starts here
        return out

    recorder = _Recorder(modules, list(node_of), on_call)
    ops.listener = on_op
    try:
        with ops, meter.active(), torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            output = [run_forward(model, batch, what)]  # a list: backward() drops the last reference
            state["forward"] = False
            if has_loss_node:
                workspace[-1] = max(0, meter.window_peak - meter.sample())
                loss = loss_of(output[0], what)
                node_outputs[count - 1] = _keys(loss)
                outputs.update(node_outputs[count - 1])
                remat_counts([loss])
                del loss
            del kept[:]
            loss_inside = differentiated_from(output[0], what) == LOSS
            if meter is ops and not loss_inside:
                held_output.update(e for e in map(ops.entry_of, output_tensors(output[0])) if e is not None)
            if loss_inside:  # the step keeps the loss alone: the rest of the output (the logits) dies here
                output = [loss_of(output.pop(), what)]
            # The loss's backward (or the output gradient's) runs before the
            # last node's gradient arrives: remat counts it at "compute b_n".
            meter.reset_window()
            state["open"] = (None, meter.sample(), carried())
            backward(output.pop(), what)
            if state["open"] is not None:  # the first node's backward ends the step; b_0 is not computed
                opened, start, carry = state["open"]
                backward_workspace[0] = max(0, meter.window_peak - (start - self_saved(opened) - carry))
    finally:
        recorder.close()
    saved = [0] * count
    for key, (node, size) in saved_owner.items():
        if node is not None and key not in outputs:
            saved[node] += size
    # Which node outputs each node's backward keeps: an input none of its
    # saved tensors is (dropout keeps its mask, an add nothing, the loss its
    # log-softmax) is PyTorch's to free once the forward has read it.
    kept_outputs = [{p for p, keys in node_outputs.items() if p != c and keys.keys() & packed[c]}
                    for c in range(count)]
    return saved, workspace, backward_workspace, flops, glue_saved, sum(saved_casts.values()), kept_outputs


def _signature(modules, node, saved, flops):
    """What a node computes, as far as its cost goes: its modules' classes
    and parameter shapes, and its measured sizes."""
    parts = []
    for r in node["records"]:
        module = modules[r["name"]]
        parts.append((type(module).__qualname__, tuple(tuple(p.shape) for p in module.parameters()),
                      tuple(type(m).__qualname__ for m in module.modules())))
    return tuple(parts), node["bytes"], saved, flops


def _node_name(node):
    if node.get("loss"):
        return "loss"
    return "+".join(r["name"] for r in node["records"]) or "input"


def trace(spec, inputs, dtype="float32", device="cpu", blocks="auto", command="", progress=None,
          timing_steps=5, cost="time", model=None, batch=None):
    """The model file (a dict) of SPEC run on `inputs`: a shape (one random
    normal tensor, as before), or the record of remat_torch.inputs
    ({"tensors": [...]} or {"function": "FILE.py:callable"})."""
    progress = progress or (lambda step, total, text: None)
    if not isinstance(inputs, dict):
        inputs = {"tensors": ["x".join(str(d) for d in inputs)]}
    if cost not in COST_KINDS:
        raise UsageError(f"--cost {cost!r}: expected one of {', '.join(COST_KINDS)}")
    if timing_steps < 1:
        raise UsageError(f"--timing-steps {timing_steps}: expected at least 1")
    dtype_value, device_value = parse_dtype(dtype), parse_device(device)
    if model is None:  # else: a model and (args, kwargs) built by the caller (auto_checkpoint), SPEC its label
        model = build_model(spec).to(device=device_value, dtype=dtype_value).train()
        batch = build_inputs(inputs, dtype_value, device_value)
    check_signature(model, *batch, inputs)
    modules = dict(model.named_modules())
    names = candidate_units(model, blocks)
    if names == [""]:
        raise UsageError(f"{spec}: the model has no submodules to make nodes of; wrap its parts in modules")

    total = 2 + timing_steps
    progress(1, total, "finding the nodes (first training step)")
    records, repeated, output = _discover(model, batch, modules, names, blocks, spec)
    if not records:
        raise UsageError(f"{spec}: none of its modules runs exactly once in the forward pass; choose --blocks")
    gradient_from = differentiated_from(output, spec)
    nodes = _add_loss_node(_group(records, batch), output, spec)
    if len(nodes) < 2:
        raise UsageError(f"{spec}: every module only views or rewrites the input in place; nothing to trace")
    inputs_of = _edges(nodes)
    side_bytes = _side_inputs(model, nodes)
    nodes = [{"records": [{"name": r["name"]} for r in n["records"]], "chained": n["chained"], "loss": n.get("loss"),
              "bytes": sum(_keys(n["output"]).values()),
              "gradient": any(t.requires_grad for t in _tensors(n["output"]))} for n in nodes]
    del records
    backward(output, spec)  # the first step's backward also warms up the kernels
    del output

    watch = Stopwatch(device_value)
    timings = []
    for k in range(timing_steps):
        progress(2 + k, total, f"timing every node (training step {2 + k}, {k + 1} of {timing_steps} timed)")
        timings.append(_timing(model, batch, modules, nodes, watch, spec))
    progress(total, total, f"counting saved and transient bytes (training step {total})")
    saved, workspace, backward_workspace, flops, glue_saved, cast_bytes, kept_outputs = _counting(
        model, batch, modules, nodes, device_value, spec)
    same = identical_groups([_signature(modules, n, saved[i], flops[i]) if i > 0 else None
                             for i, n in enumerate(nodes)])
    forward_ms, forward_spread = median_costs([t[0] for t in timings], same)
    backward_ms, backward_spread = median_costs([t[1] for t in timings], same)
    if cost == "flops":
        without = [_node_name(n) for i, n in enumerate(nodes) if i > 0 and not flops[i] and not n["loss"]]
        if without:
            raise UsageError(f"--cost flops: {len(without)} node{'s' if len(without) > 1 else ''} "
                             f"({', '.join(without[:4])}{', ...' if len(without) > 4 else ''}) run no matrix "
                             "product or convolution, so have no FLOPs to weigh; use --cost time")

    file_nodes = []
    for index, node in enumerate(nodes):
        entry = {"name": _node_name(node)}
        module_names = [r["name"] for r in node["records"]]
        if module_names:
            entry["module"] = module_names[0] if len(module_names) == 1 else module_names
        if index > 0:
            entry["chained"] = node["chained"]
        entry["bytes"] = max(1, node["bytes"] + (side_bytes + cast_bytes if index == 0 else 0))
        if index == 0 and side_bytes:
            entry["comment"] = (f"bytes includes {side_bytes} B of tensors made between modules that nodes take "
                                "besides node outputs and that need no gradient (an attention mask): a checkpoint "
                                "keeps them until its backward")
        if index == 0 and cast_bytes:
            entry["comment"] = (entry.get("comment", "bytes") + f"; bytes includes {cast_bytes} B of the weights' "
                                f"{current_autocast()} copies that autocast caches for the whole forward pass, "
                                "checkpointed or not")
        if index == 0:
            entry["grad_bytes"] = 1  # the input needs no gradient (b_0 is never made): the least the format allows
            entry["forward_cost"] = 0
            entry["backward_cost"] = 0
        else:
            if not node["gradient"]:
                entry["grad_bytes"] = 1  # its output needs no gradient (cos and sin of rotary positions)
            entry["saved_bytes"] = saved[index]
            if cost == "flops":  # a backward does twice a forward's multiply-adds (input and weight gradients)
                entry["forward_cost"] = flops[index]
                entry["backward_cost"] = 2 * flops[index]
            else:  # whole microseconds: sums of costs are exact, so equal plans tie exactly, trace after trace
                entry["forward_cost"] = round(1000 * forward_ms[index])
                entry["backward_cost"] = round(1000 * backward_ms[index])
            if flops[index]:
                entry["flops"] = flops[index]
            if workspace[index]:
                entry["workspace"] = workspace[index]
        if backward_workspace[index]:
            entry["backward_workspace"] = backward_workspace[index]
        # Stated only where a node keeps fewer than all its inputs (docs/model-format.md's default); never
        # "output": a node that keeps its own output (a final ReLU) is accounted for in backward_workspace.
        # Not under autocast: there the forward pass holds more than the
        # nodes' counted bytes at its end (3 % of a small encoder's peak, not
        # yet attributed), which the default's inputs kept into the backward
        # happen to cover; without them the prediction falls below PyTorch.
        if (index > 0 and not current_autocast()
                and any(p not in kept_outputs[index] for p in inputs_of[index])):
            entry["saves"] = [file_nodes[p]["name"] for p in inputs_of[index] if p in kept_outputs[index]]
        if node["loss"]:
            entry["comment"] = ("the loss the model's own code computes after its last module: saved_bytes is what "
                                "that code saves (a log-softmax), saves the node outputs it keeps, bytes and "
                                "grad_bytes the loss and its gradient")
        elif glue_saved[index]:
            entry["comment"] = (f"saved_bytes includes {glue_saved[index]} B saved by code that runs between "
                                "modules before this node (kept even when the node is checkpointed)")
        file_nodes.append(entry)
    input_text = describe(inputs)
    doc = {
        "format": "remat-model",
        "version": 1,
        "name": f"{spec}, {input_text} {dtype} (traced)",
        "source": _source(spec, inputs, dtype, device, blocks, command, repeated, gradient_from, timing_steps, cost),
        "units": {"bytes": "B", "cost": "FLOP" if cost == "flops" else "us"},
        "trace": {
            "tool": "remat_torch trace",
            "command": command,
            "model": spec,
            "input": list(batch_tensors(batch)[0].shape),
            "inputs": inputs,
            "input_tensors": inputs_text(*batch),
            "dtype": dtype,
            "device": device,
            "blocks": blocks,
            "differentiated_from": gradient_from,
            "autocast": current_autocast(),
            "cost": cost,
            "timing": {"steps": timing_steps, "statistic": "median",
                       "forward_ms": {file_nodes[i]["name"]: [round(forward_ms[i], 3)] + forward_spread[i]
                                      for i in range(1, len(nodes))},
                       "backward_ms": {file_nodes[i]["name"]: [round(backward_ms[i], 3)] + backward_spread[i]
                                       for i in range(1, len(nodes))},
                       "identical": [[file_nodes[i]["name"] for i in group] for group in same],
                       "note": "per node: [its cost, its fastest, its slowest timed run], milliseconds; the cost is "
                               "the median of its runs, or of every run of the nodes \"identical\" groups with it"},
            "torch": torch.__version__,
            "threads": torch.get_num_threads(),
            "date": datetime.date.today().isoformat(),
        },
        "nodes": file_nodes,
    }
    if any(ins != [i - 1] for i, ins in enumerate(inputs_of) if i > 0):
        doc["edges"] = [[file_nodes[a]["name"], file_nodes[i]["name"]] for i, ins in enumerate(inputs_of) for a in ins]
    return doc


def _source(spec, inputs, dtype, device, blocks, command, repeated, gradient_from, timing_steps, cost):
    start = ("the model's own loss (the scalar it returns, or its \"loss\")" if gradient_from == LOSS else
             "a fixed random gradient of every floating output (the model returns no loss)")
    costs = ("forward_cost and backward_cost: the FLOPs of its matrix products and convolutions, the backward "
             "twice the forward" if cost == "flops" else
             f"forward_cost and backward_cost: the median of {timing_steps} timed steps in whole microseconds, "
             "shared by identical nodes (trace.timing has each node's fastest and slowest, in milliseconds)")
    text = (f"Traced by remat_torch from {spec}, {describe(inputs)} {dtype} on {device}, PyTorch "
            f"{torch.__version__}, {torch.get_num_threads()} threads, {datetime.date.today().isoformat()}, "
            f"blocks {blocks}. Command: {command or '(the Python API)'}. Each step's backward starts from {start}. "
            f"{FORMAT_NOTE}; {costs}.")
    if repeated:
        text += (" Modules that run more than once per forward pass are not nodes; their work counts with the "
                 "node after them: " + ", ".join(repeated) + ".")
    return text


def write_model_file(doc, path):
    """Written whole or not at all (a temporary file renamed into place)."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, temporary = tempfile.mkstemp(prefix=".remat-trace-", suffix=".json", dir=directory)
    except OSError as e:
        raise UsageError(f"-o {path}: cannot write there ({e.strerror})") from None
    try:
        with os.fdopen(fd, "w") as out:
            out.write(model_file_text(doc))
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def model_file_text(doc):
    """JSON with one node and one edge per line, like the hand-written examples."""
    lines = ["{"]
    items = list(doc.items())
    for k, (key, value) in enumerate(items):
        comma = "," if k + 1 < len(items) else ""
        if key in ("nodes", "edges"):
            rows = [json.dumps(v) for v in value]
            lines.append(f"  {json.dumps(key)}: [")
            lines += [f"    {row}{',' if r + 1 < len(rows) else ''}" for r, row in enumerate(rows)]
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"
