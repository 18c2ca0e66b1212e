"""Collapsed content waits outside the DOM until a reader opens it: the body of every figure's numbers table
(`<details class="aih-data">`), of every source listing (`??? example`) and of every worked example's
<iframe> code (`<details class="aih-embed-code">`) goes into a `<noscript class="aih-lazy">` after its
<summary>, and so do a problem's solution steps (inside their `.aih-problem__steps`, which
docs/javascripts/problems.js fills from the problem's data when it loads). A code block in the page, even in a
closed <details>, is measured by the theme's script at load: the <iframe> code brings its own copy button
(figures_src/engine/examples.py), so nothing is lost by keeping it out.

Without JavaScript the browser renders a <noscript> like any other element, so the table or the listing is
there as before, closed until opened. With JavaScript it is one text node (no elements: a large table or a
coloured listing is hundreds of them), and docs/javascripts/site.js parses it into place when the <details>
is first opened, so a screen reader or a reader's eyes get the same table then. Runs after the figures are
inlined and the math is MathML (it is listed after hooks/figures.py and hooks/mathml.py).
"""
import re

from mkdocs.exceptions import PluginError

_LAZY = re.compile(r'(<details class="(?:aih-data|example|aih-embed-code)"(?: data-search-exclude)?>\s*<summary>.*?</summary>)'
                   r'(.*?)(</details>)'
                   r'|(<details class="success aih-problem__solution"[^>]*><summary>Solution</summary><div class="aih-problem__steps">)'
                   r'(.*?)(</div></details>)', re.S)


def lazy(html, name="page"):
    def wrap(match):
        head, body, tail = [part for part in match.groups() if part is not None]
        if "<details" in body or "<noscript" in body.lower():
            raise PluginError(f"lazy_details hook: {name}: a collapsed block holds a <details> or <noscript>")
        return f'{head}<noscript class="aih-lazy">{body}</noscript>{tail}'

    return _LAZY.sub(wrap, html)


def on_post_page(output, page, config):
    return lazy(output, page.file.src_uri)
