"""One training step, as trace and verify run it: forward, then backward
from a fixed random gradient of every floating output (remat's b_n: the
output's own size; no loss function adds tensors of its own)."""
import torch

from .counting import _tensors
from .errors import UsageError
from .spec import first_line, shape_text


def output_tensors(output):
    return [t for t in _tensors(output) if t.requires_grad and t.is_floating_point()]


def output_gradients(tensors, seed=2):
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(t.shape, generator=generator).to(device=t.device, dtype=t.dtype) for t in tensors]


def run_forward(model, x, what):
    try:
        return model(x)
    except Exception as e:  # the user's model or a shape it does not take: one line
        raise UsageError(f"{what} does not run on input {shape_text(x.shape)} {str(x.dtype).replace('torch.', '')}: "
                         f"{type(e).__name__}: {first_line(e)}") from None


def backward(output, what):
    tensors = output_tensors(output)
    if not tensors:
        raise UsageError(f"{what}: no output of the model requires a gradient (are all parameters frozen?)")
    grads = output_gradients(tensors)
    del output
    torch.autograd.backward(tensors, grads)


def step(model, x, what):
    backward(run_forward(model, x, what), what)


def preallocate_gradients(model):
    """Gradients accumulate in place into these, so a step allocates none
    that outlive it (neither remat nor the counters count weights)."""
    for p in model.parameters():
        if p.requires_grad:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
            else:
                p.grad.zero_()


def held_before_step(model, x):
    """Tensors alive before a step: not part of what the step holds."""
    held = [x] + list(model.parameters()) + list(model.buffers())
    held += [p.grad for p in model.parameters() if p.grad is not None]
    return held
