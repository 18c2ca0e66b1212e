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
from .site import OTHER_LANGUAGES, FinishError

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
    split_by_language(site)


_BASE = re.compile(r'("base": ")([^"]*)(")')


def split_by_language(site):
    """One index per language: mkdocs-static-i18n merges both into search/search_index.json, which Material's worker
    downloads on every page; a Chinese page now downloads zh/search/search_index.json, the Chinese pages' alone
    (their locations from zh/), and finds Chinese pages. Its pages' `base` (Material's __config, where the worker
    and the search results start from) is zh/, which also holds the sitemap Material reads from there
    (finish/alternates.py copies it)."""
    path = site.path("search/search_index.json")
    if not path.is_file():
        return
    index = json.loads(path.read_text(encoding="utf-8"))
    by_language = {lang: [] for lang in OTHER_LANGUAGES}
    kept = []
    for entry in index["docs"]:
        lang = next((lang for lang in OTHER_LANGUAGES if entry["location"].startswith(f"{lang}/")), None)
        if lang is None:
            kept.append(entry)
        else:
            by_language[lang].append(dict(entry, location=entry["location"].removeprefix(f"{lang}/")))
    if not any(by_language.values()):
        return
    _write_index(path, dict(index, docs=kept))
    for lang, entries in by_language.items():
        if not entries:
            continue
        # the same config: lang en, whose pipeline the worker keeps to the stop words (no trimmer, no stemmer), so
        # the words jieba cut at build time are matched as they are (lunr's zh support stops the worker in a browser)
        _write_index(site.path(f"{lang}/search/search_index.json"), {"config": index["config"], "docs": entries})
        for page in site.pages:
            if page.language == lang:
                page.update(_BASE.sub(lambda m: m.group(1) + _one_up(m.group(2), page.name) + m.group(3), page.html, 1))


def _one_up(base, name):
    """A page's `base` from its language's folder rather than the site's root: one "../" fewer."""
    if base == "..":
        return "."
    if not base.startswith("../"):
        raise FinishError(f"{name}: its base {base!r} does not climb to the site's root; is it a page under a language's folder?")
    return base[3:]


def _write_index(path, index):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
