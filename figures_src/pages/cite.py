"""Cite and reuse (docs/cite.md): every worked example with its permalink and its data, and the site's BibTeX."""
import importlib

import attention

from .. import registry, trained
from ..engine import Figure, Snippets, Words, embed
from ..engine.examples import permalink
from ..engine.notebooks import ZIP, NotebookItem
from ..engine.site import language_url, nav_title, site_url
from ..engine.text import published_note, table
from ..engine.words import listed

WORDS = Words("words/cite.md")


def cite_data():
    """Every example with a cite line of its own (the real model's are listed on their page), from the pages' declarations."""
    figures = [(item, page.markdown) for page in registry.nav() if page.has_module
               for item in importlib.import_module(page.module).ITEMS if isinstance(item, Figure)]
    notebooks = [(item, nav_title(page.title)) for page in registry.nav() if page.has_module
                 for item in importlib.import_module(page.module).ITEMS if isinstance(item, NotebookItem)]
    return {"examples": [example for example in registry.examples() if example.cite_line], "site_url": site_url(),
            "version": attention.__version__, "figures": figures, "trained": trained.provenance(),
            "notebooks": notebooks}


def cite_snippets(data):
    rows = []
    for example in data["examples"]:
        example_id = example.id
        rows.append([f"[`{example_id}`]({example.markdown}#{example_id}): {example.title}",
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
    columns = [WORDS.line("cite-table/example-column"), WORDS.line("cite-table/permalink-column")]
    return {"bibtex": bibtex, "": table(columns, rows, align=["---", "---"]),
            "figures": figure_index(data), "embed": embed_code(data), "precision": f"> {published_note()}",
            "training": training_provenance(data["trained"]), "notebooks": notebook_index(data["notebooks"])}


def notebook_index(notebooks):
    """The zip of every notebook, then each page's notebook in navigation order. The zip is made by the post-build
    pass (finish/published.py), after the engines have checked and rewritten the links, so its link gets its
    address there too (`data-aih-zip`): either engine would take a relative address in HTML for one to rewrite."""
    rows = [[f"[{title}]({item.page})", f"[{item.path.rsplit('/', 1)[1]}]({item.path}){{ download }}"]
            for item, title in notebooks]
    columns = [WORDS.line("cite-notebooks/page-column"), WORDS.line("cite-notebooks/notebook-column")]
    return (WORDS.fill("cite-notebooks", file=ZIP.rsplit("/", 1)[1], count=len(notebooks)) + "\n\n"
            + table(columns, rows, align=["---", "---"]))


def embed_code(data):
    """The <iframe> of the demo's example, as a code block to copy."""
    url = f"{language_url()}embed/ex-demo/"
    return f"```html\n{embed.snippet('ex-demo', url)}\n```\n"


def figure_index(data):
    """Every figure of the site, in navigation order: its thumbnail, its permalink and its downloads."""
    rows = []
    for number, (figure, page) in enumerate(data["figures"], 1):
        name = figure.name
        link = f"{page}#fig-{name}"
        thumbnail = (f'[![{WORDS.line("cite-table-figures/thumbnail-alt", name=name)}](figures/{name}.thumb.png)'
                     f'{{ loading=lazy width=160 }}]({link})')
        downloads = " · ".join(f"[{label}](figures/{name}.{ext})" for ext, label in
                               (("svg", "SVG"), ("png", "PNG"), ("csv", "CSV"), ("bib", "BibTeX")))
        rows.append([thumbnail, f"[`{name}`]({link}): {figure.title}", downloads])
    columns = [WORDS.line("cite-table-figures/thumbnail-column"), WORDS.line("cite-table-figures/figure-column"),
               WORDS.line("cite-table-figures/downloads-column")]
    return table(columns, rows, align=["---", "---", "---"])


def training_provenance(meta):
    """Where and how `make train` trained the runs data/trained/ holds, from its provenance.json."""
    threads = (WORDS.line("cite-table-training/one-thread") if meta["blas_threads"] == 1 else
               WORDS.line("cite-table-training/threads", threads=meta["blas_threads"]))
    blas = listed([WORDS.line("cite-table-training/blas", library=library(b), architecture=b["architecture"],
                                        threads=threads) for b in meta["blas"]])
    return WORDS.fill("cite-table-training", command=meta["command"], date=meta["date"], python=meta["python"],
                      numpy=meta["numpy"], blas=blas, cpu=meta["cpu"], machine=meta["machine"]) + "\n"

def library(blas):
    """threadpoolctl's name and version of a BLAS, as a reader knows it: numpy's wheels carry OpenBLAS as the
    scipy-openblas package, whose version is OpenBLAS's followed by its own build number."""
    if blas["internal_api"] != "openblas":
        return f"{blas['internal_api']} {blas['version']}"
    release = ".".join(blas["version"].split(".")[:3])
    return f"OpenBLAS {release}" + (f" (scipy-openblas {blas['version']})" if release != blas["version"] else "")


ITEMS = [Snippets("cite-table", data=cite_data, snippets=cite_snippets)]
