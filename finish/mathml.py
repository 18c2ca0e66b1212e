"""Render the pages' LaTeX as MathML when the site is finished: no JavaScript, no other host.

pymdownx.arithmatex (generic mode) marks the math in the HTML it produces:
`<span class="arithmatex">\\(...\\)</span>` inline and `<div class="arithmatex">\\[...\\]</div>` for display.
This job replaces each mark with the MathML that latex2mathml makes of it; a formula it cannot convert
fails the pass, naming the page and the formula.

`search_text` gives a formula as the search index should show it: short text, with sub- and superscripts as
<sub> and <sup>, the only inline markup the index keeps (QK<sup>T</sup>/√d<sub>k</sub>), not the LaTeX as typed
("\\(-\\infty\\)") nor dozens of MathML elements (hooks/search_text.py gives it to MkDocs' search).
"""
import hashlib
import html
import importlib.metadata
import json
import os
import re
import unicodedata
import xml.etree.ElementTree as ElementTree
from pathlib import Path

from .site import FinishError

# Converted formulas, kept between builds (git-ignored): a rebuild with nothing changed converts nothing.
CACHE = Path(__file__).resolve().parents[1] / ".cache" / "mathml.json"
# Valid for this latex2mathml and this very file: editing the post-processing below empties the cache.
_VERSION = f"latex2mathml={importlib.metadata.version('latex2mathml')} job={hashlib.sha256(Path(__file__).read_bytes()).hexdigest()}"
_cache = None  # {"block|inline\0latex": mathml}, loaded on first use
_cache_changed = False

_MATHML_NS = "{http://www.w3.org/1998/Math/MathML}"
ElementTree.register_namespace("", _MATHML_NS[1:-1])  # written back as <math xmlns="…">, no ns0: prefix
_INLINE = re.compile(r'<span class="arithmatex">\\\((.*?)\\\)</span>', re.S)
_DISPLAY = re.compile(r'<div class="arithmatex">\\\[(.*?)\\\]</div>', re.S)
_UPRIGHT_RUN = re.compile(r'(?:<mi mathvariant="normal">[A-Za-z]</mi>){2,}')
_PRIMED = re.compile(r"<msup>(<mi>[^<]*</mi>)<mi>&#x02032;</mi></msup>")
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


def save_cache():
    """Write the formulas converted in this run to CACHE, if there are new ones."""
    global _cache_changed
    if _cache_changed and os.environ.get("AIH_BUILD_CACHE") != "off":
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        tmp = CACHE.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps({"version": _VERSION, "digest": _digest(_cache), "formulas": _cache}, sort_keys=True), encoding="utf-8")
        tmp.replace(CACHE)
        _cache_changed = False


def run(site):
    for page in site.pages:
        page.update(render_math(page.html, page.name))
    save_cache()


def _convert(latex, display, where):
    from latex2mathml.converter import convert  # noqa: PLC0415  (not even imported when the cache has it all)

    try:
        mathml = convert(latex.strip(), display="block" if display else "inline")
    except Exception as exc:
        raise FinishError(f"{where}: cannot render the formula {latex.strip()!r} as MathML: {exc}") from None
    # \mathrm{softmax} comes out one letter per <mi>; one multi-letter <mi> is upright and reads as a word.
    mathml = _UPRIGHT_RUN.sub(lambda m: "<mi>" + "".join(re.findall(r">([A-Za-z])<", m.group(0))) + "</mi>", mathml)
    # latex2mathml writes p' as p with a superscript prime, and the prime, a raised glyph already, came out as a tiny
    # tick far above the p: it follows the letter instead.
    mathml = _PRIMED.sub(r"<mrow>\1<mi>&#x02032;</mi></mrow>", mathml)
    # latex2mathml makes \infty an operator, so "-\infty" rendered as a subtraction "− ∞"; it is a symbol.
    return _without_needless_rows(mathml.replace("<mo>&#x0221E;</mo>", "<mi>&#x0221E;</mi>"))


# <math> and <msqrt> lay out their children as a row already (MathML Core's inferred mrow)
_ROWS = {f"{_MATHML_NS}{tag}" for tag in ("math", "msqrt")}


def _without_needless_rows(mathml):
    """The same formula without the <mrow>s that change nothing: latex2mathml wraps a whole formula, a root's
    radicand and many a single script in one. An <mrow> that is all of a <math> or an <msqrt> is the row
    they lay out anyway; an <mrow> around one element is that element. (An <mrow> among siblings stays: it
    is how far a stretchy bracket in it stretches.) About one element in six of a page's MathML (learning/: 66 of
    its 1,500 elements at load are formulas)."""
    root = ElementTree.fromstring(mathml)

    def simplify(element):
        for child in element:
            simplify(child)
        children = []
        for child in element:
            needless = child.tag == f"{_MATHML_NS}mrow" and not child.attrib and not (child.text or "").strip()
            if needless and (len(child) == 1 or element.tag in _ROWS and len(element) == 1):
                children.extend(child)
            else:
                children.append(child)
        element[:] = children

    simplify(root)
    return ElementTree.tostring(root, encoding="unicode", short_empty_elements=False)


