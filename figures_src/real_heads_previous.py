"""The previous-token head: each word looks at the word before it."""
from .real_heads_common import head_figure

data, caption, render, __getattr__ = head_figure("previous")
