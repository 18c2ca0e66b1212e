"""The heatmap demo (docs/demo.md): a six-token sentence's scaled scores and weights, side by side."""
from ..engine import Example, example_heatmap
from ..engine.style import PHONE_WIDTH
from . import sentences

PAGE = "demo.md"

EX_DEMO = Example("ex-demo", page=PAGE, title="Scaled scores and weights of a six-token sentence",
                  data=lambda: sentences.self_attention_example(sentences.DEMO))

ITEMS = [
    EX_DEMO,
    example_heatmap(
        "demo-scaled-scores", EX_DEMO, "scaled_scores", size=(PHONE_WIDTH, 3.3),
        title="The demo's scaled scores: one cell per query-key pair.",
        caption=lambda example: (
            f"Scaled scores QKᵀ/√{example['d_k']} for “{' '.join(example['tokens'])}”: red above zero, blue below. "
            "Row i is query i, column j is key j."
        ),
    ),
    example_heatmap(
        "demo-weights", EX_DEMO, "weights", size=(PHONE_WIDTH, 3.3),
        title="The demo's attention weights: each row a softmax of the scores beside it.",
        caption=lambda example: (
            f"Attention weights for “{' '.join(example['tokens'])}”: the softmax of each row of scaled scores. "
            "Every row adds up to 1."
        ),
    ),
]