def render_math(page_html, where="?"):
    page_html = _DISPLAY.sub(
        lambda m: '<div class="aih-math">' + latex_to_mathml(html.unescape(m.group(1)), True, where) + "</div>",
        page_html,
    )
    page_html = _INLINE.sub(lambda m: latex_to_mathml(html.unescape(m.group(1)), False, where), page_html)
    page_html = _HEADER_CELL.sub(_name_header_math, page_html)
    if 'class="arithmatex"' in page_html:
        raise FinishError(f"{where}: math left unconverted (an arithmatex mark this job does not recognise)")
    return page_html


def _name_header_math(match):
    """A table header that holds only math gets the math's text as its name: axe-core finds no text in
    MathML alone (empty-table-header), so screen readers would hear an empty column header."""
    start, content, end = match.groups()
    if "<math" not in content or re.sub(r"<math\b.*?</math>|<[^>]+>|\s", "", content, flags=re.S):
        return match.group(0)
    label = html.escape(" ".join(html.unescape(t).strip() for t in re.findall(r">([^<]+)<", content) if t.strip()))
    return start + content.replace("<math ", f'<math aria-label="{label}" ', 1) + end


_MATHML = "{http://www.w3.org/1998/Math/MathML}"
_SPACED = set("=+−×·⊙≈≠≤≥<>→←∈")  # operators read with a space on either side
_OPENING = set("([{⟨")
MARK = re.compile(f"{_DISPLAY.pattern}|{_INLINE.pattern}", re.S)  # either mark; hooks/search_text.py reads them


def search_text(mathml):
    """A formula's MathML as the search index shows it: text, with <sub> and <sup>. Letters are plain
    (NFKC): a reader types T, not the sans-serif 𝖳 of \\mathsf{T}. An element it does not know is an error."""
    return _text(ElementTree.fromstring(mathml)).strip()


_GROUPS = ("math", "mrow", "mstyle", "mpadded", "mphantom", "menclose", "mtable", "mtr")
_SCRIPTS = {"msub": ["sub"], "msup": ["sup"], "msubsup": ["sub", "sup"],  # a display sum's limits sit under
            "munder": ["sub"], "mover": ["sup"], "munderover": ["sub", "sup"]}  # and over it: read as scripts


def _text(element, before=None):
    tag = element.tag.removeprefix(_MATHML)
    parts = [_text(child, element[index - 1] if index else None) for index, child in enumerate(element)]
    if tag in ("mi", "mn", "mtext", "ms"):
        return html.escape(unicodedata.normalize("NFKC", element.text or ""))
    if tag == "mo":
        symbol = (element.text or "").strip()
        # an operator with nothing before it, or after another operator or an opening bracket, is a sign:
        # "−∞", "a = −b", "(−x)"
        sign = before is None or before.tag == _MATHML + "mo" and (before.text or "").strip() in _SPACED | _OPENING
        return f" {html.escape(symbol)} " if symbol in _SPACED and not sign else html.escape(symbol)
    if tag == "mover" and element.get("accent") == "true":
        return parts[0]  # \hat{x}: the letter, which is what a reader types
    if tag in _SCRIPTS:
        return parts[0] + "".join(f"<{s}>{part}</{s}>" for s, part in zip(_SCRIPTS[tag], parts[1:]))
    if tag in ("msqrt", "mroot"):
        radicand = "".join(parts[:1] if tag == "mroot" else parts)
        index = f"<sup>{parts[1]}</sup>" if tag == "mroot" else ""
        return index + "√" + (radicand if len(element) == 1 + (tag == "mroot") and _atomic(element[0])
                               else f"({radicand})")
    if tag == "mfrac":
        return "/".join(part if _atomic(child) else f"({part})" for child, part in zip(element, parts))
    if tag == "mspace":
        return "" if element.get("width", "").startswith(("-", "negative")) else " "
    if tag == "mtd":
        return "".join(parts) + " "
    if tag in _GROUPS:  # a word (log, softmax) is set apart from what it applies to, unless that is bracketed
        following = [next((later for later in parts[index + 1:] if later), "") for index in range(len(parts))]
        return "".join(part + " " if _word(child) and following[index][:1] not in ("", " ", *_OPENING) else part
                       for index, (child, part) in enumerate(zip(element, parts)))
    raise ValueError(f"no search text for the MathML element <{tag}>")


def _word(element):
    return element.tag in (_MATHML + "mi", _MATHML + "mo") and len((element.text or "").strip()) > 1


def _atomic(element):
    """Whether a formula reads as one piece without brackets: a symbol, maybe with scripts, or a root."""
    while element.tag == _MATHML + "mrow" and len(element) == 1:
        element = element[0]
    return len(element) == 0 or element.tag.removeprefix(_MATHML) in ("msub", "msup", "msubsup", "msqrt")
