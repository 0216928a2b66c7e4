"""Which modules become nodes of the traced model (docs/pytorch.md).

`auto`: the children of every plain nn.Sequential / nn.ModuleList (a stage of
identical blocks inside one is opened too: ConvNeXt, Swin, EfficientNet), and
around them the coarsest modules that contain no block (ResNet's stem and
head, ViT's patch projection and head), so that the model file covers the
whole forward pass. A PATTERN (fnmatch on qualified names, comma-separated:
`encoder.layers.*`, `layer3.*`) picks the blocks instead; the rest is covered
the same way."""
import fnmatch

from torch import nn

from .errors import UsageError

_CONTAINERS = (nn.Sequential, nn.ModuleList)


def _is_container(module):
    return type(module) in _CONTAINERS and len(module) >= 2


def _is_stage(module):
    """A container of two or more blocks of one class (a stage to open)."""
    if not _is_container(module):
        return False
    classes = {type(child) for child in module}
    return len(classes) == 1 and not issubclass(next(iter(classes)), _CONTAINERS)


def _join(prefix, name):
    return f"{prefix}.{name}" if prefix else name


def _auto_blocks(module, prefix=""):
    """Qualified names of the blocks under `module` (empty: no container)."""
    if _is_container(module):
        blocks = []
        for name, child in module.named_children():
            if _is_stage(child):
                blocks.extend(_join(_join(prefix, name), n) for n, _ in child.named_children())
            else:
                blocks.append(_join(prefix, name))
        return blocks
    blocks = []
    for name, child in module.named_children():
        blocks.extend(_auto_blocks(child, _join(prefix, name)))
    return blocks


def _pattern_blocks(model, pattern):
    patterns = [p.strip() for p in pattern.split(",") if p.strip()]
    if not patterns:
        raise UsageError(f"--blocks {pattern!r}: expected auto or module-name patterns such as 'layer3.*'")
    chosen = []
    for name, _ in model.named_modules():
        if name and any(fnmatch.fnmatchcase(name, p) for p in patterns):
            if not any(name.startswith(c + ".") for c in chosen):
                chosen.append(name)
    if not chosen:
        examples = [n for n, _ in model.named_modules() if n][:8]
        raise UsageError(f"--blocks {pattern!r} matches no module of this model; its modules are named like "
                         + ", ".join(examples))
    return chosen


def _cover(module, prefix, blocks, out):
    """Adds, in definition order, the blocks and the coarsest modules that
    hold no block and lie outside every block."""
    for name, child in module.named_children():
        qualified = _join(prefix, name)
        if qualified in blocks:
            out.append(qualified)
        elif any(b.startswith(qualified + ".") for b in blocks):
            _cover(child, qualified, blocks, out)
        else:
            out.append(qualified)


def candidate_units(model, blocks="auto"):
    """Module names that may become nodes; trace keeps those called in the
    forward pass, in call order."""
    chosen = _auto_blocks(model) if blocks == "auto" else _pattern_blocks(model, blocks)
    if not chosen:
        # No container anywhere: the model's children (or the model itself).
        return [n for n, _ in model.named_children()] or [""]
    units = []
    _cover(model, "", set(chosen), units)
    return units
