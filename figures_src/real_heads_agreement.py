"""The head that links “are” to its subject “keys” most strongly."""
from .real_heads_common import head_figure

data, caption, render, __getattr__ = head_figure("agreement")
