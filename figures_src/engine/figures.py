"""Drawing one figure: matplotlib in a fresh style -> clean inline SVG -> a <figure> fragment with its
caption and its numbers as a table (its names below).

Heatmap figures, what the interactive layer addresses:

- The fragment is `<figure class="aih-figure aih-heatmap" id="fig-<name>" data-example="<id>" data-quantity="scaled_scores|weights|scores" [data-head="h"]>`.
- Keys on x, queries on y, everywhere. Query i is row i (top row is 0); key j is column j.
- Every cell is its own SVG element with `id="<name>-cell-<i>-<j>"`; its printed number is a `<text>` inside
  an element with `id="<name>-value-<i>-<j>"`. All other ids in the SVG are prefixed with `<name>-`.
- Scores use a diverging colormap centred at 0; weights a sequential one (see `figures_src/engine/heatmap.py`).
- The interactive layer (`docs/widgets/heatmap/heatmap.js`) enhances every such figure that has `data-example` and
  `data-quantity`, from `examples/<id>.json`; neighbouring figures of one example become one heatmap. To show
  another example or head in a figure, set its `data-example` / `data-head` and call `enhance(figure)`
  (`import { enhance } from "../heatmap/heatmap.js"`). Its words are in its template,
  `docs/widgets/heatmap/template.html`, which the post-build pass puts into every page (`finish/widgets.py`).

Generated names:

- `generated/figures/<name>.html`: the placeholder a page includes, `<div class="aih-figure-slot" id="fig-<name>">`;
  the site's post-build pass (finish/figures.py) puts the figure there.
- `generated/fragments/<name>.html`: `<figure class="aih-figure[ aih-heatmap]" id="fig-<name>" ...>` holding
  `<div class="aih-figure__graphic"><svg id="<name>-svg" class="aih-svg" role="img" aria-labelledby=...>`,
  a `<figcaption>`, then `<details class="aih-data">` with one `<table class="aih-numbers" id="<name>-table">`
  per heatmap (`<name>-table-<k>` when there are several). An embed's table, open, starts with a collapsed
  `<tr class="aih-sizer" aria-hidden="true">` (`_sizer_row`): header cells have `scope="col"`, row labels
  `scope="row"`.
- The fragment's `<details class="aih-download">` (after the `<figcaption>`) links the figure's downloads from
  the site root (`figures/<name>.svg`, ...); finish/figures.py makes them relative to the page.
- `generated/snippets/<id>-cite.md`: the cite line of worked example `<id>`. It carries the anchor
  `id="<id>"`: include it where the example starts, once, on the page the example declares.
"""
import base64
import functools
import inspect
import io
import json
import re
from html import escape

import numpy as np

from . import downloads
from . import svg as svg_cleanup
from .errors import BuildError
from .finite import check_tree
from .heatmap import DrawnHeatmap
from .items import Example, Figure
from .site import DEFAULT_LANGUAGE, language, page_path, site_url
from .style import rc_params, readable_on_phones
from .text import Shown
from .text import cell as cell_number
from .text import num, rounding_note, tie_note, typeset
from .words import SITE_WORDS as WORDS

# What a heatmap of each quantity shows, as its alt text and its table name it (words/site.md)
QUANTITY_WORDS = {"scores": "quantity-scores", "scaled_scores": "quantity-scaled-scores", "weights": "quantity-weights"}


def draw(figure, data, exports=None):
    """-> (raw matplotlib SVG, [DrawnHeatmap]) for a Figure declaration and its data; given a dict `exports`,
    also adds its standalone SVG and PNG to it (engine/downloads.py)."""
    import matplotlib as mpl  # noqa: PLC0415
    from matplotlib.figure import Figure as MplFigure  # noqa: PLC0415

    name = figure.name
    params = list(inspect.signature(figure.render).parameters)
    if len(params) != 2 or params[1] not in ("ax", "fig"):
        raise BuildError(f"figure {name}: render must be render(data, ax) or render(data, fig), got {params}")
    size = figure.size(data) if callable(figure.size) else figure.size
    with mpl.rc_context():
        mpl.rcdefaults()
        mpl.rcParams.update(rc_params(name))
        fig = MplFigure(figsize=size, layout="constrained")
        drawn = figure.render(data, fig.add_subplot() if params[1] == "ax" else fig)
        readable_on_phones(fig)
        # Constrained layout places a fixed-aspect axes with a colour bar from where it stood before: from matplotlib's
        # defaults, one pass left the heatmap's "queries" label 6 pt past the figure's left edge (cut off in the page's
        # SVG and in the downloads, which keep this layout). A second pass, from the first one's places, settles it.
        fig.draw_without_rendering()
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None}, transparent=True)
        for _ in range(2):  # a label that changed width (a Chinese "查询" for "queries") may need a pass or two more
            if _reach_past_edge(fig) <= EDGE_TOLERANCE:
                break
            buffer = io.StringIO()
            fig.savefig(buffer, format="svg", metadata={"Date": None}, transparent=True)
        _check_text_inside(fig, name)
        if exports is not None:
            exports.update(downloads.standalone_files(fig, name))
    heatmaps = [] if drawn is None else [drawn] if isinstance(drawn, DrawnHeatmap) else list(drawn)
    if not all(isinstance(h, DrawnHeatmap) for h in heatmaps):
        raise BuildError(f"figure {name}: render must return what heatmap() returned (or nothing), got {drawn!r}")
    return buffer.getvalue(), heatmaps


