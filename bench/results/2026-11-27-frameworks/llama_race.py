"""A Llama-style decoder for the race: transformers' LlamaForCausalLM built
from a config (random weights, nothing downloaded): 4 layers, d 512, 8 heads
(2 key/value heads, grouped-query attention), SwiGLU MLP 1408, RMSNorm,
rotary positions, vocabulary 8192; 2 sequences of 128 tokens."""
from remat_torch.hf import build, token_batch

CONFIG = dict(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=2,
              intermediate_size=1408, vocab_size=8192, max_position_embeddings=256)
BATCH, SEQ = 2, 128


def model():
    return build("llama", CONFIG)


def inputs():
    return token_batch(CONFIG["vocab_size"], BATCH, SEQ)
