"""Hugging Face GPT-2 as shipped (GPT2LMHeadModel from a GPT2Config: random
weights, nothing downloaded), fed input_ids, attention_mask and labels; the
loss is the output dataclass's `.loss` (docs/pytorch.md, "Hugging Face models").

    scripts/torch2-python -m remat_torch trace --model python/examples/hf_gpt2.py:model \\
        --inputs python/examples/hf_gpt2.py:inputs --progress -o hf-gpt2.json

`model()` is GPT-2 small (124M: 12 layers, d 768, 12 heads, vocabulary
50257) and `inputs()` 2 sequences of 512 tokens; `tiny()` / `tiny_inputs()`
are for the tests."""
from remat_torch.hf import build, token_batch

SMALL = dict(n_layer=12, n_embd=768, n_head=12, vocab_size=50257, n_positions=1024)
TINY = dict(n_layer=2, n_embd=32, n_head=4, vocab_size=128, n_positions=64)


def model():
    return build("gpt2", SMALL)


def inputs():
    return token_batch(SMALL["vocab_size"], 2, 512)


def tiny():
    return build("gpt2", TINY)


def tiny_inputs():
    return token_batch(TINY["vocab_size"], 2, 16)
