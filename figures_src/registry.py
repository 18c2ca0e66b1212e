"""The site's pages in navigation order (mkdocs.yml's nav). Each is a module of figures_src/pages/ whose
`ITEMS` declare its worked examples, figures and generated text; the build collects every item from here.

Module names rather than imports, so a build with nothing to do reads this list without importing a page
(figures_src/engine/inputs.py reads it with `ast`).
"""
import importlib

from .engine import Example

PAGES = [
    "index",       # docs/index.md
    "qkv",         # docs/qkv.md
    "scores",
    "scaling",
    "softmax",
    "demo",
    "output",
    "multi_head",  # docs/multi-head.md
    "masks",
    "cost",
    "learning",    # a package: the backward step, the training run, √d_k tested by training
    "watch_it_write",  # docs/watch-it-write.md: the tiny decoder trained in the build, decoding with the KV cache
    "problems",    # a package: the problem sets, their HTML and the Python kit
    "real_heads",  # a package: the committed extraction, the grids, the head figures and the text
    "your_sentence",  # docs/your-sentence.md: the shipped weights and the in-browser model's page
    "cite",
]


def page_module(name):
    return importlib.import_module(f"figures_src.pages.{name}")


def items():
    """Every declared item of every page, in build order."""
    return [item for name in PAGES for item in page_module(name).ITEMS]


def examples():
    """Every worked example, in navigation order."""
    return [item for item in items() if isinstance(item, Example)]
