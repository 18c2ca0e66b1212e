"""Collapsed content waits outside the DOM until a reader opens it: the body of every figure's numbers table
(`<details class="aih-data">`) and of every source listing (`??? example`) goes into a `<noscript
class="aih-lazy">` after its <summary>, and so do a problem's solution steps (inside their
`.aih-problem__steps`, which docs/widgets/problems/problems.js fills from the problem's data when it loads).

Without JavaScript the browser renders a <noscript> like any other element, so the table or the listing is
there as before, closed until opened. With JavaScript it is one text node (no elements: a large table or a
coloured listing is hundreds of them), and docs/javascripts/site.js parses it into place when the <details>
is first opened, so a screen reader or a reader's eyes get the same table then. Runs after the figures are
inlined and the math is MathML (finish.JOBS lists it after them).
"""
import re

from .site import FinishError

_LAZY = re.compile(r'(<details class="(?:aih-data|example)">\s*<summary>.*?</summary>)(.*?)(</details>)'
                   r'|(<details class="success aih-problem__solution"[^>]*><summary>[^<]*</summary><div class="aih-problem__steps">)'
                   r'(.*?)(</div></details>)', re.S)


def lazy(html, name="page"):
    def wrap(match):
        head, body, tail = [part for part in match.groups() if part is not None]
        if "<details" in body or "<noscript" in body.lower():
            raise FinishError(f"{name}: a collapsed block holds a <details> or <noscript>")
        return f'{head}<noscript class="aih-lazy">{body}</noscript>{tail}'

    return _LAZY.sub(wrap, html)


def run(site):
    for page in site.pages:
        page.update(lazy(page.html, page.name))
