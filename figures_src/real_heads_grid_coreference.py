"""Every head of a real model on the coreference sentence: 6 layers × 12 heads."""
from .real_heads_common import GRID_SIZE as SIZE, grid_figure

data, caption, render, alt, table = grid_figure("coreference")
