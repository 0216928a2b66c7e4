"""Counting what PyTorch holds (docs/pytorch.md, "What is counted").

LiveTensors follows every storage an op returns until PyTorch frees it: a
dispatch mode sees each op's outputs (forward, backward, and the re-runs of
torch.utils.checkpoint, whose saved tensors no outer saved-tensor hook sees)
and a weak reference to the C++ storage says when it is gone. Its total is
the bytes of live storages made during the step, read after every op: a
counter that can disagree with remat's prediction, because it counts what
PyTorch really keeps, not what the plan asked for.

Blind spots: memory inside one op (a convolution's scratch buffers), the
allocator's rounding and headers, and storages made outside aten ops
(none in the models we ship; Python-side numpy buffers would be missed)."""
import contextlib
import dataclasses
import time

import torch

from .compat import StorageWeakRef, TorchDispatchMode, storage_of
from .ops import run_op


def _tensors(value):
    """Every tensor in a value: nested tuples, lists, dicts, and dataclasses
    (a model's output such as Hugging Face's ModelOutput)."""
    found = []
    for leaf in torch.utils._pytree.tree_flatten(value)[0]:
        if isinstance(leaf, torch.Tensor):
            found.append(leaf)
        elif dataclasses.is_dataclass(leaf) and not isinstance(leaf, type):
            found.extend(_tensors([getattr(leaf, f.name) for f in dataclasses.fields(leaf)]))
    return found


class LiveTensors(TorchDispatchMode):
    """Live bytes of the storages made while the mode is active."""

    def __init__(self, ignore=()):
        super().__init__()
        self._ignored = {storage_of(t)._cdata for t in ignore}
        self._live = {}  # C++ storage address -> (weak reference, bytes)
        self.current = 0
        self.peak = 0
        self.window_peak = 0
        self.listener = None  # called with (func, outputs) after each op

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        args = tuple(args)
        out = run_op(func, args, kwargs)
        self._sweep()
        for tensor in _tensors(out):
            self._add(tensor)
        self.peak = max(self.peak, self.current)
        self.window_peak = max(self.window_peak, self.current)
        if self.listener is not None:
            self.listener(func, args, out)
        return out

    def _add(self, tensor):
        storage = storage_of(tensor)
        address = storage._cdata
        if address in self._ignored:
            return
        entry = self._live.get(address)
        if entry is not None:
            if not entry[0].expired():
                return
            self.current -= entry[1]  # freed, and a new storage took its place
        size = storage.nbytes()
        self._live[address] = (StorageWeakRef(storage), size)
        self.current += size

    def _sweep(self):
        dead = [a for a, (ref, _) in self._live.items() if ref.expired()]
        for address in dead:
            self.current -= self._live.pop(address)[1]

    def adopt(self, storages):
        """Storages made before the mode began, as (address, weak reference)
        pairs: known and not counted, so that an op returning a view of one
        (a backward transposing a saved tensor) is not taken for a new one."""
        for address, ref in storages:
            if not ref.expired():
                self._live.setdefault(address, (ref, 0))

    def sample(self):
        """Live bytes now (after PyTorch's latest frees)."""
        self._sweep()
        return self.current

    def reset_window(self):
        self.window_peak = self.sample()

    def entry_of(self, tensor):
        """The live entry of a tensor's storage (None: not made while active)."""
        return self._live.get(storage_of(tensor)._cdata)

    def live_storages(self):
        """{entry: bytes} of the live storages made while active; an entry
        stands for one storage (a new storage at a freed one's address gets a
        new entry, unlike data pointers, which the allocator reuses)."""
        self._sweep()
        return {entry: entry[1] for entry in self._live.values()}

    def active(self):
        return contextlib.nullcontext()  # entered as the dispatch mode itself


class CudaMeter:
    """The same readings from the CUDA caching allocator (bytes allocated,
    in 512-byte blocks), relative to what was allocated when it began."""

    def __init__(self, device):
        self._device = device
        torch.cuda.synchronize(device)
        self._base = torch.cuda.memory_allocated(device)
        torch.cuda.reset_peak_memory_stats(device)

    def sample(self):
        return torch.cuda.memory_allocated(self._device) - self._base

    @property
    def window_peak(self):
        return torch.cuda.max_memory_allocated(self._device) - self._base

    def reset_window(self):
        torch.cuda.reset_peak_memory_stats(self._device)

    def active(self):
        return contextlib.nullcontext()


def flops_of(func, args, out):
    """Multiply-adds x 2 of the matrix products and convolutions (the bulk of
    a network's arithmetic); 0 for other ops."""
    packet = getattr(func, "overloadpacket", func)
    base = getattr(packet, "__name__", str(packet)).split(".")[-1]
    try:
        if base in ("mm", "addmm", "bmm", "baddbmm", "addbmm"):
            a, b = (args[0], args[1]) if base in ("mm", "bmm") else (args[1], args[2])
            return 2 * a.numel() * b.shape[-1]
        if base in ("convolution", "_convolution", "mkldnn_convolution", "cudnn_convolution"):
            weight = args[1]
            output = out[0] if isinstance(out, (tuple, list)) else out
            return 2 * output.numel() * (weight.numel() // weight.shape[0])
    except (IndexError, AttributeError, TypeError):
        return 0
    return 0


class Stopwatch:
    def __init__(self, device):
        self._cuda = device.type == "cuda"

    def now(self):
        if self._cuda:
            torch.cuda.synchronize()
        return time.perf_counter()
