"""Every figure, worked example and snippet module, in build order. One line per module.

`scores_heatmap` is figures_src/scores_heatmap.py; its outputs are named `scores-heatmap`.
"""

ITEMS = [
    "ex_scores",
    "scores_heatmap",
    "problems",
]
