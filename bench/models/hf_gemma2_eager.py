"""Hugging Face Gemma2 with eager attention (four RMSNorms a layer, attention
logit soft-capping, GeGLU; its softmax, masking and value product as separate
ops): 61 op nodes a layer, for the op-level MILP (docs/planners.md, "Op level:
beyond enumeration"). Every layer is full attention here; `tiny_sliding` keeps
Gemma2's own alternation of sliding-window and full layers, whose full mask
skips the first layer, so that the op-level MILP plans the model whole. Needs
transformers (scripts/torch2-python)."""
import transformers

from remat_torch.hf import token_batch

TINY = dict(num_hidden_layers=3, hidden_size=32, intermediate_size=64, num_attention_heads=4, num_key_value_heads=2,
            head_dim=8, vocab_size=128, max_position_embeddings=64, layer_types=["full_attention"] * 3,
            use_cache=False)


def tiny():
    config = transformers.Gemma2Config(**TINY)
    config._attn_implementation = "eager"
    return transformers.Gemma2ForCausalLM(config)


def tiny_inputs():
    return token_batch(TINY["vocab_size"], 2, 16)


def tiny_sliding():
    layers = ["sliding_attention", "full_attention", "sliding_attention"]
    config = transformers.Gemma2Config(**{**TINY, "layer_types": layers, "sliding_window": 4})
    config._attn_implementation = "eager"
    return transformers.Gemma2ForCausalLM(config)
