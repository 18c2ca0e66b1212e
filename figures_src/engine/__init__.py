"""The build engine: what a page module declares, and everything that turns declarations into files.

    items      Example, Figure, Snippets and example_heatmap: what a page declares in ITEMS
    render     outputs(item): the files one item writes (figures.py draws, examples.py writes example JSON)
    heatmap    the one heatmap helper; svg, style: matplotlib's SVG made inline-safe, the shared style
    text       the one vocabulary for printing numbers, vectors and tables
    words      Words, Template: the sentences a reader sees, read from words/<page>.md and filled with numbers
    inputs     what each item read while it built (recorded), so an item whose inputs are unchanged is skipped
    site, errors   the site's address; BuildError, which names what broke

Nothing here imports the pages or the build entry point: the dependencies point one way.
"""
from .errors import BuildError
from .items import Example, Figure, Snippets, example_heatmap
from .words import Template, Words

__all__ = ["BuildError", "Example", "Figure", "Snippets", "Template", "Words", "example_heatmap"]
