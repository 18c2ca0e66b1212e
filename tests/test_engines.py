"""One site, two engines: the pages Zensical builds, finished by the same post-build pass, against MkDocs'.

The shared site/ is MkDocs-Material's, and every other test reads it. This file builds the same tree with
Zensical (the `zensical_site` fixture: what `make site ENGINE=zensical` does) and checks what could differ
between the engines, not everything again: each page's content is MkDocs' (so what the other tests check of it
holds of both), and the pass did its work on Zensical's frame too (policy, stylesheet, scripts, downloads,
search, print edition). tests/browser/test_engines_browser.py loads Zensical's pages in Chromium.

The differences the engines are allowed inside a page are listed in ENGINE_DIFFERENCES and normalised below; the
one in the search index is measured by test_zensicals_search_index_holds_what_mkdocs_leaves_out.
"""
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

from figures_src.engine.site import page_path
from finish.scripts import SCRIPT_FOLDERS
from finish.site import article

ROOT = Path(__file__).resolve().parents[1]

# What Zensical does differently inside a page's article, and why the site accepts it.
ENGINE_DIFFERENCES = {
    "skip anchor": "Zensical puts its skip link's target, <a id=\"__skip\">, first in every article",
    "search mark": "MkDocs' search hook (hooks/search_text.py, MkDocs only) marks a table of numbers "
                   "data-search-exclude in the page for its index; Zensical's pages have no such mark, and Zensical "
                   "drops the attribute where an author wrote one",
    "link form": "Zensical writes a link in the Markdown's HTML relative to the Markdown file, MkDocs as written: "
                 "they reach the same place (compared as addresses within the site)",
}
_SKIP = re.compile(r'\s*<a id="__skip" tabindex="-1"></a>')


class _Events(HTMLParser):
    """A page's article as (kind, tag or text, attributes): what a reader and a script see of it."""

    def __init__(self, url):
        super().__init__(convert_charrefs=True)
        self.url, self.events = url, []

    def handle_starttag(self, tag, attrs):
        kept = []
        for name, value in sorted(attrs):
            if name == "data-search-exclude":
                continue
            if name in ("href", "src") and value and not re.match(r"[a-z][a-z0-9+.-]*:|#", value):
                address = urlsplit(urljoin(f"http://site.invalid/{self.url}", value))
                value = address.path.removesuffix("index.html") + (f"#{address.fragment}" if address.fragment else "")
            elif name == "href" and value and value.startswith("#"):
                value = f"/{self.url}{value}"
            kept.append((name, value))
        self.events.append(("start", tag, tuple(kept)))

    def handle_endtag(self, tag):
        self.events.append(("end", tag, ()))

    def handle_data(self, data):
        if data.strip():
            self.events.append(("text", " ".join(data.split()), ()))


def events(html, url):
    parser = _Events(url)
    parser.feed(_SKIP.sub("", html))
    return parser.events


def docs_pages():
    return sorted(path.relative_to(ROOT / "docs").as_posix() for path in (ROOT / "docs").glob("*.md"))


@pytest.mark.parametrize("markdown", docs_pages())
def test_each_page_has_the_same_content_from_both_engines(built_site, zensical_site, markdown):
    url = page_path(markdown)
    name = f"{url}index.html"
    ours, theirs = ((site / name).read_text(encoding="utf-8") for site in (built_site, zensical_site))
    mkdocs, zensical = events(article(ours, name), url), events(article(theirs, name), url)
    first = next((i for i, (a, b) in enumerate(zip(mkdocs, zensical)) if a != b), min(len(mkdocs), len(zensical)))
    assert mkdocs == zensical, (
        f"{name}: Zensical's article differs from MkDocs' beyond the accepted differences ({', '.join(ENGINE_DIFFERENCES)}), "
        f"at event {first}: MkDocs {mkdocs[first:first + 3]} against Zensical {zensical[first:first + 3]}")


def test_the_pass_finished_zensicals_pages(zensical_site):
    """Zensical runs no hooks: everything the site adds to a page is the pass's, and is there."""
    for page in sorted(zensical_site.rglob("*.html")):
        relative = page.relative_to(zensical_site)
        if relative.parts[0] in ("embed", "assets", "code"):
            continue
        text = page.read_text(encoding="utf-8")
        assert "'aih-policy'" not in text and "script-src 'self' 'sha256-" in text, (
            f"{relative}: the policy is filled in, with the page's inline scripts' hashes")
        assert 'class="arithmatex"' not in text and 'aih-figure-slot' not in text, (
            f"{relative}: the math is MathML and every figure is in place")
        ours = [link for link in re.findall(r'<link rel="stylesheet" href="([^"]+)"', text) if "assets/stylesheets/" not in link]
        assert len(ours) == 1 and ours[0].endswith("stylesheets/site.bundle.css"), f"{relative}: one stylesheet of ours"


