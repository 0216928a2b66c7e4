"""Hugging Face Llama with eager attention (its softmax, masking and value
product as separate ops): 42 op nodes a layer, for the op-level MILP
(docs/planners.md, "Op level: beyond enumeration"). Needs transformers
(scripts/torch2-python)."""
import transformers

from remat_torch.hf import token_batch

TINY = dict(num_hidden_layers=3, hidden_size=32, intermediate_size=64, num_attention_heads=4, num_key_value_heads=2,
            vocab_size=128, max_position_embeddings=64, use_cache=False)


def tiny():
    config = transformers.LlamaConfig(**TINY)
    config._attn_implementation = "eager"
    return transformers.LlamaForCausalLM(config)


def tiny_inputs():
    return token_batch(TINY["vocab_size"], 2, 16)
