"""Hugging Face Qwen2 as shipped (Qwen2ForCausalLM from a Qwen2Config, random
weights): a second decoder family beside Llama (biases on q, k, v; its own
grouped-query shape). Fed input_ids, attention_mask and labels; the loss is
the output's `.loss`.

`model()`: the layer shape of Qwen2.5 0.5B (hidden 896, MLP 4864, 14 heads,
2 key/value heads, vocabulary 151936, tied embeddings) with 6 layers of 24;
`inputs()` 2 sequences of 256 tokens. `tiny()` / `tiny_inputs()` for the tests."""
from remat_torch.hf import build, token_batch

LAYER_05B = dict(num_hidden_layers=6, hidden_size=896, intermediate_size=4864, num_attention_heads=14,
                 num_key_value_heads=2, vocab_size=151936, max_position_embeddings=2048, tie_word_embeddings=True)
TINY = dict(num_hidden_layers=2, hidden_size=32, intermediate_size=64, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=128, max_position_embeddings=64)


def model():
    return build("qwen2", LAYER_05B)


def inputs():
    return token_batch(LAYER_05B["vocab_size"], 2, 256)


def tiny():
    return build("qwen2", TINY)


def tiny_inputs():
    return token_batch(TINY["vocab_size"], 2, 16)
