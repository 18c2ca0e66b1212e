"""Drawing one figure: matplotlib in a fresh style -> clean inline SVG -> a <figure> fragment with its
caption and its numbers as a table (CONTRIBUTING.md, "Generated names")."""
import inspect
import io
import re
from collections import Counter
from html import escape

import numpy as np

from . import svg as svg_cleanup
from .errors import BuildError
from .finite import check_finite
from .heatmap import QUANTITIES, DrawnHeatmap
from .items import Example
from .style import rc_params
from .text import num


def draw(figure, data):
    """-> (raw matplotlib SVG, [DrawnHeatmap]) for a Figure declaration and its data."""
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
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None}, transparent=True)
    heatmaps = [] if drawn is None else [drawn] if isinstance(drawn, DrawnHeatmap) else list(drawn)
    if not all(isinstance(h, DrawnHeatmap) for h in heatmaps):
        raise BuildError(f"figure {name}: render must return what heatmap() returned (or nothing), got {drawn!r}")
    return buffer.getvalue(), heatmaps


def render_figure(figure, data):
    """The <figure> fragment of a Figure declaration, drawn from its data."""
    name = figure.name
    raw_svg, heatmaps = draw(figure, data)
    _check_heatmap_cells(name, raw_svg, heatmaps)
    description = figure.alt(data) if figure.alt else _heatmap_alt(name, heatmaps)
    svg = svg_cleanup.clean_svg(raw_svg, name, figure.title, description)
    caption = figure.caption(data) if callable(figure.caption) else figure.caption
    if not caption:
        raise BuildError(f"figure {name}: declare a caption to say what the figure shows")
    tables = _tables(figure, data, heatmaps)
    example = figure.example(data) if callable(figure.example) else figure.example
    if example is not None and not isinstance(example, Example):
        raise BuildError(f"figure {name}: its example must be an Example declaration, got {example!r}")
    return _figure_html(name, example, svg, caption, tables, heatmaps, figure.controls)


_CELL_ID = re.compile(r'id="(?:([A-Za-z0-9]+)-)?cell-\d+-\d+"')


def _check_heatmap_cells(name, svg, heatmaps):
    """Every heatmap render returned has one cell per value in the SVG, and no cell belongs to one it did not return."""
    cells = Counter(_CELL_ID.findall(svg))  # panel ("" for a figure's only heatmap) -> cells drawn
    returned = {hm.panel or "": hm for hm in heatmaps}
    for panel in cells.keys() - returned.keys():
        raise BuildError(f"figure {name}: render drew heatmap cells ({panel or 'no panel'}) but did not return "
                         "that heatmap; return what heatmap() returns")
    for panel, hm in returned.items():
        n_q, n_k = hm.values.shape
        if cells[panel] != n_q * n_k:
            raise BuildError(f"figure {name}: heatmap {hm.name(name)} has {cells[panel]} cells in the SVG, expected {n_q}×{n_k}")


def _heatmap_alt(name, heatmaps):
    if not heatmaps:
        raise BuildError(f"figure {name}: it draws no heatmap, so declare alt(data) describing what it shows")
    parts = []
    for hm in heatmaps:
        finite = hm.values[np.isfinite(hm.values)]
        span = f"values from {num(finite.min())} to {num(finite.max())}" if finite.size else "all masked"
        head = f" of head {hm.head + 1}" if hm.head is not None else ""
        parts.append(
            f"Heatmap of the {QUANTITIES[hm.quantity]}{head}: {len(hm.row_labels)} queries "
            f"({', '.join(map(str, hm.row_labels))}) by {len(hm.col_labels)} keys; {span}."
        )
    return " ".join(parts) + " The table after the figure lists every value."


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
                numbers = [v if isinstance(v, (float, np.floating)) else 0.0 for v in row]
                check_finite(np.array([numbers]), f"figure {name}: table {t['caption']!r}, row {r}", None)
            out.append((t["caption"], t["columns"], t["rows"]))
        return out
    if not heatmaps:
        raise BuildError(f"figure {name}: it draws no heatmap, so declare table(data) with its numbers")
    return [
        (
            _sentence_case(QUANTITIES[hm.quantity]) + (f", head {hm.head + 1}" if hm.head is not None else ""),
            ["query \\ key"] + hm.col_labels,
            [[label, *row] for label, row in zip(hm.row_labels, hm.values)],
        )
        for hm in heatmaps
    ]


def _sentence_case(text):
    return text[:1].upper() + text[1:]


def _cell(value):
    if isinstance(value, (float, np.floating, bool, np.bool_)):
        return num(value)
    return escape(str(value))


def _figure_html(name, example, svg, caption, tables, heatmaps, controls=None):
    classes = "aih-figure aih-heatmap" if heatmaps else "aih-figure"
    attrs = [f'class="{classes}"', f'id="fig-{name}"']
    if example is not None:
        attrs.append(f'data-example="{escape(example.id)}"')
    quantities = {hm.quantity for hm in heatmaps}
    if len(quantities) == 1:
        attrs.append(f'data-quantity="{quantities.pop()}"')
    heads = {hm.head for hm in heatmaps}
    if len(heads) == 1 and (head := heads.pop()) is not None:
        attrs.append(f'data-head="{head}"')
    if controls is not None:
        attrs.append(f'data-controls="{" ".join(controls)}"')
    lines = [f"<figure {' '.join(attrs)}>", '<div class="aih-figure__graphic">']
    lines += [line for line in svg.splitlines() if line.strip()]
    lines += ["</div>", f"<figcaption>{escape(caption)}</figcaption>"]
    lines.append('<details class="aih-data"><summary>The numbers as a table</summary>')
    for k, (table_caption, columns, rows) in enumerate(tables):
        table_id = f"{name}-table" if len(tables) == 1 else f"{name}-table-{k}"
        lines.append(f'<div class="aih-table-scroll"><table class="aih-numbers" id="{table_id}"><caption>{escape(table_caption)}</caption>')
        lines.append("<thead><tr>" + "".join(f'<th scope="col">{escape(str(c))}</th>' for c in columns) + "</tr></thead>")
        lines.append("<tbody>")
        for row in rows:
            head, *rest = row
            lines.append(f'<tr><th scope="row">{_cell(head)}</th>' + "".join(f"<td>{_cell(v)}</td>" for v in rest) + "</tr>")
        lines.append("</tbody></table></div>")
    lines += ["</details>", "</figure>"]
    return "\n".join(lines) + "\n"