EDGE_TOLERANCE = 0.01  # points


def _past(fig, box):
    """How far `box` (display units) reaches out of `fig`, in points (at most 0 when inside)."""
    frame = fig.bbox
    return max(frame.x0 - box.x0, box.x1 - frame.x1, frame.y0 - box.y0, box.y1 - frame.y1) * 72 / fig.dpi


def _reach_past_edge(fig):
    """How far anything `fig` draws for its layout reaches past its edges, in points."""
    return _past(fig, fig.get_tightbbox().transformed(fig.dpi_scale_trans))


def _check_text_inside(fig, name):
    """BuildError when anything the figure draws for its layout (axis labels, tick labels, titles, colour bars)
    reaches past its edges by more than a hundredth of a point: the page's SVG and the downloaded SVG and PNG, all
    of the figure's size, would cut it off. The message names the texts that do."""
    from matplotlib.text import Text  # noqa: PLC0415

    if _reach_past_edge(fig) <= EDGE_TOLERANCE:
        return
    past = functools.partial(_past, fig)
    texts = [text for text in fig.findobj(Text) if text.get_text() and text.get_visible() and text.get_in_layout()]
    outside = [f"“{text.get_text()}” by {reach:.1f} pt" for text in texts
               if (reach := past(text.get_window_extent())) > EDGE_TOLERANCE]
    raise BuildError(f"figure {name}: it draws past its own edge, where the SVG and PNG cut it off: "
                     + (", ".join(outside) or "not a text"))


def render_figure(figure, data, page=None):
    """{path: content}: the <figure> fragment of a Figure declaration, drawn from its data, with its downloads
    (engine/downloads.py). `page`: the Markdown page that shows it, for its permalink."""
    name = figure.name
    files = {}
    raw_svg, heatmaps = draw(figure, data, files)
    description = figure.alt(data) if figure.alt else _heatmap_alt(name, heatmaps)
    svg = svg_cleanup.clean_svg(raw_svg, name, figure.title, description)
    _check_heatmap_cells(name, svg, heatmaps)  # first: a heatmap render forgot to return is the likelier slip
    if not description:
        raise BuildError(f"figure {name}: " + ("its alt(data) is empty: say what the figure shows" if figure.alt else
                                               "it draws no heatmap, so declare alt(data) describing what it shows"))
    caption = figure.caption(data) if callable(figure.caption) else figure.caption
    if not caption:
        raise BuildError(f"figure {name}: declare a caption to say what the figure shows")
    note = next((note for hm in heatmaps if (note := tie_note(hm.values))), "")
    if note:  # why one cell has a decimal more than its neighbours
        caption = WORDS.line("caption-with-note", caption=caption, note=note)
    rounded = next((note for hm in heatmaps if hm.quantity == "weights" and (note := rounding_note(hm.values, hm.row_labels, figure.values))), "")
    if rounded:  # why a row of weights does not print as 1.00
        caption = WORDS.line("caption-with-note", caption=caption, note=rounded)
    tables = _tables(figure, data, heatmaps)
    example = figure.example(data) if callable(figure.example) else figure.example
    if example is not None and not isinstance(example, Example):
        raise BuildError(f"figure {name}: its example must be an Example declaration, got {example!r}")
    permalink = f"{site_url()}{page_path(page) if page else ''}#fig-{name}"
    files[f"figures/{name}.csv"] = downloads.csv_text(tables)
    files[f"figures/{name}.bib"] = downloads.bibtex(name, figure.title, permalink, _version())
    menu = downloads.menu_html(name, example.id if example is not None else None)
    # The worked example's JSON is the one both languages cite, in English: a figure in another language carries
    # its example's leading-axis words (checkpoint names, captions) for the interactive layer (heatmap.js) to show.
    axis = data.get("leading_axis") if isinstance(data, dict) and language() != DEFAULT_LANGUAGE else None
    html = _figure_html(name, example, svg, caption, tables, heatmaps, menu, figure.controls, leading_axis=axis)
    slot = f'<div class="aih-figure-slot" id="fig-{name}"></div>\n'  # the page includes it; finish/figures.py fills it
    return ({f"figures/{name}.html": slot, f"fragments/{name}.html": html}
            | {f"public/{path}": content for path, content in files.items()})


