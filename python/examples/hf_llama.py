"""Hugging Face Llama as shipped (LlamaForCausalLM from a LlamaConfig, random
weights): RMSNorm, rotary positions, grouped-query attention, a SwiGLU MLP.
Fed input_ids, attention_mask and labels; the loss is the output's `.loss`.

    scripts/torch2-python -m remat_torch trace --model python/examples/hf_llama.py:model \\
        --inputs python/examples/hf_llama.py:inputs -o hf-llama.json

`model()`: the layer shape of Llama 3.2 1B (hidden 2048, MLP 8192, 32 heads,
8 key/value heads, vocabulary 128256, tied embeddings) with 4 layers instead
of 16, so that it traces on a small machine; `inputs()` 1 sequence of 512
tokens. `tiny()` / `tiny_inputs()` for the tests."""
from remat_torch.hf import build, token_batch

LAYER_1B = dict(num_hidden_layers=4, hidden_size=2048, intermediate_size=8192, num_attention_heads=32,
                num_key_value_heads=8, vocab_size=128256, max_position_embeddings=2048,
                rope_parameters={"rope_type": "default", "rope_theta": 500000.0},
                tie_word_embeddings=True)
TINY = dict(num_hidden_layers=2, hidden_size=32, intermediate_size=64, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=128, max_position_embeddings=64)


def model():
    return build("llama", LAYER_1B)


def inputs():
    return token_batch(LAYER_1B["vocab_size"], 1, 512)


def tiny():
    return build("llama", TINY)


def tiny_inputs():
    return token_batch(TINY["vocab_size"], 2, 16)
