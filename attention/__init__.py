"""Scaled dot-product attention in plain numpy, one idea per function.

Row vectors throughout, as the article writes q = x·W_Q. Float64 by default; float32 in gives
float32 out. Leading batch dimensions `...` are accepted everywhere.
"""
from .attend import attend, attend_chunked
from .backward import attend_backward, multi_head_attention_backward, self_attention_backward, softmax_backward
from .cost import attention_cost, multi_head_cost
from .masks import causal_mask, global_mask, padding_mask, sliding_window_mask, strided_mask
from .multihead import kv_head_of, merge_heads, multi_head_attention, share_kv_heads, split_heads
from .positions import rope, sinusoidal_positions
from .scores import scaled_scores, scores
from .softmax import row_entropy, softmax

__version__ = "1.0.0"

__all__ = [
    "attend",
    "attend_backward",
    "attend_chunked",
    "attention_cost",
    "causal_mask",
    "global_mask",
    "kv_head_of",
    "merge_heads",
    "multi_head_attention",
    "multi_head_attention_backward",
    "multi_head_cost",
    "padding_mask",
    "rope",
    "row_entropy",
    "scaled_scores",
    "scores",
    "self_attention_backward",
    "share_kv_heads",
    "sinusoidal_positions",
    "sliding_window_mask",
    "softmax",
    "softmax_backward",
    "split_heads",
    "strided_mask",
]
