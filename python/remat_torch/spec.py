"""SPEC, SHAPE, dtype and device as typed on the command line, turned into a
module and an input batch (docs/pytorch.md)."""
import importlib.util
import os
import re

import torch
from torch import nn

from .errors import UsageError

SPEC_FORMS = ("torchvision:NAME (e.g. torchvision:resnet50), hf:FAMILY:KEY=VALUE,... (e.g. hf:gpt2:n_layer=2), "
              "torch:transformer-encoder:d_model=768,nhead=12,layers=12[,dim_feedforward=3072,dropout=0.1], "
              "or path/to/file.py:callable")
DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16, "float16": torch.float16}


def parse_dtype(text):
    if text not in DTYPES:
        raise UsageError(f"--dtype {text!r}: expected one of {', '.join(DTYPES)}")
    return DTYPES[text]


def parse_device(text):
    if text not in ("cpu", "cuda"):
        raise UsageError(f"--device {text!r}: expected cpu or cuda")
    if text == "cuda" and not torch.cuda.is_available():
        raise UsageError(f"--device cuda: this PyTorch ({torch.__version__}) sees no CUDA device"
                         + (" and was built without CUDA" if torch.version.cuda is None else ""))
    return torch.device(text)


def _torchvision_model(name):
    try:
        import torchvision.models as models
    except ImportError as e:
        raise UsageError(f"torchvision:{name}: torchvision is not installed ({e}); "
                         "scripts/deps.sh installs python3-torchvision") from None
    known = models.list_models(module=models) if hasattr(models, "list_models") else [
        n for n in dir(models) if n[0].islower() and callable(getattr(models, n))]
    if name not in known:
        raise UsageError(f"torchvision:{name}: not a torchvision classification model; known: "
                         + ", ".join(sorted(known)))
    return getattr(models, name)(weights=None)


_ENCODER_KEYS = {"d_model": int, "nhead": int, "layers": int, "dim_feedforward": int, "dropout": float}


def _transformer_encoder(arguments, spec):
    values = {"dim_feedforward": None, "dropout": 0.1}
    for item in filter(None, arguments.split(",")):
        key, sep, value = item.partition("=")
        if not sep or key not in _ENCODER_KEYS:
            raise UsageError(f"{spec}: {item!r} is not KEY=VALUE with KEY one of {', '.join(_ENCODER_KEYS)}")
        try:
            values[key] = _ENCODER_KEYS[key](value)
        except ValueError:
            raise UsageError(f"{spec}: {key}={value!r} is not a number") from None
    for key in ("d_model", "nhead", "layers"):
        if key not in values:
            raise UsageError(f"{spec}: missing {key}=...; e.g. "
                             "torch:transformer-encoder:d_model=768,nhead=12,layers=12")
        if values[key] < 1:
            raise UsageError(f"{spec}: {key} must be at least 1")
    if values["d_model"] % values["nhead"]:
        raise UsageError(f"{spec}: d_model={values['d_model']} is not divisible by nhead={values['nhead']}")
    if not 0 <= values["dropout"] < 1:
        raise UsageError(f"{spec}: dropout must be in [0, 1)")
    feedforward = values["dim_feedforward"] or 4 * values["d_model"]
    # batch_first: the input is batch x seq x d_model, as seed 002's encoder takes it.
    layer = nn.TransformerEncoderLayer(values["d_model"], values["nhead"], feedforward, values["dropout"],
                                       batch_first=True)
    return nn.TransformerEncoder(layer, values["layers"], enable_nested_tensor=False)


def load_callable(spec, option="--model"):
    """The callable NAME of FILE.py for SPEC 'FILE.py:NAME' (imported afresh)."""
    path, sep, name = spec.rpartition(":")
    if not sep or not path.endswith(".py"):
        raise UsageError(f"{option} {spec!r}: expected path/to/file.py:callable")
    if not os.path.isfile(path):
        raise UsageError(f"{spec}: no such file {path!r}")
    if not name.isidentifier():
        raise UsageError(f"{spec}: {name!r} is not a Python name")
    module_name = "remat_user_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None:
        raise UsageError(f"{spec}: {path!r} is not a Python file")
    module = importlib.util.module_from_spec(loader_spec)
    try:
        loader_spec.loader.exec_module(module)
    except Exception as e:  # the user's code: say what it raised, in one line
        raise UsageError(f"{spec}: importing {path} raised {type(e).__name__}: {first_line(e)}") from None
    factory = getattr(module, name, None)
    if factory is None or not callable(factory):
        raise UsageError(f"{spec}: {path} defines no callable {name!r}")
    return factory


def _from_file(spec):
    factory = load_callable(spec)
    name = spec.rpartition(":")[2]
    try:
        model = factory()
    except Exception as e:
        raise UsageError(f"{spec}: {name}() raised {type(e).__name__}: {first_line(e)}") from None
    if not isinstance(model, nn.Module):
        raise UsageError(f"{spec}: {name}() returned {type(model).__name__}, not a torch.nn.Module")
    return model


def build_model(spec, seed=0):
    """The module a SPEC names, its parameters drawn from `seed` so that every
    run of trace and verify builds the same weights."""
    torch.manual_seed(seed)
    kind, sep, rest = spec.partition(":")
    if sep and kind == "torchvision" and rest:
        return _torchvision_model(rest)
    if sep and kind == "torch":
        name, _, arguments = rest.partition(":")
        if name == "transformer-encoder":
            return _transformer_encoder(arguments, spec)
        raise UsageError(f"{spec}: unknown torch model {name!r}; expected {SPEC_FORMS}")
    if sep and kind == "hf":
        from .hf import build
        family, _, settings = rest.partition(":")
        return build(family, settings, spec)
    path, sep, name = spec.rpartition(":")
    if sep and path.endswith(".py"):
        return _from_file(spec)
    raise UsageError(f"--model {spec!r}: expected {SPEC_FORMS}")


def first_line(error):
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