def example_weights_figure(example_declaration, example, name, caption):
    """The <figure> fragment of an example's attention weights, drawn as the reading pages draw a heatmap, with
    its table (open) and without the Download menu: the static figure of the example's embed page
    (engine/embed.py), which the interactive heatmap enhances. Its caption comes first, so that the heatmap,
    once drawn, takes the place of the figure and the table below the caption and moves nothing above it. A leading axis (heads, a batch, checkpoints) shows its first grid,
    as the interactive heatmap first does; a grid past 12 tokens is one pixel per cell (the table has them)."""
    import numpy as np  # noqa: PLC0415

    from .heatmap import heatmap  # noqa: PLC0415
    from .style import PHONE_WIDTH  # noqa: PLC0415

    weights = np.asarray(example["steps"]["weights"], dtype=float)
    lead = weights.ndim == 3
    tokens = example["batch_tokens"][0] if "batch_tokens" in example else example["tokens"]
    head = 0 if "n_heads" in example else None

    as_image = len(tokens) > 12

    def render(data, ax):
        # printed numbers make the colour bar redundant past five tokens (as example_heatmap); an image prints none
        drawn = heatmap(ax, weights[0] if lead else weights, tokens, tokens, quantity="weights", head=head,
                        colorbar=len(tokens) <= 5 or as_image, as_image=as_image)
        if as_image:
            ax.tick_params(axis="x", labelrotation=90)  # one key per column, too narrow for a word across
        return drawn

    size = (PHONE_WIDTH, (1.05 if as_image else 0.9) * PHONE_WIDTH)
    figure = Figure(name, example["title"], lambda: example, render, caption, size=size)
    raw_svg, heatmaps = draw(figure, example)
    svg = svg_cleanup.clean_svg(raw_svg, name, figure.title, _heatmap_alt(name, heatmaps))
    _check_heatmap_cells(name, svg, heatmaps)
    axis = example.get("leading_axis") if language() != DEFAULT_LANGUAGE else None  # render_figure says why
    return _figure_html(name, example_declaration, svg, caption, _tables(figure, example, heatmaps), heatmaps,
                        caption_first=True, leading_axis=axis)


def _version():
    import attention  # noqa: PLC0415

    return attention.__version__


_CELL_ID = re.compile(r"(.+)-cell-(\d+)-(\d+)")
_VALUE_ID = re.compile(r"(.+)-value-(\d+)-(\d+)")
_SVG_IMAGE = "{http://www.w3.org/2000/svg}image"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"


