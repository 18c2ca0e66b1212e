"""Render the page's LaTeX as MathML at build time: no JavaScript, no other host.

pymdownx.arithmatex (generic mode) marks the math in the HTML it produces:
`<span class="arithmatex">\\(...\\)</span>` inline and `<div class="arithmatex">\\[...\\]</div>` for display.
This hook replaces each mark with the MathML that latex2mathml makes of it; a formula it cannot convert
fails the build, naming the page and the formula. Pages keep their LaTeX in the search index.
"""
import hashlib
import html
import importlib.metadata
import json
import os
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

# Converted formulas, kept between builds (git-ignored): a rebuild with nothing changed converts nothing.
CACHE = Path(__file__).resolve().parents[1] / ".cache" / "mathml.json"
# Valid for this latex2mathml and this very file: editing the post-processing below empties the cache.
_VERSION = f"latex2mathml={importlib.metadata.version('latex2mathml')} hook={hashlib.sha256(Path(__file__).read_bytes()).hexdigest()}"
_cache = None  # {"block|inline\0latex": mathml}, loaded on first use
_cache_changed = False

_INLINE = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.S)
_DISPLAY = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.S)
_UPRIGHT_RUN = re.compile(r'(?:<mi mathvariant="normal">[A-Za-z]</mi>){2,}')
_HEADER_CELL = re.compile(r"(<th\b[^>]*>)(.*?)(</th>)", re.S)


def latex_to_mathml(latex, display, where="?"):
    global _cache, _cache_changed
    if _cache is None:
        _cache = _load_cache()
    key = f"{'block' if display else 'inline'}\0{latex.strip()}"
    if key not in _cache:
        _cache[key] = _convert(latex, display, where)
        _cache_changed = True
    return _cache[key]


def _load_cache():
    """The stored formulas, if the file is ours, of this version, and its formulas hash to its digest; else none."""
    if os.environ.get("AIH_BUILD_CACHE") == "off":  # tests compare builds with and without the cache
        return {}
    try:
        stored = json.loads(CACHE.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # missing, unreadable, not UTF-8, not JSON
        return {}
    if not isinstance(stored, dict) or stored.get("version") != _VERSION:
        return {}
    formulas = stored.get("formulas")
    if not isinstance(formulas, dict) or stored.get("digest") != _digest(formulas):
        return {}
    if not all(isinstance(k, str) and isinstance(v, str) and v.startswith("<math") for k, v in formulas.items()):
        return {}
    return formulas


def _digest(formulas):
    text = json.dumps(formulas, sort_keys=True, ensure_ascii=True)
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def on_post_build(config):
    global _cache_changed
    if _cache_changed and os.environ.get("AIH_BUILD_CACHE") != "off":
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        tmp = CACHE.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"version": _VERSION, "digest": _digest(_cache), "formulas": _cache}, sort_keys=True), encoding="utf-8")
        tmp.replace(CACHE)
        _cache_changed = False


def _convert(latex, display, where):
    from latex2mathml.converter import convert  # noqa: PLC0415  (not even imported when the cache has it all)

    try:
        mathml = convert(latex.strip(), display="block" if display else "inline")
    except Exception as exc:
        raise PluginError(f"{where}: cannot render the formula {latex.strip()!r} as MathML: {exc}") from None
    # \mathrm{softmax} comes out one letter per <mi>; one multi-letter <mi> is upright and reads as a word.
    mathml = _UPRIGHT_RUN.sub(lambda m: "<mi>" + "".join(re.findall(r">([A-Za-z])<", m.group(0))) + "</mi>", mathml)
    # latex2mathml makes \infty an operator, so "-\infty" rendered as a subtraction "− ∞"; it is a symbol.
    return mathml.replace("<mo>&#x0221E;</mo>", "<mi>&#x0221E;</mi>")


def render_math(page_html, where="?"):
    page_html = _DISPLAY.sub(
        lambda m: '<div class="aih-math">' + latex_to_mathml(html.unescape(m.group(1)), True, where) + "</div>",
        page_html,
    )
    page_html = _INLINE.sub(lambda m: latex_to_mathml(html.unescape(m.group(1)), False, where), page_html)
    page_html = _HEADER_CELL.sub(_name_header_math, page_html)
    if 'class="arithmatex"' in page_html:
        raise PluginError(f"{where}: math left unconverted (an arithmatex mark this hook does not recognise)")
    return page_html


def _name_header_math(match):
    """A table header that holds only math gets the math's text as its name: axe-core finds no text in
    MathML alone (empty-table-header), so screen readers would hear an empty column header."""
    start, content, end = match.groups()
    if "<math" not in content or re.sub(r"<math\b.*?</math>|<[^>]+>|\s", "", content, flags=re.S):
        return match.group(0)
    label = html.escape(" ".join(html.unescape(t).strip() for t in re.findall(r">([^<]+)<", content) if t.strip()))
    return start + content.replace("<math ", f'<math aria-label="{label}" ', 1) + end


# An <mrow> around a single token element means the same as the token alone (MathML Core): one element less.
_SINGLE_MROW = re.compile(r"<mrow>(<(mi|mo|mn|mtext)\b[^>]*>[^<]*</\2>)</mrow>")


def on_post_page(output, page, config):
    # On the finished page rather than on page.content: the search index keeps the short LaTeX source
    # instead of walking (and indexing) every MathML element.
    return _SINGLE_MROW.sub(r"\1", render_math(output, page.file.src_uri))
