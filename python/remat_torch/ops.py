"""Running one aten op from inside a TorchDispatchMode, and naming it: what
the counters (counting.py), the op-level trace (op_trace.py), the selective
checkpoint (selective.py) and op-level verify share."""
import torch

_NUMBERS = (bool, int, float, complex)


def _as_tensor(number):
    dtype = {bool: torch.bool, int: torch.int64, float: torch.float64, complex: torch.complex128}[type(number)]
    return torch.tensor(number, dtype=dtype)


def _takes_tensor(func, index):
    arguments = func._schema.arguments
    return index < len(arguments) and str(arguments[index].type) == "Tensor"


def _returns_tensor(func):
    returns = func._schema.returns
    return len(returns) == 1 and str(returns[0].type) == "Tensor"


def op_name(func):
    packet = getattr(func, "overloadpacket", func)
    return "aten::" + getattr(packet, "__name__", str(packet)).split(".")[-1]


def run_op(func, args, kwargs):
    """func(*args, **kwargs) from inside a dispatch mode. PyTorch 1.13 hands
    a scalar autograd saved ("x / 8.0") to modes as a Python number; the op
    must still see and return a tensor (as LiveTensors does)."""
    args = tuple(_as_tensor(a) if isinstance(a, _NUMBERS) and _takes_tensor(func, i) else a
                 for i, a in enumerate(args))
    out = func(*args, **(kwargs or {}))
    if isinstance(out, _NUMBERS) and _returns_tensor(func):
        out = _as_tensor(out)
    return out


def numbered(func):
    """Whether an op call gets a call index. Autograd's own detach (when it
    saves an output without saved-tensor hooks) is left out, so that a
    block's calls are numbered alike with and without hooks."""
    return op_name(func) != "aten::detach"


def is_inplace(func):
    return op_name(func).endswith("_")
