"""The built site's text as a newcomer reads it (issue 40): Home lists every page of the nav, says which
numbers are made up and where the real ones are, and no page claims the made-up matrices were trained.

Reads the site/ that `make site` built (it never builds one itself).
"""
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from figures_src.engine import BuildError
from figures_src.pages import index

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "site"


@pytest.fixture(scope="module")
def site():
    if not (SITE / "index.html").is_file():
        pytest.fail("site/ is not built: run `make site`", pytrace=False)
    return SITE


class Links(HTMLParser):
    """The links (href, text) of the first ordered list after the heading with id `heading`."""

    def __init__(self, heading):
        super().__init__(convert_charrefs=True)
        self.heading, self.state, self.links, self.href = heading, "before", [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.state == "before" and tag == "h2" and attrs.get("id") == self.heading:
            self.state = "heading"
        elif self.state == "heading" and tag == "ol":
            self.state = "list"
        elif self.state == "list" and tag == "a":
            self.href = attrs["href"]
            self.links.append([self.href, ""])

    def handle_endtag(self, tag):
        if self.state == "list" and tag == "ol":
            self.state = "done"
        elif tag == "a":
            self.href = None

    def handle_data(self, data):
        if self.state == "list" and self.href is not None:
            self.links[-1][1] += data


def text(path):
    """A page's text without tags (MathML's characters included), spaces collapsed."""
    html = re.sub(r"<(script|style|template)\b.*?</\1>", " ", path.read_text(encoding="utf-8"), flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", html).replace("&amp;", "&").split())


# ---------------------------------------------------------------- Home's list of pages (item 5)

def test_homes_list_of_pages_is_the_nav_but_home(site):
    parser = Links("the-pages")
    parser.feed((site / "index.html").read_text(encoding="utf-8"))
    listed = [(href, title.strip()) for href, title in parser.links]
    nav = [(file.removesuffix(".md") + "/", title) for title, file in index.nav_pages() if file != "index.md"]
    assert listed == nav
    assert ("learning/", "Watch it learn") in listed and ("your-sentence/", "Your sentence") in listed


def test_every_nav_page_has_a_one_line_description_on_home(site):
    home = text(site / "index.html")
    for page in index.pages_data():
        assert page["description"][1:] in home, page


def test_a_nav_page_without_a_description_fails_the_build(tmp_path, monkeypatch):
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text("site_url: !ENV [SITE_URL, 'x']\nnav:\n  - Home: index.md\n"
                                         "  - Scores: scores.md\n", encoding="utf-8")
    (tmp_path / "docs" / "index.md").write_text("---\ndescription: Home.\n---\n\n# Home\n", encoding="utf-8")
    (tmp_path / "docs" / "scores.md").write_text("# Scores\n", encoding="utf-8")
    monkeypatch.setattr(index, "ROOT", tmp_path)
    with pytest.raises(BuildError, match=r"docs/scores.md: give the page a one-line `description:`"):
        index.pages_data()


# ---------------------------------------------------------------- what is made up, what is real (item 6)

def test_home_says_early_that_the_running_example_is_made_up_and_links_the_real_pages(site):
    html = (site / "index.html").read_text(encoding="utf-8")
    paragraph = re.search(r'<p id="made-up">(.*?)</p>', html, flags=re.S)
    assert paragraph, "Home has no paragraph #made-up"
    assert "made up" in paragraph.group(1) and "not learned" in paragraph.group(1)
    links = set(re.findall(r'href="([^"]+)"', paragraph.group(1)))
    assert {"learning/", "real-heads/", "your-sentence/"} <= links
    assert html.index('id="made-up"') < html.index('id="how-to-read-this-site"'), "said before the reading guide"


def test_no_page_says_the_made_up_matrices_were_learned(site):
    for page in ("qkv", "scores", "demo"):
        found = re.findall(r"[^.]*\b(?:the model|were|was) (?:learned|trained)[^.]*", text(site / page / "index.html"))
        assert not found, (page, found)
    assert 'href="../#made-up"' in (site / "qkv" / "index.html").read_text(encoding="utf-8")
