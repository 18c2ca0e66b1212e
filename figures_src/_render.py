"""Rendering one registry item: figures (SVG + <figure> fragment), worked examples, snippets, downloads.

Imported by figures_src.build only when an item must be rebuilt, so a no-change build never pays for
numpy and matplotlib.
"""
import importlib
import inspect
import io
import json
from html import escape
from pathlib import Path

import numpy as np

from .build import BuildError, item_name, site_url

ARRAY_NAMES = {
    "X", "W_Q", "W_K", "W_V", "W_O", "Q", "K", "V", "mask",
    "scores", "scaled_scores", "weights", "out", "entropy", "heads", "concat",
}
EXAMPLE_KEYS = ["id", "title", "page", "library_version", "seed", "inputs", "steps", "outputs"]


# ---------------------------------------------------------------- figures


def draw_figure(module, name):
    """-> (data, raw matplotlib SVG, [Heatmap records]) for one figure module, in a fresh style."""
    import matplotlib as mpl  # noqa: PLC0415
    from matplotlib.figure import Figure  # noqa: PLC0415

    from . import _style  # noqa: PLC0415

    for required in ("data", "render"):
        if not callable(getattr(module, required, None)):
            raise BuildError(f"figure {name}: {module.__name__} defines no {required}() function")
    params = list(inspect.signature(module.render).parameters)
    if len(params) != 2 or params[1] not in ("ax", "fig"):
        raise BuildError(f"figure {name}: render must be render(data, ax) or render(data, fig), got {params}")
    data = module.data()
    with mpl.rc_context():
        mpl.rcdefaults()
        mpl.rcParams.update(_style.rc_params(name))
        fig = Figure(figsize=getattr(module, "SIZE", _style.DEFAULT_SIZE), layout="constrained")
        fig.aih_name = name
        fig.aih_heatmaps = []
        module.render(data, fig.add_subplot() if params[1] == "ax" else fig)
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None}, transparent=True)
    return data, buffer.getvalue(), fig.aih_heatmaps


def render_figure(module, name):
    """-> {relative path: text} for one figure module: the SVG and its <figure> fragment."""
    from . import _svg  # noqa: PLC0415

    title = _title(module, name)
    data, raw_svg, heatmaps = draw_figure(module, name)
    _check_heatmap_cells(name, raw_svg, heatmaps)
    description = module.alt(data) if hasattr(module, "alt") else _heatmap_alt(name, heatmaps)
    svg = _svg.clean_svg(raw_svg, name, title, description)
    caption = module.caption(data) if callable(getattr(module, "caption", None)) else getattr(module, "CAPTION", None)
    if not caption:
        raise BuildError(f"figure {name}: define caption(data) (or CAPTION) to say what the figure shows")
    tables = _tables(module, data, heatmaps, name)
    html = _figure_html(name, module, svg, caption, tables, heatmaps)
    return {f"figures/{name}.svg": svg, f"figures/{name}.html": html}


def _title(module, name):
    doc = (module.__doc__ or "").strip()
    if not doc:
        raise BuildError(f"{name}: the module needs a docstring; its first line is the title")
    return doc.splitlines()[0].strip()


def _check_heatmap_cells(name, svg, heatmaps):
    for hm in heatmaps:
        n_q, n_k = hm.values.shape
        cells = svg.count(f'id="{hm.name}-cell-')
        if cells != n_q * n_k:
            raise BuildError(f"figure {name}: heatmap {hm.name} has {cells} cells in the SVG, expected {n_q}×{n_k}")


def _heatmap_alt(name, heatmaps):
    from .heatmap import QUANTITIES, format_number  # noqa: PLC0415

    if not heatmaps:
        raise BuildError(f"figure {name}: it draws no heatmap, so define alt(data) describing what it shows")
    parts = []
    for hm in heatmaps:
        finite = hm.values[np.isfinite(hm.values)]
        span = f"values from {format_number(finite.min())} to {format_number(finite.max())}" if finite.size else "all masked"
        head = f" of head {hm.head}" if hm.head is not None else ""
        parts.append(
            f"Heatmap of the {QUANTITIES[hm.quantity]}{head}: {len(hm.row_labels)} queries "
            f"({', '.join(map(str, hm.row_labels))}) by {len(hm.col_labels)} keys; {span}."
        )
    return " ".join(parts) + " The table after the figure lists every value."


def _tables(module, data, heatmaps, name):
    """[(caption, columns, rows)]: the module's table(data) if it has one, else one per heatmap."""
    if callable(getattr(module, "table", None)):
        result = module.table(data)
        tables = result if isinstance(result, list) else [result]
        out = []
        for t in tables:
            if not {"caption", "columns", "rows"} <= set(t):
                raise BuildError(f"figure {name}: table(data) must return dicts with caption, columns, rows")
            for row in t["rows"]:
                if len(row) != len(t["columns"]):
                    raise BuildError(f"figure {name}: a table row has {len(row)} cells for {len(t['columns'])} columns")
            out.append((t["caption"], t["columns"], t["rows"]))
        return out
    if not heatmaps:
        raise BuildError(f"figure {name}: it draws no heatmap, so define table(data) with its numbers")
    from .heatmap import QUANTITIES  # noqa: PLC0415

    return [
        (
            _sentence_case(QUANTITIES[hm.quantity]) + (f", head {hm.head}" if hm.head is not None else ""),
            ["query \\ key"] + hm.col_labels,
            [[label, *row] for label, row in zip(hm.row_labels, hm.values)],
        )
        for hm in heatmaps
    ]


