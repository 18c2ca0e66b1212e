"""The head that links “it” to “animal” most strongly."""
from .real_heads_common import head_figure

data, caption, render, __getattr__ = head_figure("coreference")
