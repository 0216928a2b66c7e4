"""The framework's own checkpointing, as bench/framework_race.py runs it:
each configuration turns a fresh copy of the model into the one it trains.
A configuration that cannot run here raises NotRun with the reason."""
import functools

import torch
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

from remat_torch.blocks import _auto_blocks
from remat_torch.hf import checkpointing_layers, without_cache

aten = torch.ops.aten


class NotRun(Exception):
    """This configuration does not run here; the message says why."""


def _blocks(model):
    """The modules a per-block policy wraps: transformers' own checkpointing
    layers where there are some (the layers it would checkpoint itself),
    else the blocks remat traces (children of Sequential / ModuleList)."""
    layers = checkpointing_layers(model)
    if layers:
        return layers
    named = dict(model.named_modules())
    return [named[name] for name in _auto_blocks(model)]


def _wrap(module, context_fn=None):
    original = module.forward
    extra = {} if context_fn is None else {"context_fn": context_fn}

    def forward(*args, **kwargs):
        return checkpoint(original, *args, use_reentrant=False, **extra, **without_cache(module, kwargs))
    module.forward = forward  # an instance attribute: nn.Module.__call__ finds it first


def per_layer(model):
    """Hugging Face's gradient_checkpointing_enable() on its models,
    torch.utils.checkpoint around each block elsewhere."""
    if checkpointing_layers(model) and hasattr(model, "gradient_checkpointing_enable"):
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        return model
    blocks = _blocks(model)
    if not blocks:
        raise NotRun("no blocks to checkpoint (no Sequential / ModuleList of two or more children)")
    for block in blocks:
        _wrap(block)
    return model


def per_layer_name(model):
    if checkpointing_layers(model) and hasattr(model, "gradient_checkpointing_enable"):
        return "per-layer (HF gradient_checkpointing_enable)"
    return "per-layer (torch.utils.checkpoint per block)"


_MATMULS = {aten.mm.default, aten.addmm.default, aten.bmm.default, aten.baddbmm.default}
# Megatron's selective recomputation: the attention core (scores, softmax,
# dropout, the weighted sum) is re-run, the rest kept. Eager attention's
# score products are bmm / baddbmm; fused attention is one SDPA op.
_ATTENTION_CORE = {aten._softmax.default, aten._safe_softmax.default, aten.native_dropout.default,
                   aten.bmm.default, aten.baddbmm.default,
                   aten._scaled_dot_product_flash_attention_for_cpu.default,
                   aten._scaled_dot_product_efficient_attention.default,
                   aten._scaled_dot_product_attention_math.default}


def _save_matmuls(ctx, op, *args, **kwargs):
    return CheckpointPolicy.MUST_SAVE if op in _MATMULS else CheckpointPolicy.PREFER_RECOMPUTE


def _recompute_attention_core(ctx, op, *args, **kwargs):
    return CheckpointPolicy.PREFER_RECOMPUTE if op in _ATTENTION_CORE else CheckpointPolicy.MUST_SAVE


def _selective(policy):
    def apply(model):
        blocks = _blocks(model)
        if not blocks:
            raise NotRun("no blocks to checkpoint (no Sequential / ModuleList of two or more children)")
        for block in blocks:
            _wrap(block, functools.partial(create_selective_checkpoint_contexts, policy))
        return model
    return apply


save_matmuls = _selective(_save_matmuls)
recompute_attention_core = _selective(_recompute_attention_core)


def compiled(budget):
    """torch.compile with activation_memory_budget = `budget` (the min-cut
    partitioner's fraction of store-all's saved bytes). The backend is
    aot_eager_decomp_partition: the same AOT graphs, decompositions and
    partitioner as inductor, run as aten ops. Inductor's kernels allocate
    their buffers outside aten dispatch, which no CPU counter of the
    project sees, so its peak could not be measured as the others are."""
    def apply(model):
        return torch.compile(model, backend="aot_eager_decomp_partition")
    apply.budget = budget
    return apply
