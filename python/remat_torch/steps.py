"""One training step, as trace and verify run it: forward on the recorded
inputs, then backward from the model's own loss when it returns one (a
scalar, or a tuple, dict or dataclass holding `loss`), else from a fixed
random gradient of every floating output (remat's b_n: the output's own
size; no loss function adds tensors of its own)."""
import contextlib
import contextvars
import dataclasses

import torch

from .counting import _tensors
from .errors import UsageError
from .inputs import text as inputs_text
from .spec import first_line

LOSS = "loss"                   # the model's own loss
OUTPUT_GRADIENT = "output gradient"  # a fixed random gradient of every floating output


def output_tensors(output):
    return [t for t in _tensors(output) if t.requires_grad and t.is_floating_point()]


def output_gradients(tensors, seed=2):
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(t.shape, generator=generator).to(device=t.device, dtype=t.dtype) for t in tensors]


def _loss_field(output):
    """(found, value) of the output's `loss`: a dict key, a dataclass or
    named-tuple field, or a plain tuple's first element when it is a scalar
    (Hugging Face's return_dict=False)."""
    if isinstance(output, dict):
        return ("loss" in output), output.get("loss")
    if dataclasses.is_dataclass(output) and not isinstance(output, type):
        names = {f.name for f in dataclasses.fields(output)}
        return ("loss" in names), getattr(output, "loss", None)
    if isinstance(output, tuple):
        if hasattr(output, "_fields"):
            return ("loss" in output._fields), getattr(output, "loss", None)
        if output and isinstance(output[0], torch.Tensor) and output[0].dim() == 0:
            return True, output[0]
    return False, None


def loss_of(output, what):
    """The scalar the step differentiates, or None where the model returns
    no loss (then every floating output gets a random gradient)."""
    if isinstance(output, torch.Tensor):
        return output if output.dim() == 0 else None
    found, loss = _loss_field(output)
    if not found or loss is None:
        return None
    if not isinstance(loss, torch.Tensor) or loss.numel() != 1 or not loss.is_floating_point():
        shape = "x".join(str(d) for d in loss.shape) if isinstance(loss, torch.Tensor) else type(loss).__name__
        raise UsageError(f"{what}: the model's loss is {shape}"
                         f"{' ' + str(loss.dtype).replace('torch.', '') if isinstance(loss, torch.Tensor) else ''}, "
                         "not a floating scalar: check its labels (a reduction of 'none'? labels of another shape?)")
    if not loss.requires_grad:
        raise UsageError(f"{what}: the model's loss does not require a gradient (are all parameters frozen?)")
    return loss


def differentiated_from(output, what):
    """LOSS or OUTPUT_GRADIENT: what backward() will start from."""
    return LOSS if loss_of(output, what) is not None else OUTPUT_GRADIENT


AUTOCAST_DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
_AUTOCAST = contextvars.ContextVar("remat_torch_autocast", default=None)


@contextlib.contextmanager
def autocast(name):
    """Within it, every forward pass of trace and verify runs under
    torch.autocast(dtype=bf16 or fp16) as mixed-precision training does, so
    saved tensors are counted at the dtype autocast gives them. None: off."""
    if name is not None and name not in AUTOCAST_DTYPES:
        raise UsageError(f"--autocast {name!r}: expected one of {', '.join(AUTOCAST_DTYPES)}")
    token = _AUTOCAST.set(name)
    try:
        yield
    finally:
        _AUTOCAST.reset(token)


def current_autocast():
    return _AUTOCAST.get()


def _forward_context(batch):
    name = _AUTOCAST.get()
    if name is None:
        return contextlib.nullcontext()
    tensors = batch_tensors(batch)
    device = tensors[0].device.type if tensors else "cpu"
    return torch.autocast(device_type=device, dtype=AUTOCAST_DTYPES[name])


def run_forward(model, batch, what):
    args, kwargs = batch
    try:
        with _forward_context(batch):
            return model(*args, **kwargs)
    except Exception as e:  # the user's model or inputs it does not take: one line
        raise UsageError(f"{what} does not run on input {inputs_text(args, kwargs)}: "
                         f"{type(e).__name__}: {first_line(e)}") from None


def backward(output, what):
    loss = loss_of(output, what)
    if loss is not None:
        del output
        loss.backward()
        return
    tensors = output_tensors(output)
    if not tensors:
        raise UsageError(f"{what}: no output of the model requires a gradient (are all parameters frozen?)")
    grads = output_gradients(tensors)
    del output
    torch.autograd.backward(tensors, grads)


def step(model, batch, what):
    backward(run_forward(model, batch, what), what)


def preallocate_gradients(model):
    """Gradients accumulate in place into these, so a step allocates none
    that outlive it (neither remat nor the counters count weights)."""
    for p in model.parameters():
        if p.requires_grad:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
            else:
                p.grad.zero_()


def batch_tensors(batch):
    return _tensors(batch)


def held_before_step(model, batch):
    """Tensors alive before a step: not part of what the step holds."""
    held = batch_tensors(batch) + list(model.parameters()) + list(model.buffers())
    held += [p.grad for p in model.parameters() if p.grad is not None]
    return held
