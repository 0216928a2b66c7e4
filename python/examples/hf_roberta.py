"""Hugging Face RoBERTa as shipped (RobertaForMaskedLM from a RobertaConfig,
random weights), seed 002's encoder: fed input_ids (15 % masked),
attention_mask (every other sequence padded) and labels (-100 except at the
masked tokens); the loss is the output's `.loss`.

    scripts/torch2-python -m remat_torch trace --model python/examples/hf_roberta.py:model \\
        --inputs python/examples/hf_roberta.py:inputs -o hf-roberta.json

`model()`: RoBERTa-base (12 layers, hidden 768, 12 heads, vocabulary 50265),
`inputs()` 2 sequences of 512 tokens; `tiny()` / `tiny_inputs()` for the tests."""
from remat_torch.hf import build, token_batch

BASE = dict(num_hidden_layers=12, hidden_size=768, num_attention_heads=12, intermediate_size=3072,
            vocab_size=50265, max_position_embeddings=514, pad_token_id=1)
TINY = dict(num_hidden_layers=2, hidden_size=32, num_attention_heads=4, intermediate_size=64, vocab_size=128,
            max_position_embeddings=40, pad_token_id=1)


def model():
    return build("roberta", BASE)


def inputs():
    return token_batch(BASE["vocab_size"], 2, 512, masked_lm=True, pad_token_id=1)


def tiny():
    return build("roberta", TINY)


def tiny_inputs():
    return token_batch(TINY["vocab_size"], 2, 16, masked_lm=True, pad_token_id=1)
