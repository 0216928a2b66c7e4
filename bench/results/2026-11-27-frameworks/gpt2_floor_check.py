"""GPT-2 small's peak at 64 tokens is the tied embedding's gradient: one
layer (d 768, vocabulary 50257, 1 x 64 tokens), the race's counter, head
tied and untied. Output (2026-11-27) in gpt2_floor_check.log.

    scripts/torch2-python bench/results/2026-11-27-frameworks/gpt2_floor_check.py
"""
import os
import sys
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "python")); sys.path.insert(0, os.path.join(ROOT, "bench"))
import torch
from remat_torch.hf import build, token_batch
import race_measure
for tie in (True, False):
    cfg = dict(n_layer=1, n_embd=768, n_head=12, vocab_size=50257, n_positions=1024, tie_word_embeddings=tie)
    m = build("gpt2", cfg).train()
    b = ((), token_batch(50257, 1, 64))
    peak, fl = race_measure.counted_step(m, b)
    print("tied" if tie else "untied", peak, peak / (50257 * 768 * 4))