def _sentence_case(text):
    return text[:1].upper() + text[1:]


def _cell(value):
    from .heatmap import format_number  # noqa: PLC0415

    if isinstance(value, (bool, np.bool_)):
        return str(bool(value)).lower()
    if isinstance(value, (float, np.floating)):
        return format_number(float(value))
    return escape(str(value))


def _figure_html(name, module, svg, caption, tables, heatmaps):
    classes = "aih-figure aih-heatmap" if heatmaps else "aih-figure"
    attrs = [f'class="{classes}"', f'id="fig-{name}"']
    example = getattr(module, "EXAMPLE", None)
    if example:
        attrs.append(f'data-example="{escape(example)}"')
    quantities = {hm.quantity for hm in heatmaps}
    if len(quantities) == 1:
        attrs.append(f'data-quantity="{quantities.pop()}"')
    heads = {hm.head for hm in heatmaps}
    if len(heads) == 1 and (head := heads.pop()) is not None:
        attrs.append(f'data-head="{head}"')
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


# ---------------------------------------------------------------- worked examples


def render_example(module, name):
    example = module.example()
    check_example(example, name)
    page = example["page"]
    source = "index.md" if page in ("", "./") else page.rstrip("/") + ".md"
    permalink = f"{site_url()}{'' if page in ('', './') else page}#{name}"
    cite = (
        f'<p class="aih-cite" id="{name}" markdown>Worked example <code>{name}</code>: cite it as '
        f"[{permalink}]({source}#{name}) · [download the numbers of {name} (JSON)](examples/{name}.json)</p>\n"
    )
    return {f"public/examples/{name}.json": example_json(example, name), f"snippets/{name}-cite.md": cite}


def check_example(example, name):
    if not isinstance(example, dict):
        raise BuildError(f"example {name}: example() must return a dict, got {type(example).__name__}")
    missing = [k for k in EXAMPLE_KEYS if k not in example]
    if missing:
        raise BuildError(f"example {name}: missing keys {missing}")
    if example["id"] != name:
        raise BuildError(f"example {name}: its id is {example['id']!r}; the id must be the item name {name!r}")
    for group in ("inputs", "steps", "outputs"):
        for key, value in example[group].items():
            if key not in ARRAY_NAMES:
                raise BuildError(f"example {name}: {group}.{key} is not one of the library's names {sorted(ARRAY_NAMES)}")
            arr = np.asarray(value)
            if key == "mask" and arr.dtype != bool:
                raise BuildError(f"example {name}: {group}.mask must be boolean (True = may attend), got {arr.dtype}")
            if arr.dtype != bool and not np.issubdtype(arr.dtype, np.number):
                raise BuildError(f"example {name}: {group}.{key} must hold numbers, got {arr.dtype}")
            if np.issubdtype(arr.dtype, np.floating) and (np.isnan(arr).any() or (arr == np.inf).any()):
                raise BuildError(f"example {name}: {group}.{key} holds NaN or +inf")
    tokens = example.get("tokens")
    if tokens is not None:
        n = len(tokens)
        n_keys = len(example.get("key_tokens", tokens))
        for group in ("steps", "outputs"):
            for key in ("scores", "scaled_scores", "weights"):
                if key in example[group] and np.shape(example[group][key])[-2:] != (n, n_keys):
                    raise BuildError(
                        f"example {name}: {group}.{key} has shape {np.shape(example[group][key])}, "
                        f"expected (..., {n}, {n_keys}) from its tokens"
                    )


def _jsonable(value):
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return None if value == -np.inf else value  # a masked score: null
    return value


def example_json(example, name):
    try:
        return json.dumps(_jsonable(example), ensure_ascii=False, allow_nan=False) + "\n"
    except (TypeError, ValueError) as exc:
        raise BuildError(f"example {name}: cannot be written as JSON: {exc}") from None


def render_item(dotted):
    """-> {path relative to generated/: text} for one registry entry."""
    name = item_name(dotted)
    module = importlib.import_module(dotted)
    outputs = {}
    if hasattr(module, "snippets") or hasattr(module, "public"):  # both take the item's data, computed once
        data = module.example() if hasattr(module, "example") else module.data()
    if hasattr(module, "render"):
        outputs.update(render_figure(module, name))
    if hasattr(module, "example"):
        outputs.update(render_example(module, name))
    if hasattr(module, "snippets"):
        parts = module.snippets(data)
        if not isinstance(parts, dict):
            raise BuildError(f"{name}: snippets(data) must return {{part: markdown}}, got {type(parts).__name__}")
        for part, text in parts.items():
            outputs[f"snippets/{name}{'-' + part if part else ''}.md"] = text.rstrip("\n") + "\n"
    if hasattr(module, "public"):
        files = module.public(data)
        if not isinstance(files, dict):
            raise BuildError(f"{name}: public(data) must return {{path: text}}, got {type(files).__name__}")
        for path, text in files.items():
            if Path(path).is_absolute() or ".." in Path(path).parts:
                raise BuildError(f"{name}: public(data) path {path!r} must stay inside generated/public/")
            outputs[f"public/{path}"] = text
    if not outputs:
        raise BuildError(f"{name}: {dotted} defines none of render(), example(), snippets(), public()")
    return outputs
