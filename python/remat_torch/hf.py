"""Hugging Face transformers models as shipped, built from a config alone
(random weights: nothing is downloaded), and the batches they train on
(docs/pytorch.md, "Hugging Face models").

    --model hf:gpt2:n_layer=2,n_embd=64,n_head=4,vocab_size=512
    --model hf:llama:num_hidden_layers=2,hidden_size=64,...

FAMILY picks the config and model classes (FAMILIES); KEY=VALUE pairs set
config fields, each checked against the config class, so a misspelt key is
refused instead of silently ignored (transformers keeps unknown keys as
attributes)."""
import os
import sys

from .errors import UsageError

# family -> (config class, model class): the model a user fine-tunes, with its loss head.
FAMILIES = {
    "gpt2": ("GPT2Config", "GPT2LMHeadModel"),
    "llama": ("LlamaConfig", "LlamaForCausalLM"),
    "qwen2": ("Qwen2Config", "Qwen2ForCausalLM"),
    "mistral": ("MistralConfig", "MistralForCausalLM"),
    "roberta": ("RobertaConfig", "RobertaForMaskedLM"),
    "bert": ("BertConfig", "BertForMaskedLM"),
}


def transformers_module():
    """transformers, or a UsageError saying this Python lacks it."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # configs only: never reach the hub
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import transformers
    except ImportError as e:
        raise UsageError(f"transformers is not importable in {sys.executable} ({e}); "
                         "scripts/torch2-python runs a Python with PyTorch 2 and transformers") from None
    return transformers


def _value(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def config_of(family, settings, what=None):
    """The config object of FAMILY with SETTINGS (a dict, or 'k=v,k=v' text)."""
    what = what or f"hf:{family}"
    if family not in FAMILIES:
        raise UsageError(f"{what}: unknown Hugging Face family {family!r}; known: {', '.join(FAMILIES)}")
    transformers = transformers_module()
    config_class = getattr(transformers, FAMILIES[family][0])
    if isinstance(settings, str):
        pairs = {}
        for item in filter(None, settings.split(",")):
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise UsageError(f"{what}: {item!r} is not KEY=VALUE")
            pairs[key.strip()] = _value(value.strip())
        settings = pairs
    known = set(config_class().to_dict()) | set(getattr(config_class, "attribute_map", {}))
    unknown = sorted(k for k in settings if k not in known)
    if unknown:
        import difflib
        near = difflib.get_close_matches(unknown[0], sorted(known), n=3)
        raise UsageError(f"{what}: unknown config key {unknown[0]!r} for {config_class.__name__}"
                         + (f" (did you mean {', '.join(near)}?)" if near else ""))
    return config_class(**settings)


def build(family, settings=None, what=None):
    """FAMILY's model class built from its config, random weights, as
    shipped (the config's default attention: SDPA in recent releases)."""
    settings = dict(settings or {}) if not isinstance(settings, str) else settings
    config = config_of(family, settings, what)
    if "use_cache" not in (settings if isinstance(settings, dict) else {}):
        config.use_cache = False  # training: no key/value cache (as with transformers' own checkpointing)
    transformers = transformers_module()
    return getattr(transformers, FAMILIES[family][1])(config)


def token_batch(vocab_size, batch, seq, masked_lm=False, pad_token_id=0, seed=1):
    """{"input_ids", "attention_mask", "labels"}: random token ids, every
    other sequence padded over its last quarter (attention_mask 0, label
    -100 there). Causal LM: the labels are the ids (the model shifts them);
    masked LM: 15 % of the real tokens are masked, labels -100 elsewhere."""
    import torch
    generator = torch.Generator().manual_seed(seed)
    input_ids = torch.randint(3, vocab_size - 1, (batch, seq), generator=generator)
    attention_mask = torch.ones(batch, seq, dtype=torch.int64)
    attention_mask[1::2, seq - seq // 4:] = 0
    input_ids[attention_mask == 0] = pad_token_id
    if masked_lm:
        chosen = (torch.rand(batch, seq, generator=generator) < 0.15) & attention_mask.bool()
        chosen[:, 0] = True  # at least one masked token per sequence: the loss is never empty
        labels = torch.where(chosen, input_ids, torch.full_like(input_ids, -100))
        input_ids[chosen] = vocab_size - 1
    else:
        labels = torch.where(attention_mask.bool(), input_ids, torch.full_like(input_ids, -100))
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}


_CACHE_ARGUMENTS = ("past_key_values", "past_key_value", "layer_past", "cache")


def without_cache(module, kwargs):
    """The keyword arguments a checkpointed transformers layer runs with: as
    its own checkpointing does, no key/value cache (the forward pass would
    append to it and the re-run append again: keys of twice the length)."""
    if getattr(module, "_can_checkpoint_with_cache", True) or not kwargs:
        return kwargs
    kwargs = dict(kwargs)
    if kwargs.get("use_cache"):
        kwargs["use_cache"] = False
    for name in _CACHE_ARGUMENTS:
        if kwargs.get(name) is not None:
            kwargs[name] = None
    return kwargs


def checkpointing_layers(model):
    """The modules transformers itself may checkpoint (GradientCheckpointingLayer,
    or any module with its `gradient_checkpointing` flag)."""
    return [m for m in model.modules() if isinstance(getattr(m, "gradient_checkpointing", None), bool)]
