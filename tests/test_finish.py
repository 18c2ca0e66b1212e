"""The post-build pass (finish/) on tiny sites of its own: what it refuses, and the order its jobs keep. The pass
over the real site, from either engine, is checked by tests/test_site.py (MkDocs) and tests/test_engines.py."""
from pathlib import Path

import pytest

import finish
from finish import FinishError, edition, policy, widgets
from finish.site import PLACEHOLDER, Site

ROOT = Path(__file__).resolve().parents[1]

FRAME = ('<html><head><meta http-equiv="Content-Security-Policy" content="{policy}"></head><body>'
         '<article class="md-content__inner md-typeset">{content}</article></body></html>')


def tiny_site(tmp_path, pages, placeholder=PLACEHOLDER):
    """site/ with {url: article content} pages in the theme's frame."""
    for url, content in pages.items():
        path = tmp_path / "site" / url / "index.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(FRAME.format(policy=placeholder, content=content), encoding="utf-8")
    return tmp_path / "site"


def test_a_site_the_pass_has_finished_is_refused(tmp_path):
    site = tiny_site(tmp_path, {"": "<h1>Home</h1>"}, placeholder="default-src 'self'")
    with pytest.raises(FinishError, match="finished already .* build the site again"):
        Site.open(site)


def test_every_page_with_the_placeholder_is_a_page_whatever_its_path(tmp_path):
    site = Site.open(tiny_site(tmp_path, {"": "a", "scores/": "b", "zh/scores/": "c"}))
    assert [page.url for page in site.pages] == ["", "scores/", "zh/scores/"], (
        "a page is found by the placeholder the theme writes, so a second language's pages are pages too")


def test_a_script_in_a_page_is_named_on_that_page_before_the_edition_copies_it(tmp_path):
    names = [name for name, _ in finish.JOBS]
    assert names.index("content") < names.index("edition"), (
        "the content check runs before print/ holds copies of every page, so it names the page the script is on")
    site = Site.open(tiny_site(tmp_path, {"": "<p>Home</p>", "print/": "<p>the edition</p>",
                                          "scores/": "<p>x</p><SCRIPT>1</SCRIPT>"}))
    with pytest.raises(FinishError, match=r"^scores/index.html has a <script> in its content"):
        policy.check_content(site)


def test_a_nav_entry_the_edition_cannot_read_is_named(tmp_path):
    with pytest.raises(FinishError, match=r"nav entry .*Section.* is not `Title: page.md`"):
        edition.nav_pages({"nav": [{"Home": "index.md"}, {"Section": [{"A": "a.md"}]}]})
    site = Site.open(tiny_site(tmp_path, {"": "a"}))
    with pytest.raises(FinishError, match=r"no page at masks/"):
        site.page("masks/")


def test_the_heatmaps_template_goes_into_every_page_404_too(tmp_path):
    """finish/widgets.py: the heatmap's template as the figure build filled it (snippets/heatmap-template.md of the
    page's language: generated/ for English, generated/zh/ for a zh/ page) in the empty <template> main.html
    leaves, one level deeper, in every page; 404.html too, where an embed page's script reads it."""
    empty = '\n  <template id="aih-heatmap"></template>\n'
    site_dir = tiny_site(tmp_path, {"": "Home", "scores/": "Scores"})
    for page in (site_dir / "index.html", site_dir / "scores" / "index.html"):
        page.write_text(page.read_text(encoding="utf-8").replace("</body>", empty + "</body>"), encoding="utf-8")
    (site_dir / "404.html").write_text((site_dir / "index.html").read_text(encoding="utf-8"), encoding="utf-8")
    zh = site_dir / "zh" / "scores" / "index.html"
    zh.parent.mkdir(parents=True)
    zh.write_text((site_dir / "scores" / "index.html").read_text(encoding="utf-8"), encoding="utf-8")
    generated = tmp_path / "generated"
    templates = {generated: "<p>\n  the words\n</p>\n", generated / "zh": "<p>\n  词\n</p>\n"}
    for folder, markup in templates.items():
        (folder / "snippets").mkdir(parents=True)
        (folder / widgets.TEMPLATE).write_text(markup, encoding="utf-8")
    site = Site.open(site_dir, generated=generated)
    assert [page.url for page in site.pages] == ["404.html", "", "scores/", "zh/scores/"]
    widgets.run(site)
    for page in site.pages:
        template = templates[generated / "zh" if page.url.startswith("zh/") else generated]
        content = page.html.split('<template id="aih-heatmap">\n', 1)[1].split("  </template>", 1)[0]
        assert content == "".join(f"    {line}" if line.strip() else line for line in template.splitlines(True)), page.url
    assert widgets.filled('<b>\n\t<template id="aih-heatmap"></template>\n</b>', "<p>\n  x\n</p>\n", "x.html") == (
        '<b>\n\t<template id="aih-heatmap">\n\t  <p>\n\t    x\n\t  </p>\n\t</template>\n</b>')
    with pytest.raises(FinishError, match=r'^x\.html: 0 empty <template id="aih-heatmap"> .* overrides/main.html'):
        widgets.filled("<b></b>", "<p></p>\n", "x.html")
    names = [name for name, _ in finish.JOBS]
    assert names.index("widgets") < names.index("edition"), "the print edition's page gets it like any other"
