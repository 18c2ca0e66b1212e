"""Inline the generated figures after Markdown, so neither Markdown nor the search index parses their SVG.

A page includes a figure with the snippet line `--8<-- "generated/figures/<name>.html"` on its own line
(indented inside a content tab or an admonition is fine). pymdownx.snippets would paste the fragment into the Markdown, where Python-Markdown's
HTML parser and then the search plugin's would walk every SVG element: most of the build's time,
and tick labels in the search index. This hook swaps such a line for an empty placeholder carrying the
figure's id (so links to `#fig-<name>` still validate) and puts the fragment in the finished page.
The HTML is the same as with the snippet; outside MkDocs the line still works as a plain snippet.
A missing fragment fails the build, naming the page and the figure.
"""
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[1]
_INCLUDE = re.compile(r'^([ \t]*)--8<-- "generated/figures/([A-Za-z0-9_-]+)\.html"[ \t]*$', re.M)
_MENU_LINK = re.compile(r' href="(?=(?:figures|examples)/)')  # a figure's Download links, from the site root
# Indented, the placeholder lands inside a paragraph; the figure replaces the paragraph with it.
_SLOT = re.compile(r'(?:<p>)?<div class="aih-figure-slot" id="fig-([A-Za-z0-9_-]+)"></div>(?:</p>)?')


def on_page_markdown(markdown, page, config, files):
    def slot(match):
        indent, name = match.groups()
        if not (ROOT / "generated" / "figures" / f"{name}.html").is_file():
            raise PluginError(
                f"{page.file.src_uri}: generated/figures/{name}.html does not exist "
                "(is it declared in the ITEMS of a page module in figures_src/pages/? run `make figures`)"
            )
        return f'{indent}<div class="aih-figure-slot" id="fig-{name}"></div>'

    return _INCLUDE.sub(slot, markdown)


def on_post_page(output, page, config):
    base = "../" * page.url.count("/")  # the download menu's links are relative to the site root

    def figure(match):
        fragment = (ROOT / "generated" / "figures" / f"{match.group(1)}.html").read_text(encoding="utf-8")
        return _MENU_LINK.sub(f' href="{base}', fragment.rstrip("\n"))

    output = _SLOT.sub(figure, output)
    if 'class="aih-figure-slot"' in output:
        raise PluginError(f"{page.file.src_uri}: a figure placeholder was left in the page")
    return output