def test_the_heatmaps_template_is_in_every_page_and_no_file_of_its_own(built_site, zensical_site):
    """The post-build pass (finish/widgets.py) puts docs/widgets/heatmap/template.html, as the figure build filled it
    with its words (generated/snippets/heatmap-template.md), into every page, 404.html too (an embed page's script
    reads it there); neither engine publishes a widget's template or WebAssembly text as a file of its own
    (mkdocs.yml's exclude_docs)."""
    template = " ".join((ROOT / "generated/snippets/heatmap-template.md").read_text(encoding="utf-8").split())
    for site in (built_site, zensical_site):
        stray = sorted(p.relative_to(site).as_posix() for p in (site / "widgets").rglob("*") if p.suffix in (".html", ".wat"))
        assert not stray, f"{site}: a widget's template or source published on its own: {stray}"
        for page in ("404.html", "index.html", "scores/index.html", "print/index.html"):
            html = (site / page).read_text(encoding="utf-8")
            assert html.count('<template id="aih-heatmap">') == 1, f"{page}: one heatmap template"
            content = html.split('<template id="aih-heatmap">')[1].split("</template>")[0]
            assert " ".join(content.split()) == template, f"{site.name}/{page}: the heatmap's template, filled in"


def test_zensicals_site_publishes_every_download_and_the_shipped_scripts_as_mkdocs_does(built_site, zensical_site,
                                                                                       generated):
    public = generated / "public"
    for path in sorted(p for p in public.rglob("*") if p.is_file()):
        relative = path.relative_to(public)
        assert (zensical_site / relative).read_bytes() == path.read_bytes(), f"{relative}: published as the build wrote it"
    scripts = sorted(script.relative_to(built_site) for folder in SCRIPT_FOLDERS for script in (built_site / folder).rglob("*.js"))
    assert {script.parts[0] for script in scripts} == set(SCRIPT_FOLDERS), scripts
    for script in scripts:
        assert (zensical_site / script).read_bytes() == (built_site / script).read_bytes(), (
            f"{script.as_posix()}: the same minified script from either engine")
    assert (zensical_site / "stylesheets/site.bundle.css").read_bytes() == (built_site / "stylesheets/site.bundle.css").read_bytes()


def test_zensicals_print_edition_holds_every_page_once(built_site, zensical_site):
    sections = [re.findall(r'<section class="aih-print-page" id="([^"]+)"', (site / "print/index.html").read_text(encoding="utf-8"))
                for site in (built_site, zensical_site)]
    assert sections[0] == sections[1] and len(sections[1]) >= 18, "the print edition has every page, in the nav's order"
    ids = re.findall(r'\sid="([^"]+)"', (zensical_site / "print/index.html").read_text(encoding="utf-8"))
    assert len(ids) == len(set(ids)), "no id twice in the print edition"


def test_zensicals_search_index_shows_formulas_as_text(zensical_site):
    index = json.loads((zensical_site / "search.json").read_text(encoding="utf-8"))
    texts = [item["text"] for item in index["items"]]
    assert not [t for t in texts if "\\(" in t or "\\[" in t], "no LaTeX left in Zensical's search index"
    assert any("QK<sup>T</sup>" in t for t in texts), "formulas read as text with sub- and superscripts"


def test_the_search_dialog_is_named_from_its_field_whatever_the_engine():
    from finish import FinishError, theme

    material = ('<div class="md-search" data-md-component="search" role="dialog"><label></label><form>'
                '<input type="text" class="md-search__input" name="query" aria-label="搜索" placeholder="搜索"></form></div>')
    assert theme.name_the_search_dialog(material, "x.html").startswith(
        '<div class="md-search" data-md-component="search" role="dialog" aria-label="搜索">'), (
        "Material's unnamed search dialog takes the name of its field, in the page's language")
    named = '<div class="md-search" data-md-component="search" role="dialog" aria-label="Search"><button>Search</button></div>'
    assert theme.name_the_search_dialog(named, "x.html") == named, "a named dialog (Zensical's) is left as it is"
    with pytest.raises(FinishError, match="x.html: the theme's search dialog has no labelled search field"):
        theme.name_the_search_dialog('<div class="md-search" data-md-component="search" role="dialog"></div>', "x.html")


def test_zensicals_search_index_holds_what_mkdocs_leaves_out(built_site, zensical_site):
    """An accepted difference, measured: MkDocs' index leaves out long listings and tables of numbers (its search
    hook); Zensical runs no hooks, so its index holds them, and is larger. Bounded, so that it cannot grow unseen."""
    mkdocs = json.loads((built_site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    zensical = json.loads((zensical_site / "search.json").read_text(encoding="utf-8"))["items"]
    sizes = [sum(len(entry["text"]) for entry in index) for index in (mkdocs, zensical)]
    listing = "def attend("
    assert not any(listing in entry["text"] for entry in mkdocs), "MkDocs' index leaves the library's listings out"
    assert any(listing in entry["text"] for entry in zensical), "Zensical's index holds them: the difference is real"
    assert sizes[1] <= 2 * sizes[0], f"Zensical's index text ({sizes[1]:,}) stays within twice MkDocs' ({sizes[0]:,})"
