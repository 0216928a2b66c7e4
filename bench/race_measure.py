"""How bench/framework_race.py measures one configuration, the way
remat_torch verify does on the CPU: the peak by LiveTensors (every storage
made in the step, followed op by op, the input batch counted, weights and
their preallocated gradients not), FLOPs by torch.utils.flop_counter's
formulas in the same step, and
step time as the median of k rounds, each round timing store-all and the
configuration back to back so that both see the same load on the machine."""
import statistics
import time

import torch
from torch.utils import flop_counter

from remat_torch.compat import storage_bytes, storage_key
from remat_torch.counting import LiveTensors
from remat_torch.steps import batch_tensors, held_before_step, preallocate_gradients, step

COUNTER = "LiveTensors: storages made in the step, followed op by op (remat_torch.counting)"


class _CompiledVisible(LiveTensors):
    """LiveTensors that torch.compile does not step aside for: with a
    dispatch mode on the stack dynamo runs the frame eagerly instead of the
    compiled graph, so the compiled configurations would be measured as
    store-all. Saying the mode ignores compile internals keeps the compiled
    graph; its ops (aot_eager runs them as aten calls) still reach the mode."""

    @classmethod
    def ignore_compile_internals(cls):
        return True


def _flops(func, args, kwargs, out):
    """FlopCounterMode's own formulas (torch.utils.flop_counter's registry),
    applied op by op. Not FlopCounterMode itself: its module tracker puts
    global hooks on every module, which torch.compile then traces and
    refuses ("already tracked for mutation")."""
    formula = flop_counter.flop_registry.get(func._overloadpacket)
    return 0 if formula is None else formula(*args, **(kwargs or {}), out_val=out)


def _one_step(model, batch):
    preallocate_gradients(model)
    torch.manual_seed(3)  # dropout draws the same masks in every configuration
    step(model, batch, "the race's step")


def counted_step(model, batch):
    """(peak bytes held during one training step, the inputs included;
    the step's FLOPs)."""
    inputs = sum({storage_key(t): storage_bytes(t) for t in batch_tensors(batch)}.values())
    preallocate_gradients(model)
    torch.manual_seed(3)
    live = _CompiledVisible(ignore=held_before_step(model, batch))
    flops = [0]

    def count(func, args, out, kwargs=None):
        flops[0] += _flops(func, args, kwargs, out)
    live.listener = count
    with live:
        step(model, batch, "the race's counted step")
    return live.peak + inputs, flops[0]


def paired_seconds(reference, model, batch, rounds):
    """(median of the configuration's step times, median of store-all's)
    over `rounds` rounds of store-all then the configuration."""
    mine, theirs = [], []
    for _ in range(rounds):
        for target, times in ((reference, theirs), (model, mine)):
            start = time.perf_counter()
            _one_step(target, batch)
            times.append(time.perf_counter() - start)
    return statistics.median(mine), statistics.median(theirs)


def measure(model, batch, reference, rounds):
    """{observed_peak_bytes, flops, step_seconds, store_all_step_seconds};
    one warm-up step first (torch.compile compiles there)."""
    _one_step(model, batch)
    seconds, reference_seconds = paired_seconds(reference, model, batch, rounds)
    peak, flops = counted_step(model, batch)
    return {"observed_peak_bytes": peak, "flops": flops, "step_seconds": seconds,
            "store_all_step_seconds": reference_seconds}