def _check_heatmap_cells(name, svg, heatmaps):
    """The published SVG (cleaned, its ids prefixed) holds exactly the heatmaps render returned, whole: for each,
    a cell `<prefix>-cell-<i>-<j>` for every query i and key j, and its printed numbers for all of them or none,
    none empty; or, drawn as_image, one image `<prefix>-cells` as many pixels wide as keys and high as queries.
    No cell, printed number or image belongs to a heatmap render did not return."""
    import xml.etree.ElementTree as ET  # noqa: PLC0415

    import PIL.Image  # noqa: PLC0415  (matplotlib's own dependency)

    cells, values, images = {}, {}, {}
    for element in ET.fromstring(svg).iter():
        id_ = element.get("id") or ""
        if match := _CELL_ID.fullmatch(id_):
            cells.setdefault(match[1], set()).add((int(match[2]), int(match[3])))
        elif match := _VALUE_ID.fullmatch(id_):
            values.setdefault(match[1], []).append("".join(element.itertext()).strip())
        elif element.tag == _SVG_IMAGE and id_.endswith("-cells"):
            images[id_.removesuffix("-cells")] = element
    returned = {hm.name(name): hm for hm in heatmaps}
    for prefix in sorted((cells.keys() | values.keys() | images.keys()) - returned.keys()):
        raise BuildError(f"figure {name}: render drew heatmap cells or numbers ({prefix}) but did not return that "
                         "heatmap; return what heatmap() returns")
    for prefix, hm in returned.items():
        n_q, n_k = hm.values.shape
        if hm.image:
            image = images.get(prefix)
            if image is None or prefix in cells or prefix in values:
                raise BuildError(f"figure {name}: heatmap {prefix} was drawn as an image, and the SVG has " + (
                    "no image of its cells" if image is None else "its cells or their numbers one by one as well"))
            head, _, data = (image.get(_XLINK_HREF) or image.get("href") or "").partition(",")
            try:
                if head != "data:image/png;base64":
                    raise ValueError(head)
                png = base64.b64decode("".join(data.split()), validate=True)  # spaces, as a browser ignores them
                size = PIL.Image.open(io.BytesIO(png), formats=["PNG"]).size
            except (ValueError, OSError) as error:  # binascii.Error is a ValueError; PIL's UnidentifiedImageError an OSError
                raise BuildError(f"figure {name}: heatmap {prefix}'s image is not a PNG written into the SVG "
                                 "(data:image/png;base64,…)") from error
            if size != (n_k, n_q):
                raise BuildError(f"figure {name}: heatmap {prefix}'s image is {size[0]}×{size[1]} pixels, expected "
                                 f"{n_k}×{n_q} (a pixel a cell: keys across, queries down)")
            continue
        grid = {(i, j) for i in range(n_q) for j in range(n_k)}
        drawn = cells.get(prefix, set())
        if drawn != grid:
            wrong = sorted(grid - drawn)[:1] or sorted(drawn - grid)[:1]
            raise BuildError(f"figure {name}: heatmap {prefix} has {len(drawn)} cells in the SVG, expected "
                             f"{n_q}×{n_k} (cell {wrong[0]} is {'missing' if wrong[0] in grid else 'extra'})")
        printed = values.get(prefix, [])
        if len(printed) not in (0, n_q * n_k) or not all(printed):
            raise BuildError(f"figure {name}: heatmap {prefix} prints {sum(map(bool, printed))} numbers in its "
                             f"{n_q}×{n_k} cells: all or none")


def _heatmap_alt(name, heatmaps):
    """The SVG's description of the heatmaps drawn: "" if there are none."""
    parts = []
    for hm in heatmaps:
        finite = hm.values[np.isfinite(hm.values)]
        span = (WORDS.line("heatmap-alt/span", low=num(finite.min()), high=num(finite.max())) if finite.size
                else WORDS.line("heatmap-alt/all-masked"))
        shape = {"quantity": WORDS.line(QUANTITY_WORDS[hm.quantity]), "queries": len(hm.row_labels),
                 "query_labels": ", ".join(map(str, hm.row_labels)), "keys": len(hm.col_labels), "span": span}
        parts.append(WORDS.line("heatmap-alt", **shape) if hm.head is None else
                     WORDS.line("heatmap-alt/head", head=hm.head + 1, **shape))
    return " ".join(parts) + " " + WORDS.line("heatmap-alt/table") if parts else ""


def _tables(figure, data, heatmaps):
    """[(caption, columns, rows)]: the declared table(data) if there is one, else one per heatmap."""
    name = figure.name
    if figure.table:
        result = figure.table(data)
        tables = result if isinstance(result, list) else [result]
        out = []
        for t in tables:
            if not {"caption", "columns", "rows"} <= set(t):
                raise BuildError(f"figure {name}: table(data) must return dicts with caption, columns, rows")
            for r, row in enumerate(t["rows"]):
                if len(row) != len(t["columns"]):
                    raise BuildError(f"figure {name}: a table row has {len(row)} cells for {len(t['columns'])} columns")
                for c, value in enumerate(row):
                    check_tree(value, f"figure {name}: table {t['caption']!r}, row {r}, column {c}")
            out.append((t["caption"], t["columns"], t["rows"]))
        return out
    if not heatmaps:
        raise BuildError(f"figure {name}: it draws no heatmap, so declare table(data) with its numbers")
    return [
        (
            _sentence_case(WORDS.line(QUANTITY_WORDS[hm.quantity])) if hm.head is None else
            WORDS.line("heatmap-table-caption", quantity=_sentence_case(WORDS.line(QUANTITY_WORDS[hm.quantity])),
                       head=hm.head + 1),
            [WORDS.line("heatmap-table-corner")] + hm.col_labels,
            [[label, *row] for label, row in zip(hm.row_labels, hm.values)],
        )
        for hm in heatmaps
    ]


