"""The [CLS]/[SEP] sink: most of every row on the special tokens."""
from .real_heads_common import head_figure

data, caption, render, __getattr__ = head_figure("sink")
