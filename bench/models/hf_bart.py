"""Hugging Face BART (encoder-decoder), tiny: as bench/models/hf_t5.py, the
encoder's output read by every decoder layer, and the decoder's inputs,
shifted from the labels before the encoder runs, read only after it: the
op-level MILP plans the model whole. Needs transformers
(scripts/torch2-python)."""
import transformers

from remat_torch.hf import token_batch

TINY = dict(vocab_size=128, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
            decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
            use_cache=False, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0)


def tiny():
    config = transformers.BartConfig(**TINY)
    config._attn_implementation = "eager"
    return transformers.BartForConditionalGeneration(config)


def tiny_inputs():
    return token_batch(TINY["vocab_size"], 2, 16)