def _sentence_case(text):
    return text[:1].upper() + text[1:]


def _cell(value):
    if isinstance(value, Shown):
        return typeset(value.text)
    if isinstance(value, (float, np.floating, bool, np.bool_)):
        return cell_number(value)
    return typeset(str(value))


def _sizer_row(rows):
    """An open table (an embed page's) is laid out while the page is still arriving: a later row with a wider
    cell would widen its column and move every column after it (a layout shift, seen at a phone's width on a
    loaded machine). This row, the table's first, collapsed (embed.css: `visibility: collapse`), holds each
    column's widest content before any of it is shown: every row label, one under another, and each shape of the
    column's numbers (digits as 0: the table sets tabular figures, so every digit is as wide). It takes no space,
    is not painted and is not read out, but counts in the columns' widths."""
    if not rows:
        return ""
    labels, *columns = zip(*rows)
    cells = [dict.fromkeys(re.sub("[0-9]", "0", _cell(v)) if isinstance(v, (float, np.floating, Shown)) else _cell(v)
                           for v in column) for column in columns]
    return ('<tr class="aih-sizer" aria-hidden="true"><th>' + "<br>".join(dict.fromkeys(map(_cell, labels))) + "</th>"
            + "".join(f"<td>{'<br>'.join(shapes)}</td>" for shapes in cells) + "</tr>")


def _figure_html(name, example, svg, caption, tables, heatmaps, menu="", controls=None, caption_first=False,
                 leading_axis=None):
    classes = "aih-figure aih-heatmap" if heatmaps else "aih-figure"
    attrs = [f'class="{classes}"', f'id="fig-{name}"']
    if example is not None:
        attrs.append(f'data-example="{escape(example.id)}"')
    if leading_axis is not None:
        attrs.append(f'data-leading-axis="{escape(json.dumps(leading_axis, ensure_ascii=False))}"')
    quantities = {hm.quantity for hm in heatmaps}
    if len(quantities) == 1:
        attrs.append(f'data-quantity="{quantities.pop()}"')
    heads = {hm.head for hm in heatmaps}
    if len(heads) == 1 and (head := heads.pop()) is not None:
        attrs.append(f'data-head="{head}"')
    if controls is not None:
        attrs.append(f'data-controls="{" ".join(controls)}"')
    figcaption = f"<figcaption>{typeset(caption)}</figcaption>"
    # Below its natural width a figure scrolls sideways (site.css), in a narrow column or a zoomed window: a
    # keyboard must be able to reach it to scroll it, named by the figure's title (axe: scrollable-region-focusable).
    graphic = f'<div class="aih-figure__graphic" tabindex="0" role="group" aria-labelledby="{name}-title">'
    lines = [f"<figure {' '.join(attrs)}>"] + ([figcaption] if caption_first else []) + [graphic]
    lines += [line for line in svg.splitlines() if line.strip()]
    lines += ["</div>"] + ([] if caption_first else [figcaption]) + ([menu] if menu else [])
    lines.append(f'<details class="aih-data"{" open" if caption_first else ""}><summary>'
                 + WORDS.line("figure-numbers-summary") + "</summary>")
    for k, (table_caption, columns, rows) in enumerate(tables):
        table_id = f"{name}-table" if len(tables) == 1 else f"{name}-table-{k}"
        lines.append(f'<div class="aih-table-scroll"><table class="aih-numbers" id="{table_id}"><caption>{typeset(table_caption)}</caption>')
        lines.append("<thead>" + (_sizer_row(rows) if caption_first else "")  # open: shown as the page arrives
                     + "<tr>" + "".join(f'<th scope="col">{_cell(c)}</th>' for c in columns) + "</tr></thead>")
        lines.append("<tbody>")
        for row in rows:
            head, *rest = row
            lines.append(f'<tr><th scope="row">{_cell(head)}</th>' + "".join(f"<td>{_cell(v)}</td>" for v in rest) + "</tr>")
        lines.append("</tbody></table></div>")
        # a cell with 3 decimals says why under its table, as a heatmap's caption does (tie_note)
        if note := tie_note([v for row in rows for v in row[1:] if isinstance(v, (float, np.floating))]):
            lines.append(f'<p class="aih-table-note">{typeset(note)}</p>')
    lines += ["</details>", "</figure>"]
    return "\n".join(lines) + "\n"
