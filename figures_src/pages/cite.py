"""Cite and reuse (docs/cite.md): every worked example with its permalink and its data, and the site's BibTeX."""
import attention

from .. import registry
from ..engine import Snippets
from ..engine.examples import permalink
from ..engine.site import site_url
from ..engine.text import table

PAGE = "cite.md"


def cite_data():
    """Every example with a cite line of its own (the real model's are listed on their page), from the pages' declarations."""
    return {"examples": [example for example in registry.examples() if example.cite_line], "site_url": site_url(),
            "version": attention.__version__}


def cite_snippets(data):
    rows = []
    for example in data["examples"]:
        example_id = example.id
        rows.append([f"[`{example_id}`]({example.page}#{example_id}): {example.title}",
                     f"<{permalink(example)}><br>[{example_id}.json](examples/{example_id}.json)"])
    bibtex = (
        "```bibtex\n"
        "@misc{attention_is_a_heatmap,\n"
        "  title        = {Attention Is a Heatmap},\n"
        "  author       = {{Attention Is a Heatmap contributors}},\n"
        f"  howpublished = {{\\url{{{data['site_url']}}}}},\n"
        f"  note         = {{attention library {data['version']}}}\n"
        "}\n"
        "```\n"
    )
    return {"bibtex": bibtex, "": table(["example", "permalink and data"], rows, align=["---", "---"])}


ITEMS = [Snippets("cite-table", data=cite_data, snippets=cite_snippets)]
