"""What a model is called with, as typed on the command line and as recorded
in the model file's "trace" object, so that trace, verify and apply build the
same batch (docs/pytorch.md, "Inputs").

Two forms:
- tensors: `--input SHAPE[:DTYPE[:LOW..HIGH]]`, repeatable, the model's
  positional arguments in order. A floating tensor without a range is
  standard normal; with one, uniform in [LOW, HIGH). An integer tensor needs
  a range: uniform integers in [LOW, HIGH) (token ids: 0..VOCAB). bool: 0 or 1.
- a function: `--inputs FILE.py:callable` returns a tensor, a tuple (the
  positional arguments) or a dict (keyword arguments: input_ids,
  attention_mask, labels, ...). It is called after torch.manual_seed(1), so
  random draws in it repeat.

Recorded as {"tensors": ["8x512:int64:0..50257", ...]} or {"function":
"FILE.py:callable"}; build_inputs(recorded, dtype, device) makes (args,
kwargs) from it. Floating tensors take the model's dtype (unless --input
names one); integer and boolean tensors keep theirs; no input requires a
gradient."""
import inspect
import re

import torch

from .errors import UsageError

MAX_INPUT_ELEMENTS = 1 << 34
INPUT_FORM = ("SHAPE[:DTYPE[:LOW..HIGH]], e.g. 32x3x224x224, 8x512:int64:0..50257, 8x512:bool "
              "or 8x16:float32:-1..1")
TENSOR_DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16,
                 "float16": torch.float16, "int64": torch.int64, "int32": torch.int32, "int16": torch.int16,
                 "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool}
INPUT_SEED = 1
_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"


def parse_shape(text, option="--input"):
    """'32x3x224x224' (or with commas) -> [32, 3, 224, 224]."""
    parts = re.split(r"[x,]", text.strip().lower()) if text else []
    if not parts or not all(re.fullmatch(r"[0-9]+", p) for p in parts) or len(parts) > 8:
        raise UsageError(f"{option} {text!r}: expected a shape such as 32x3x224x224 "
                         "(1 to 8 positive integers separated by x)")
    shape = [int(p) for p in parts]
    if any(d < 1 for d in shape):
        raise UsageError(f"{option} {text!r}: every dimension must be at least 1")
    elements = 1
    for d in shape:
        elements *= d
    if elements > MAX_INPUT_ELEMENTS:
        raise UsageError(f"{option} {text!r}: {elements} elements is more than the {MAX_INPUT_ELEMENTS} allowed")
    return shape


def parse_tensor(text):
    """'8x512:int64:0..50257' -> {"shape": [8, 512], "dtype": "int64", "range": [0, 50257]}
    (dtype None: the model's; range None: standard normal)."""
    text = (text or "").strip()
    shape_text, _, rest = text.partition(":")
    spec = {"shape": parse_shape(shape_text), "dtype": None, "range": None}
    if not rest:
        return spec
    dtype, _, value_range = rest.partition(":")
    if dtype not in TENSOR_DTYPES:
        raise UsageError(f"--input {text!r}: dtype {dtype!r} is not one of {', '.join(TENSOR_DTYPES)} "
                         f"(expected {INPUT_FORM})")
    spec["dtype"] = dtype
    floating = TENSOR_DTYPES[dtype].is_floating_point
    if value_range:
        match = re.fullmatch(rf"({_NUMBER})\.\.({_NUMBER})", value_range)
        if not match:
            raise UsageError(f"--input {text!r}: range {value_range!r} is not LOW..HIGH (expected {INPUT_FORM})")
        low, high = (float(g) for g in match.groups())
        if not floating:
            if low != int(low) or high != int(high):
                raise UsageError(f"--input {text!r}: an {dtype} range takes whole numbers, not {value_range!r}")
            low, high = int(low), int(high)
        if not low < high:
            raise UsageError(f"--input {text!r}: range {value_range!r} is empty (LOW must be below HIGH; "
                             "HIGH is excluded)")
        spec["range"] = [low, high]
    elif dtype == "bool":
        spec["range"] = [0, 2]
    elif not floating:
        raise UsageError(f"--input {text!r}: an {dtype} input needs a range, e.g. "
                         f"{shape_text}:{dtype}:0..50257 (token ids below 50257)")
    return spec


