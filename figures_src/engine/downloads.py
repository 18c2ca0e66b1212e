"""What a reader can take away from a figure: its files under figures/ and the small menu that links them.

Every figure `<name>` publishes, beside the inline SVG of its page (figures_src/engine/figures.py, "Generated names"):

- `figures/<name>.svg`: standalone, in the light scheme (black ink on white), text drawn as paths so no font
  is needed to open it (Inkscape, a browser, a slide), nothing referenced outside the file;
- `figures/<name>.png`: drawn by matplotlib at twice the size the page shows it (PNG_DPI); and a thumbnail,
  `figures/<name>.thumb.png`, for the Cite page's figure index;
- `figures/<name>.csv`: the numbers of its table with their row and column labels, each column rounded to 10
  significant digits of its largest entry (text.published);
- `figures/<name>.bib`: a BibTeX entry naming the site, the figure, its permalink and the library's version;
- and, for a figure of a worked example, the example's `examples/<id>.json`, written by the example itself.

The menu is one <details> of plain links, in the figure's caption area: it needs no script and adds a handful
of elements. Its links are relative to the site root; finish/figures.py makes them relative to the page.
"""
import csv
import io
import math
import re
from html import escape

import numpy as np

from .text import Shown, published
from .words import SITE_WORDS as WORDS

# matplotlib's SVG is sized in points (72 per inch), which a browser shows at 96 CSS px per inch: 2× is 192 dpi.
PNG_DPI = 192
THUMBNAIL_DPI = 40  # the Cite page's figure index: a 5-inch figure is 200 px wide
FORMATS = ("svg", "png", "csv", "bib")


def standalone_files(fig, name):
    """{"figures/<name>.svg": bytes, "figures/<name>.png": bytes} from a drawn matplotlib figure (the caller's
    rc_context still holds the figure's style). The page's copy keeps text as text; this one embeds the glyphs."""
    import matplotlib as mpl  # noqa: PLC0415
    from PIL import Image  # noqa: PLC0415

    fig.set_layout_engine("none")  # laid out by the page's SVG already: the downloads keep that layout, and its cost
    files = {}
    with mpl.rc_context({"svg.fonttype": "path"}):
        buffer = io.BytesIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None}, facecolor="white", transparent=False)
        files[f"figures/{name}.svg"] = _self_contained(buffer.getvalue())
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=PNG_DPI, metadata={"Software": None}, facecolor="white", transparent=False)
    files[f"figures/{name}.png"] = buffer.getvalue()
    image = Image.open(io.BytesIO(files[f"figures/{name}.png"]))
    scale = THUMBNAIL_DPI / PNG_DPI
    thumbnail = image.convert("RGB").resize((round(image.width * scale), round(image.height * scale)),
                                            Image.Resampling.LANCZOS).quantize(64)  # 64 colours: a few KB
    buffer = io.BytesIO()
    thumbnail.save(buffer, format="png", optimize=True)
    files[f"figures/{name}.thumb.png"] = buffer.getvalue()
    return files


def _self_contained(svg):
    """Without the DOCTYPE (a reference to the W3C's DTD) and the RDF metadata (links to vocabularies)."""
    text = svg.decode("utf-8")
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.S)
    return text.encode("utf-8")


def _csv_value(cell):
    return cell.value if isinstance(cell, Shown) else cell  # printed one way on the page, its value written here


def _csv_cell(value):
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return "-inf" if value == -math.inf else repr(value)  # a masked score is -inf
    return str(value)


def csv_text(tables):
    """The figure's tables [(caption, columns, rows)] as CSV: a header row of column labels, then one row per
    table row, its label first. A figure with several tables writes each after a one-cell row naming it,
    separated by an empty line."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for k, (caption, columns, rows) in enumerate(tables):
        if len(tables) > 1:
            if k:
                writer.writerow([])
            writer.writerow([caption])
        writer.writerow([_csv_cell(published(_csv_value(c))) for c in columns])
        # each column is one quantity, rounded as one array (text.published)
        by_column = [published([_csv_value(v) for v in column]) for column in zip(*rows, strict=True)]
        writer.writerows([_csv_cell(v) for v in row] for row in zip(*by_column))
    return buffer.getvalue()


def bibtex(name, title, permalink, version):
    """A BibTeX entry for figure `name`."""
    def braces(text):  # BibTeX groups by braces: keep the title's own out of the way
        return text.replace("{", "(").replace("}", ")")

    return (
        f"@misc{{attention_is_a_heatmap_{name.replace('-', '_')},\n"
        f"  title        = {{Attention Is a Heatmap, figure {name}: {braces(title)}}},\n"
        "  author       = {{Attention Is a Heatmap contributors}},\n"
        f"  howpublished = {{\\url{{{permalink}}}}},\n"
        f"  note         = {{attention library {version}; CC BY 4.0}}\n"
        "}\n"
    )


def menu_html(name, example_id=None):
    """The figure's Download menu: one <details> of links, relative to the site root."""
    links = [f'<a href="figures/{name}.{ext}" download>{label}</a>'  # the formats' names, the same in every language
             for ext, label in (("svg", "SVG"), ("png", "PNG"), ("csv", "CSV"))]
    if example_id:
        links.append(f'<a href="examples/{escape(example_id)}.json" download>JSON</a>')
    links.append(f'<a href="figures/{name}.bib" download>BibTeX</a>')
    summary = WORDS.line("figure-download-summary")
    return f'<details class="aih-download" data-search-exclude><summary>{summary}</summary>{" · ".join(links)}</details>'
