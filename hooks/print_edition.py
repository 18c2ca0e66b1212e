"""The print edition, print/: every page of the site in navigation order, on one page, for the printer and for
`make pdf` (scripts/make_pdf.py). docs/print.md gives the page its frame and a placeholder; once every page is
written, this copies each page's finished <article> (figures, MathML and tables already in) into it.

The copies are static: the page loads no widget script and its heatmaps lose data-example, so what prints is
the figure the build drew and its table (docs/stylesheets/print.css). Ids that a page repeats from an earlier one
(a "Recap" heading, say) get the page's name in front, with the page's own links to them. Links keep working:
every page but Home sits one folder down, as print/ does, so its "../" links hold; Home's relative links get a
"../", and a page's links into its own folder get "../<page>/".

Why not mkdocs-print-site-plugin: it assembles its page from each page's content before our hooks put the
figures and MathML in (they work on the finished HTML), it adds scripts of its own that the CSP would have to
allow, and a plugin, like a hook, is something MkDocs' successor does not run: this file is all there is to port.
"""
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

PRINT_PAGE = "print.md"
PLACEHOLDER = '<div id="aih-print-edition"></div>'
_ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">(.*?)</article>', re.S)
_ID = re.compile(r'\bid="([^"]+)"')
_RELATIVE = re.compile(r'\b(href|src)="(?![#/]|[a-z][a-z0-9+.-]*:)')
_OWN_FOLDER = re.compile(r'\b(href|src)="(?![#/.]|[a-z][a-z0-9+.-]*:)')
# The widget script, and its preload hint (hooks/csp.py): an unused hint is a console warning.
_SITE_SCRIPT = re.compile(r'<script[^>]*\bsrc="[^"]*javascripts/site\.js"[^>]*></script>\s*'
                          r'|<link rel="modulepreload" href="[^"]*javascripts/site\.js">')

# Words of a page's instructions for its controls ("What to do", "Try this", "drag the slider", "Point at a cell, or
# tap it"): the print edition's copy has no controls, so a page that uses them gets a note with its web address.
_INSTRUCTION = re.compile(r"\b(?:hover|click|drag|slider|tap it|point at)", re.I)
_H1_END = re.compile(r"</h1>")

_pages = []  # (src_uri, dest_path, url) of the nav's pages, in order, for this build


def on_nav(nav, config, files):
    _pages[:] = [(p.file.src_uri, p.file.dest_path, p.url) for p in nav.pages if p.file.src_uri != PRINT_PAGE]
    return nav


def article(html, name):
    match = _ARTICLE.search(html)
    if match is None:
        raise PluginError(f"print edition: {name} has no <article> to copy")
    return match.group(1)


def static(content):
    """The article without what makes it interactive (its heatmaps stay the figures the build drew), and its
    images and collapsed tables there at once, as a printer needs them."""
    content = re.sub(r'<noscript class="aih-lazy">(.*?)</noscript>', r"\1", content, flags=re.S)  # hooks/lazy_details.py
    return re.sub(r' data-example="[^"]*"| loading="lazy"', "", content)


def unique_ids(content, prefix, seen):
    """Give the ids an earlier page already used `prefix-` in front, and the page's own #links to them."""
    repeated = {i for i in _ID.findall(content) if i in seen}
    seen.update(_ID.findall(content))
    if not repeated:
        return content
    content = _ID.sub(lambda m: f'id="{prefix}-{m.group(1)}"' if m.group(1) in repeated else m.group(0), content)
    return re.sub(r'href="#([^"]+)"', lambda m: f'href="#{prefix}-{m.group(1)}"' if m.group(1) in repeated else m.group(0), content)


def web_note(content, address):
    """The article with a note after its title, if its text tells the reader to use controls it has only on the
    web: where to find them."""
    if not _INSTRUCTION.search(re.sub(r"<[^>]+>", " ", content)):
        return content
    note = (f'<p class="aih-web-note"><em>In this edition the figures of this page are drawings: the controls its '
            f'instructions mention (hover, click, the sliders) are on the web page, <a href="{address}">{address}</a>.</em></p>')
    return _H1_END.sub(lambda m: m.group(0) + note, content, count=1)


def edition(site_dir, site_url=""):
    """The HTML of every nav page's article, in order, each in a <section> of its own."""
    seen = {"aih-print-edition"}
    sections = []
    for src_uri, dest_path, url in _pages:
        content = static(article((site_dir / dest_path).read_text(encoding="utf-8"), src_uri))
        content = web_note(content, site_url.rstrip("/") + "/" + url)
        if url.count("/") == 0:  # Home is at the root; print/ is one folder down
            content = _RELATIVE.sub(r'\1="../', content)
        else:  # a link into the page's own folder (problems/concepts.json) reaches it from print/ through ../
            content = _OWN_FOLDER.sub(rf'\1="../{url}', content)
        slug = Path(src_uri).stem
        content = unique_ids(content, slug, seen)
        sections.append(f'<section class="aih-print-page" id="print-{slug}">{content}</section>')
    return "\n".join(sections)


def on_post_build(config):
    site_dir = Path(config["site_dir"])
    target = site_dir / "print" / "index.html"
    if not target.is_file():
        raise PluginError(f"print edition: docs/{PRINT_PAGE} was not built")
    html = target.read_text(encoding="utf-8")
    if html.count(PLACEHOLDER) != 1:
        raise PluginError(f"print edition: docs/{PRINT_PAGE} must hold {PLACEHOLDER} once")
    html = _SITE_SCRIPT.sub("", html.replace(PLACEHOLDER, edition(site_dir, config.get("site_url") or "")))
    target.write_text(html, encoding="utf-8")
