"""Hugging Face T5 (encoder-decoder, relative position bias), tiny: the
encoder's output is made between the encoder's and the decoder's blocks,
beside the decoder's embedding, and read by every decoder layer's
cross-attention, so no block's neighbourhood holds it and the op-level MILP
plans the model whole (docs/planners.md, "Op level: beyond enumeration").
Needs transformers (scripts/torch2-python)."""
import transformers

from remat_torch.hf import token_batch

TINY = dict(vocab_size=128, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
            use_cache=False, dropout_rate=0.0, decoder_start_token_id=0)


def tiny():
    config = transformers.T5Config(**TINY)
    config._attn_implementation = "eager"
    return transformers.T5ForConditionalGeneration(config)


def tiny_inputs():
    return token_batch(TINY["vocab_size"], 2, 16)
