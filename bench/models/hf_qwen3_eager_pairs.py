"""Hugging Face Qwen3 with eager attention, its decoder layers grouped in
pairs: 108 op nodes a block (54 a layer: Llama's eager layer plus the RMSNorms
on queries and keys), for the op-level MILP on blocks bigger than one layer of
any shipped model gives (docs/planners.md, "Op level: beyond enumeration";
Gemma2 eager, 61 a layer, is the biggest single layer). The pairs are the
blocks: each Pair module runs its two HF layers in turn with the arguments
the HF model passes to one, so the model itself is unchanged (six layers, as
shipped). Gemma2 pairs come to 122 and Gemma3 pairs (q/k norms too) to 144,
past the 90 to 120 aimed at; decoder layers with cross-attention stay smaller
(BART 41; T5 64, its first 85 with the relative position bias; hf_bart.py,
hf_t5.py). Needs transformers (scripts/torch2-python)."""
import torch
import transformers

from remat_torch.hf import token_batch

TINY = dict(num_hidden_layers=6, hidden_size=32, intermediate_size=64, num_attention_heads=4, num_key_value_heads=2,
            head_dim=8, vocab_size=128, max_position_embeddings=64, layer_types=["full_attention"] * 6,
            use_cache=False)


class Pair(torch.nn.Module):
    """Two decoder layers as one block, called as HF calls one layer."""

    def __init__(self, first, second):
        super().__init__()
        self.first, self.second = first, second

    def forward(self, hidden_states, **kwargs):
        return self.second(self.first(hidden_states, **kwargs), **kwargs)


def tiny():
    config = transformers.Qwen3Config(**TINY)
    config._attn_implementation = "eager"
    model = transformers.Qwen3ForCausalLM(config)
    layers = model.model.layers  # the HF loop runs layers[:num_hidden_layers]: all three pairs
    model.model.layers = torch.nn.ModuleList(Pair(layers[i], layers[i + 1]) for i in range(0, len(layers), 2))
    return model


def tiny_inputs():
    return token_batch(TINY["vocab_size"], 2, 16)
