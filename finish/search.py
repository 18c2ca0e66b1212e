"""The search index shows each formula as text: QK<sup>T</sup>/√d<sub>k</sub>, not the LaTeX typed in the Markdown.

Either engine indexes a page's text before the site is finished, so a formula is still LaTeX there
(arithmatex's `\\(…\\)` and `\\[…\\]`). Under MkDocs, hooks/search_text.py has swapped each for its search text
already (and left out long listings and tables of numbers), so this job finds nothing to do in
search/search_index.json. Zensical runs no hooks: its index, search.json, gets the same search text here
(finish.mathml.search_text), entry by entry.
"""
import html
import json
import re

from . import mathml
from .site import FinishError

INDEXES = {"search/search_index.json": "docs", "search.json": "items"}  # MkDocs', Zensical's: their entries' key
_MARK = re.compile(r"\\\[(.*?)\\\]|\\\((.*?)\\\)", re.S)  # arithmatex's marks as the index keeps them


def as_text(text, where):
    """`text` with every formula in it as its search text."""
    def formula(match):
        display, inline = match.groups()
        latex = html.unescape(display or inline)
        try:
            return mathml.search_text(mathml.latex_to_mathml(latex, display is not None, where))
        except (ValueError, mathml.ElementTree.ParseError) as exc:
            raise FinishError(f"{where}: no search text for the formula {latex.strip()!r}: {exc}") from None

    return _MARK.sub(formula, text)


def run(site):
    for name, key in INDEXES.items():
        path = site.path(name)
        if not path.is_file():
            continue
        index = json.loads(path.read_text(encoding="utf-8"))
        changed = False
        for entry in index.get(key, []):
            for field in ("title", "text"):
                if isinstance(entry.get(field), str):
                    text = as_text(entry[field], f"{name}: {entry.get('location', '?')}")
                    changed |= text != entry[field]
                    entry[field] = text
        if changed:
            path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    mathml.save_cache()
