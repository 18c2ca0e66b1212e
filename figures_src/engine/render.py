"""What one declared item writes, as {path relative to generated/: text}.

Every number of an item's data is checked finite before anything is drawn or printed (engine/finite.py).

Imported by the build only when an item must be rebuilt, so a no-change build never pays for numpy's
arithmetic or matplotlib.

The generated folder:

| path | what | reaches the site as |
| --- | --- | --- |
| `generated/figures/<name>.html` | the figure's placeholder: `<div class="aih-figure-slot" id="fig-<name>"></div>` | included in a page: `--8<-- "generated/figures/<name>.html"` |
| `generated/fragments/<name>.html` | the complete `<figure>` (SVG, caption, data table), no blank lines | put in place of its placeholder by the post-build pass (`finish/figures.py`) |
| `generated/snippets/<name>.md` | generated Markdown: tables and sentences carrying computed numbers | included in a page |
| `generated/public/**` | downloads, published at the same path under the site root | `examples/<id>.json`, `problems/<set>.json`, ... |
| `generated/public/figures/<name>.{svg,png,thumb.png,csv,bib}` | a figure's downloads (`engine/downloads.py`): standalone light SVG with its glyphs as outlines, PNG at 2× (192 dpi), the Cite page's thumbnail, its table(s) as CSV, each column to 10 significant digits of its largest entry (`text.published`), a BibTeX entry | `figures/<name>.svg`, ... linked from the figure's Download menu and the Cite page's figure index |
| `generated/public/embed/<id>/index.html` | the embed page of every example the heatmap can draw (`engine/embed.py`): its weights as a static figure with their table (what a frame shows without JavaScript, or with bad JSON), made interactive by `docs/widgets/heatmap/embed.js` | `embed/<id>/`, linked from the example's cite line |
| `generated/public/code/<path>{,.highlight}` | a source file a page lists in full (`engine/sources.py`, declared with `Snippets(..., public=source_listings(path, ...))`): the file as it is, and its listing highlighted by Pygments | `code/<path>`, linked from the page's `<details class="example aih-source">`; `site.js` fills the block from the `.highlight` fragment when it is opened |

Everything under `generated/public/` is published by the post-build pass (`finish/published.py`), at the same
relative path. Every generated
snippet and figure is included by a page, and every download is linked from one (`tests/test_pipeline.py`).
"""
import re
from pathlib import Path

from .errors import BuildError
from . import embed
from .examples import cite_line, example_json, permalink
from .finite import check_tree
from .items import Example, Figure, Snippets


# Any C0 control character but the newline. In a Python string that is not raw, "\times" is a tab and "imes",
# "\frac" a form feed and "rac": the formula that reaches the page is broken, and nothing else would notice.
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


def outputs(item, page=None):
    """Every file `item` writes: a figure's fragment and downloads, an example's JSON and cite line, snippets,
    downloads. `page`: the Markdown page that declares it ("scores.md"), for a figure's permalink.
    A text holding a control character fails the build, naming the file and what the character follows."""
    files = _outputs(item, page)
    for path, text in files.items():
        found = CONTROL.search(text) if isinstance(text, str) else None
        if found:
            raise BuildError(f"{path}: a control character {found.group(0)!r} after {text[max(0, found.start() - 40):found.start()]!r}"
                             " (a TeX command such as \\times or \\frac in a Python string that is not raw?)")
    return files


def _outputs(item, page):
    match item:
        case Example():
            example = item.compute()
            check_tree(example, f"example {item.id}: data()", allowed=("inputs", "steps", "outputs"))  # those: examples.py
            files = {f"public/examples/{item.id}.json": example_json(example)}
            can_embed = embed.embeddable(example)
            if can_embed:
                from .figures import example_weights_figure  # noqa: PLC0415  (matplotlib only when drawing)

                static = example_weights_figure(item, example, f"embed-{item.id}", embed.caption(example))
                files[f"public/embed/{item.id}/index.html"] = embed.embed_page(example, permalink(item), static)
            if item.cite_line:
                files[f"snippets/{item.id}-cite.md"] = cite_line(item, can_embed)
            return files | snippet_files(item.id, item.snippets, example)
        case Figure():
            from .figures import render_figure  # noqa: PLC0415  (matplotlib only when a figure is drawn)

            data = item.data()
            check_tree(data, f"figure {item.name}: data()", masked_scores=True)  # heatmap() checks −∞ against its mask
            return render_figure(item, data, page) | snippet_files(item.name, item.snippets, data)
        case Snippets():
            data = item.data()
            check_tree(data, f"snippets {item.name}: data()")
            return snippet_files(item.name, item.snippets, data) | public_files(item.name, item.public, data)
    raise BuildError(f"{item!r} is not a declaration the build knows (Example, Figure or Snippets)")


def snippet_files(name, snippets, data):
    """snippets(data) = {part: Markdown} -> {"snippets/<name>[-<part>].md": text ending in one newline}."""
    if snippets is None:
        return {}
    parts = snippets(data)
    if not isinstance(parts, dict):
        raise BuildError(f"{name}: snippets(data) must return {{part: markdown}}, got {type(parts).__name__}")
    return {f"snippets/{name}{'-' + part if part else ''}.md": text.rstrip("\n") + "\n" for part, text in parts.items()}


def public_files(name, public, data):
    """public(data) = {path: text or bytes} -> {"public/<path>": text or bytes}, each path inside generated/public/."""
    if public is None:
        return {}
    downloads = public(data)
    if not isinstance(downloads, dict):
        raise BuildError(f"{name}: public(data) must return {{path: text}}, got {type(downloads).__name__}")
    for path in downloads:
        if Path(path).is_absolute() or ".." in Path(path).parts:
            raise BuildError(f"{name}: public(data) path {path!r} must stay inside generated/public/")
    return {f"public/{path}": text for path, text in downloads.items()}
