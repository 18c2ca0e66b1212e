"""The next-token head: each word looks at the word after it."""
from .real_heads_common import head_figure

data, caption, render, __getattr__ = head_figure("next")