def tensor_text(spec):
    text = "x".join(str(d) for d in spec["shape"])
    if spec.get("dtype"):
        text += ":" + spec["dtype"]
        if spec.get("range") and spec["dtype"] != "bool":
            text += f":{spec['range'][0]}..{spec['range'][1]}"
    return text


def recorded_inputs(input_texts=None, function=None):
    """The "inputs" record of the command line's --input (list) or --inputs."""
    if function and input_texts:
        raise UsageError("give either --input (tensors) or --inputs FILE.py:callable, not both")
    if function:
        return {"function": function}
    if not input_texts:
        raise UsageError("no input: give --input SHAPE[:DTYPE[:LOW..HIGH]] (repeatable) or --inputs FILE.py:callable")
    return {"tensors": [tensor_text(parse_tensor(t)) for t in input_texts]}


def from_trace(trace):
    """The "inputs" record of a file's "trace" object (files traced before
    there were several inputs name one float shape in "input")."""
    if isinstance(trace.get("inputs"), dict):
        return trace["inputs"]
    return {"tensors": ["x".join(str(d) for d in trace["input"])]}


def describe(recorded):
    if "function" in recorded:
        return f"inputs from {recorded['function']}"
    return "input " + ", ".join(recorded["tensors"])


def _random_tensor(spec, dtype, generator):
    shape = spec["shape"]
    own = TENSOR_DTYPES[spec["dtype"]] if spec.get("dtype") else dtype
    value_range = spec.get("range")
    if not own.is_floating_point:
        low, high = value_range
        return torch.randint(int(low), int(high), shape, generator=generator).to(own)
    if value_range:
        low, high = value_range
        return (torch.rand(shape, generator=generator) * (high - low) + low).to(own)
    return torch.randn(shape, generator=generator).to(own)


def _call_function(function, dtype):
    from .spec import first_line, load_callable
    factory = load_callable(function, "--inputs")
    torch.manual_seed(INPUT_SEED)
    try:
        value = factory()
    except Exception as e:  # the user's code: what it raised, in one line
        raise UsageError(f"--inputs {function}: {factory.__name__}() raised {type(e).__name__}: "
                         f"{first_line(e)}") from None
    if isinstance(value, torch.Tensor):
        return (value,), {}
    if isinstance(value, (tuple, list)) and value:
        return tuple(value), {}
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        return (), dict(value)
    raise UsageError(f"--inputs {function}: {factory.__name__}() returned {type(value).__name__}"
                     f"{' (empty)' if isinstance(value, (tuple, list, dict)) and not value else ''}; expected a "
                     "tensor, a tuple of positional arguments or a dict of keyword arguments")


def _place(value, dtype, device):
    if isinstance(value, torch.Tensor):
        value = value.detach()
        if value.is_floating_point():
            return value.to(device=device, dtype=dtype)
        return value.to(device=device)
    if isinstance(value, (tuple, list)):
        return type(value)(_place(v, dtype, device) for v in value)
    if isinstance(value, dict):
        return {k: _place(v, dtype, device) for k, v in value.items()}
    return value


def build_inputs(recorded, dtype, device):
    """(args, kwargs) the model is called with, the same on every call."""
    if "function" in recorded:
        args, kwargs = _call_function(recorded["function"], dtype)
        return _place(args, dtype, device), _place(kwargs, dtype, device)
    generator = torch.Generator().manual_seed(INPUT_SEED)
    return tuple(_random_tensor(parse_tensor(t), dtype, generator).to(device) for t in recorded["tensors"]), {}


def check_signature(model, args, kwargs, recorded):
    """Refuses keyword arguments the model's forward does not take, naming them."""
    try:
        signature = inspect.signature(model.forward)
    except (TypeError, ValueError):
        return
    parameters = signature.parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in parameters):
        return
    taken = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    unknown = [k for k in kwargs if k not in taken]
    if unknown:
        raise UsageError(f"{describe(recorded)}: {type(model).__name__}.forward takes no argument "
                         f"{unknown[0]!r} (it takes {', '.join(sorted(taken)) or 'no keyword arguments'})")


def text(args, kwargs):
    """'8x512 int64, attention_mask=8x512 int64' for messages and the file's name."""
    def one(t):
        if isinstance(t, torch.Tensor):
            return "x".join(str(d) for d in t.shape) + " " + str(t.dtype).replace("torch.", "")
        return type(t).__name__
    parts = [one(a) for a in args] + [f"{k}={one(v)}" for k, v in kwargs.items()]
    return ", ".join(parts)
