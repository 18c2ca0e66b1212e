"""The whole site: a strict build passes, broken links fail it, and builds are byte-for-byte reproducible.

The built site is the session's shared one (tests/conftest.py: `make site`'s site/ and generated/). Two builds
more, each once: the site again without the build cache (the reproducibility test), and every figure from
scratch (`fresh_figures`). A broken page fails a strict build of a tiny docs tree (`tiny_docs`), with the real
mkdocs.yml's theme, hooks and extensions.
"""
import gzip
import filecmp
import html
import json
from html.parser import HTMLParser
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from finish import details

ROOT = Path(__file__).resolve().parents[1]
EPOCH = "1700000000"


def run(args, **kwargs):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", **kwargs.pop("env", {}))
    return subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, **kwargs)


def mkdocs_build(site_dir, config=None, env=None):
    # Never --quiet: it hides the warnings that --strict turns into a failure.
    args = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)]
    if config:
        args += ["--config-file", str(config)]
    return run(args, env=env or {})


@pytest.fixture(scope="module")
def site(built_site):
    """The shared site/, built by `make site` with mkdocs build --strict."""
    return built_site


def test_strict_build_passes(site):
    assert (site / "index.html").is_file()
    assert (site / "sitemap.xml").is_file()


def test_every_example_is_published_at_its_stable_url(site, generated):
    generated = sorted((generated / "public" / "examples").glob("*.json"))
    assert generated, "no worked example was generated"
    for path in generated:
        assert (site / "examples" / path.name).read_bytes() == path.read_bytes()


def pages(site):
    return sorted(p for p in site.rglob("*.html") if "assets" not in p.parts)


def in_edition(page, site):
    """A page's path in its language's edition: site/zh/print/index.html -> ("print", "index.html"), as the
    English site/print/index.html."""
    parts = page.relative_to(site).parts
    return parts[1:] if parts[0] == "zh" else parts


def test_ids_are_unique_on_every_page(site):
    for page in pages(site):
        ids = Counter(re.findall(r'\sid="([^"]+)"', page.read_text()))
        duplicates = [i for i, n in ids.items() if n > 1]
        assert not duplicates, f"{page.relative_to(site)}: duplicate ids {duplicates[:10]}"


def test_figures_are_inlined_verbatim_and_not_inside_a_paragraph(site, generated):
    inlined = 0
    for page in pages(site):
        text = page.read_text()
        assert "aih-figure-slot" not in text, f"{page}: a figure placeholder left in"
        assert not re.search(r"<p>\s*<figure", text), f"{page}: a <figure> inside a <p>"
        if {"print", "embed"} & set(page.relative_to(site).parts):
            continue  # the print edition's copies and the embed pages: tests/browser/test_takeaway.py
        base = "../" * (len(page.relative_to(site).parts) - 1)  # the Download menu's links, from the page
        lang = "zh" if page.relative_to(site).parts[0] == "zh" else ""  # a zh page's figures are generated/zh/'s
        for name in re.findall(r'<figure class="aih-figure[^"]*" id="fig-([^"]+)"', text):
            fragment = (generated / lang / "fragments" / f"{name}.html").read_text().rstrip("\n")

            def download(link):  # the page's language's own file (zh/figures/x.svg) where it has one (finish/figures.py)
                own = f"{lang}/{link.group(1)}"
                return f' href="{base}{own if lang and (site / own).is_file() else link.group(1)}"'

            fragment = re.sub(r' href="((?:figures|examples)/[^"]+)"', download, fragment)
            assert details.lazy(fragment) in text, f"{page}: figure {name} differs from generated/fragments/{name}.html"
            inlined += 1
    assert inlined, "no page shows a figure"


def test_pages_have_a_language_a_description_and_no_unrendered_math(site):
    for page in pages(site):
        text = page.read_text()
        lang = "zh" if page.relative_to(site).parts[0] == "zh" else "en"  # the Chinese edition is under zh/
        assert f'<html lang="{lang}"' in text, f"{page.relative_to(site)}: <html lang=\"{lang}\">, its edition's"
        assert '<meta name="description"' in text, page
        assert 'class="arithmatex"' not in text, f"{page}: math left for JavaScript"
        assert "\\(" not in re.sub(r"<(code|pre|script)[\s>].*?</\1>", "", text, flags=re.S), f"{page}: raw LaTeX"


def test_the_search_index_shows_formulas_as_text(site):
    """Search results quote the page: a formula there reads as text with sub- and superscripts, not as the
    LaTeX typed in the Markdown, and none of hooks/search_text.py's placeholders is left in a page."""
    import json

    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    text = " ".join(doc["title"] + " " + doc["text"] for doc in index["docs"])
    assert "\\(" not in text and "\\[" not in text and "aih-math-slot" not in text
    assert "QK<sup>T</sup>" in text and "1/√d<sub>k</sub>" in text and "becomes −∞," in text
    assert not [page for page in pages(site) if "aih-math-slot" in page.read_text()]


@pytest.mark.parametrize("latex, display, text", [
    (r"QK^\mathsf{T}", False, "QK<sup>T</sup>"),
    (r"\sqrt{d_k}", False, "√d<sub>k</sub>"),
    (r"-\infty", False, "−∞"),
    (r"a = -b", False, "a = −b"),
    (r"\frac{QK^{\text{T}}}{\sqrt{d_k}}", False, "(QK<sup>T</sup>)/√d<sub>k</sub>"),
    (r"\sqrt{d_k + 1}", False, "√(d<sub>k</sub> + 1)"),
    (r"x^2_i < y", False, "x<sub>i</sub><sup>2</sup> &lt; y"),
    (r"d_{\text{model}}", False, "d<sub>model</sub>"),
    (r"\hat{x}", False, "x"),
    (r"H(w) = -\sum_j w_j \log w_j", True, "H(w) = −∑<sub>j</sub>w<sub>j</sub>log w<sub>j</sub>"),
    (r"\sum_{c=1}^{d_k} q_{ic}", True, "∑<sub>c = 1</sub><sup>d<sub>k</sub></sup>q<sub>ic</sub>"),
    (r"\operatorname{softmax}\!\left(x\right)", True, "softmax(x)"),
])
def test_a_formula_for_the_search_index(latex, display, text):
    from finish import mathml

    assert mathml.search_text(mathml._convert(latex, display, "test")) == text


def test_a_formula_without_search_text_fails_the_build_naming_it():
    """latex2mathml leaves a < in \\text{} unescaped: not XML. The build stops and says where."""
    from types import SimpleNamespace

    from hooks import search_text
    from mkdocs.exceptions import PluginError

    page = SimpleNamespace(file=SimpleNamespace(src_uri="scores.md"))
    with pytest.raises(PluginError, match=r"scores\.md: no search text for the formula '\\\\text\{a < b\}'"):
        search_text.on_page_content(r'<p><span class="arithmatex">\(\text{a < b}\)</span></p>', page, {}, None)


class _Loads(HTMLParser):
    """The URLs a page makes the browser fetch by itself (not the links a reader may click)."""

    FETCHED = {"script": "src", "img": "src", "iframe": "src", "source": "src", "video": "src", "audio": "src",
               "embed": "src", "object": "data", "image": "href", "use": "href"}

    def __init__(self):
        super().__init__()
        self.urls = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and not {"canonical", "alternate"} & set((attrs.get("rel") or "").split()):
            self.urls.append(attrs.get("href") or "")
        elif tag in self.FETCHED:
            self.urls.append(attrs.get(self.FETCHED[tag]) or attrs.get("xlink:href") or "")
        self.urls.extend(re.findall(r"url\(['\"]?([^'\")]+)", attrs.get("style") or ""))


def test_no_page_loads_anything_from_another_host(site):
    for page in pages(site):
        parser = _Loads()
        parser.feed(page.read_text())
        foreign = [url for url in parser.urls if re.match(r"(https?:)?//", url)]
        assert not foreign, f"{page.relative_to(site)} loads from another host: {foreign}"


def isolated_config(tmp_path, docs_dir, nav=None):
    """mkdocs.yml with its docs_dir replaced and every relative path made absolute; `nav` (Markdown text of
    the nav's entries) in place of the real one."""
    text = (ROOT / "mkdocs.yml").read_text()
    text = re.sub(r"^docs_dir: .*$", f"docs_dir: {docs_dir}", text, flags=re.M)
    text = re.sub(r"^site_dir: .*$", f"site_dir: {tmp_path / 'site'}", text, flags=re.M)
    text = re.sub(r"^  custom_dir: (.*)$", lambda m: f"  custom_dir: {ROOT / m.group(1)}", text, flags=re.M)
    text = re.sub(r"^  - (hooks/.*\.py)$", lambda m: f"  - {ROOT / m.group(1)}", text, flags=re.M)
    text = text.replace('base_path: ["."]', f"base_path: ['{ROOT}']")
    if nav is not None:
        text = re.sub(r"^nav:\n(?:  - .*\n)+", f"nav:\n{nav}", text, flags=re.M)
    config = tmp_path / "mkdocs.yml"
    config.write_text(text)
    return config


# A docs tree of two short pages with what the site's pages hold: math (inline and display), a code block, a
# table, links and anchors across pages, the notation table every page links to; and the site's stylesheets,
# scripts and print edition, which the hooks bundle, minify and fill.
TINY_PAGES = {
    "index.md": r"""# A tiny page

Scores are \(QK^\mathsf{T}\), scaled by \(1/\sqrt{d_k}\) and made weights by

\[
\operatorname{softmax}\!\left(\frac{QK^{\mathsf{T}}}{\sqrt{d_k}}\right)
\]

```python
def softmax(x):
    return x
```

## Notation

| Symbol | Meaning |
| --- | --- |
| \(d_k\) | the width of a key |

On [the other page](other.md#a-heading), \(-\infty\) becomes 0.
""",
    "other.md": "# Another page\n\n## A heading\n\nBack [home](index.md#notation).\n",
}
TINY_NAV = "  - Home: index.md\n  - Other: other.md\n"


def tiny_docs(tmp_path):
    """(mkdocs.yml, docs folder) of the tiny tree under tmp_path."""
    docs = tmp_path / "docs"
    for folder in ("stylesheets", "javascripts", "widgets"):
        shutil.copytree(ROOT / "docs" / folder, docs / folder)
    shutil.copy2(ROOT / "docs" / "print.md", docs / "print.md")
    for name, text in TINY_PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    return isolated_config(tmp_path, docs, nav=TINY_NAV), docs


def test_the_tiny_docs_tree_builds_strict(tmp_path, generated):
    """The tree the broken pages below start from passes as it is: each failure is the broken line's."""
    config, _ = tiny_docs(tmp_path)
    result = mkdocs_build(tmp_path / "site", config=config)
    assert result.returncode == 0, result.stderr
    assert "<math" in (tmp_path / "site" / "index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("bad_markdown, complaint", [
    ("[a page that is not there](nowhere.md)", "nowhere.md"),
    ("[a heading that is not there](index.md#no-such-heading)", "no-such-heading"),
    ('--8<-- "generated/figures/no-such-figure.html"', "no-such-figure"),
    ("$\\frac{1}{$", "formula"),
])
def test_strict_build_fails_on_a_broken_link_anchor_snippet_or_formula(tmp_path, generated, bad_markdown, complaint):
    config, docs = tiny_docs(tmp_path)
    index = docs / "index.md"
    index.write_text(index.read_text() + f"\n\n{bad_markdown}\n")
    result = mkdocs_build(tmp_path / "site", config=config)
    assert result.returncode != 0, f"a broken {complaint} did not fail the build"
    assert complaint in result.stderr + result.stdout


def build_day(site):
    """The SOURCE_DATE_EPOCH that gives a build the date `site` was built on: mkdocs stamps the day (midnight
    UTC) in sitemap.xml.gz's gzip header, and the day is all of the build's time a page holds."""
    with gzip.open(site / "sitemap.xml.gz") as sitemap:
        sitemap.read(1)
        return str(sitemap.mtime)


def test_two_builds_with_source_date_epoch_are_byte_identical(site, tmp_path):
    """The shared site/ was built with the .cache/ of Pygments and MathML output (in a fresh clone, the build
    that wrote it); this one is built without it, on the same day: the two agree byte for byte."""
    again = tmp_path / "site"
    result = mkdocs_build(again, env={"SOURCE_DATE_EPOCH": build_day(site), "AIH_BUILD_CACHE": "off"})
    assert result.returncode == 0, result.stderr
    differences = compare_trees(site, again)
    assert not differences, f"files differ between two builds: {differences[:10]}"


def test_builds_with_and_without_the_cache_are_byte_identical(tmp_path, generated):
    """The tiny tree built without the cache, then twice with it (the second certainly reads it back): all three
    agree byte for byte."""
    config, _ = tiny_docs(tmp_path)
    builds = [tmp_path / "off", tmp_path / "on", tmp_path / "again"]
    for site_dir, cache in zip(builds, ("off", "on", "on")):
        result = mkdocs_build(site_dir, config=config, env={"SOURCE_DATE_EPOCH": EPOCH, "AIH_BUILD_CACHE": cache})
        assert result.returncode == 0, result.stderr
    for other in builds[1:]:
        differences = compare_trees(builds[0], other)
        assert not differences, f"files differ between two builds: {differences[:10]}"


def test_figures_are_byte_identical_across_builds(fresh_figures, generated):
    """Every figure built from scratch agrees byte for byte with generated/ (make site's build), and the two
    manifests name the same items, pages and outputs with the same SHA-256. Not the same recorded inputs: an
    item's inputs include what earlier items of its page imported in the same process (engine/inputs.py), so an
    item rebuilt alone records fewer; either way they hold everything it read."""
    assert_same_build(generated, fresh_figures, "en", folders_but={"zh"})  # generated/zh/: the Chinese build's


def test_the_chinese_figures_are_byte_identical_across_builds(fresh_figures_zh, generated):
    """The same for the Chinese build (--lang zh), from scratch into a folder of its own, against generated/zh/."""
    assert_same_build(generated / "zh", fresh_figures_zh, "zh")


def assert_same_build(built, fresh, lang, folders_but=()):
    differences = compare_trees(built, fresh, but=".manifest.json", folders_but=folders_but)
    assert not differences, f"{lang} figures differ between two builds: {differences}"
    ours, theirs = (without_inputs(json.loads((tree / ".manifest.json").read_text())) for tree in (built, fresh))
    assert ours == theirs, sorted(name for name in ours["items"] if ours["items"][name] != theirs["items"].get(name))


def without_inputs(manifest):
    return {**manifest, "items": {name: {key: value for key, value in item.items() if key != "inputs"}
                                  for name, item in manifest["items"].items()}}


def compare_trees(a, b, but=None, folders_but=()):
    """The files that differ between folders a and b, or are in one only; `but`: a file name left out;
    `folders_but`: folders at the top left out (another language's build, in generated/<lang>/)."""
    def files(tree):
        return sorted(p.relative_to(tree) for p in tree.rglob("*") if p.is_file() and p.name != but
                      and p.relative_to(tree).parts[0] not in folders_but)

    left, right = files(a), files(b)
    if left != right:
        return sorted(set(map(str, left)) ^ set(map(str, right)))
    return [str(p) for p in left if not filecmp.cmp(a / p, b / p, shallow=False)]


# ---------------------------------------------------------------- the text a reader meets: no broken TeX


class ReaderText(HTMLParser):
    """A built page's text as a reader meets it, in pieces: the prose (collapsed tables and <noscript> copies
    included, since HTMLParser reads a noscript's markup), the names screen readers speak (aria-label, alt,
    title), an SVG's <text> and the comments matplotlib keeps its labels' TeX in, and each <math> element's
    text apart: MathML sets a broken command as single letters ("3", "i", "m", "e", "s", "6")."""

    SPOKEN = ("aria-label", "alt", "title")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.prose, self.math = [], []
        self._skip, self._formula = 0, None

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("script", "style")
        if tag == "math":
            self._formula = []
        self.prose += [value for name, value in attrs if name in self.SPOKEN and value]

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style") and self._skip > 0
        if tag == "math" and self._formula is not None:
            self.math.append("".join(self._formula))
            self._formula = None

    def handle_data(self, data):
        if not self._skip:
            (self._formula if self._formula is not None else self.prose).append(data)

    def handle_comment(self, data):
        self.prose.append(data)


# What is left of a TeX command whose backslash and first letter became a control character in a Python string
# that is not raw (\t, \f, \r, \b, \a, \v, \n): \times, \text, \frac, \rightarrow, \beta, \alpha, \vec,
# \varepsilon, \neq, \nabla. In prose a remnant starts a word (so "times" and "lambda" do not count); in a
# formula the letters run into their neighbours, and no formula on the site spells these letters.
BROKEN_IN_PROSE = re.compile(
    r"(?<![A-Za-z\\])(?:imes|ightarrow|lpha|arepsilon|abla|eq)\b|(?<![A-Za-z\\])(?:ext|rac|eta|ec)\{")
BROKEN_IN_MATH = re.compile(r"imes|ext|rac|ightarrow|lpha|arepsilon|abla|eq|heta|orall")
CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")  # any C0 control character but the newline


def reader_texts(site):
    """(file, ReaderText) for every page, print/ and embed/ included, every SVG download and every search
    index entry."""
    for path in pages(site) + sorted(site.glob("figures/*.svg")):
        reader = ReaderText()
        reader.feed(path.read_text(encoding="utf-8"))
        yield path.relative_to(site), reader
    for doc in json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]:
        reader = ReaderText()
        reader.feed(doc["title"] + " " + doc["text"])
        yield f"search index: {doc['location']}", reader


def test_no_page_holds_a_control_character_or_a_broken_tex_command(site):
    """A \\times typed in a non-raw Python string reached multi-head/ as "3 <tab>imes 6": MathML showed
    the letters i, m, e, s. No built text may hold a control character or such a remnant."""
    files = [p for p in site.rglob("*") if p.suffix in (".html", ".svg", ".json", ".md", ".bib", ".csv", ".txt")
             and "assets" not in p.parts]
    for path in files:
        found = CONTROL.search(path.read_text(encoding="utf-8"))
        assert not found, f"{path.relative_to(site)}: a control character {found.group(0)!r}"
    checked = 0
    for where, reader in reader_texts(site):
        prose = " ".join(reader.prose)
        broken = BROKEN_IN_PROSE.search(prose)
        assert not broken, f"{where}: a broken TeX command in {prose[max(0, broken.start() - 60):broken.end() + 20]!r}"
        for formula in reader.math:
            assert not BROKEN_IN_MATH.search(formula), f"{where}: a broken TeX command in the formula {formula!r}"
        checked += len(reader.math)
    assert checked > 500, "too few formulas found: is the page text read at all?"


# ---------------------------------------------------------------- "row 2 (“sing”)": the token at that position


def token_sequences(site):
    """{example id: {"rows": [sequences], "columns": [sequences]}} from the published examples: the tokens a
    row (a query) and a column (a key) are counted in; a cross-attention example's keys are its key_tokens,
    and a batch holds one sequence per sentence."""
    sequences = {}
    for path in sorted((site / "examples").glob("*.json")):
        example = json.loads(path.read_text(encoding="utf-8"))
        rows = [example["tokens"]] if "tokens" in example else []
        rows += example.get("batch_tokens", [])
        sequences[path.stem] = {"rows": rows, "columns": [example["key_tokens"]] if "key_tokens" in example else rows}
    return sequences


AXES = {"row": "rows", "query": "rows", "token": "rows", "position": "rows", "head": "rows", "layer": "rows",
        "column": "columns", "key": "columns"}
_AXIS = r"(row|column|query|key|head|layer|token|position)"
NAMED_POSITIONS = [  # (pattern, which groups hold the axis, the 1-based position and the token)
    (re.compile(rf"\b{_AXIS}\s+(\d+)\s+\(“([^”]+)”\)", re.I), (1, 2, 3)),  # row 2 (“sing”)
    (re.compile(rf"“([^”]+)”\s+\({_AXIS}\s+(\d+)\)", re.I), (2, 3, 1)),  # query “on” (row 4)
    (re.compile(rf"“([^”]+)”\s+is\s+{_AXIS}\s+(\d+)\b", re.I), (2, 3, 1)),  # “animal” is column 3
]
NAMED_RANGE = re.compile(r"\b(rows|columns|queries|keys|tokens|positions)\s+(\d+)\s+(to|and)\s+(\d+)\s+\(([^()]+)\)", re.I)


def sections(page_html):
    """A page cut at each <h1> and <h2>: the parts a sentence and the examples it speaks of share."""
    page_html = re.sub(r"<(script|style)\b.*?</\1>", "", page_html, flags=re.S)
    return re.split(r"(?=<h[12][\s>])", page_html)


def reader_words(section_html):
    """The section's text: tags out (a token in <code> stays inside its quotes), entities decoded."""
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", section_html)))


def test_every_row_or_column_named_with_its_token_names_the_token_at_that_position(site):
    """"Row 1 (“sing”)" stood beside tables where "sing" is row 2. Wherever the text, a collapsed table or the
    print edition names a position with its token (row 2 (“sing”), query “on” (row 4), keys 1 to 3 (the, cat,
    sat)), the token is at that position, counted from 1, in an example the same section shows (or, when the
    section shows none, one the page shows)."""
    examples = token_sequences(site)
    mention = re.compile(r"(?<![\w-])(" + "|".join(re.escape(name) for name in sorted(examples, key=len, reverse=True)) + r")(?![\w-])")
    checked = 0
    for page in pages(site):
        text = page.read_text(encoding="utf-8")
        on_page = set(mention.findall(text))
        for section in sections(text):
            shown = set(mention.findall(section)) or on_page
            words = reader_words(section)
            claims = [(m.group(g[0]).lower(), int(m.group(g[1])), [m.group(g[2])], m.group(0))
                      for pattern, g in NAMED_POSITIONS for m in pattern.finditer(words)]
            for m in NAMED_RANGE.finditer(words):
                axis = m.group(1).lower().rstrip("s").replace("querie", "query")
                first, last = int(m.group(2)), int(m.group(4))
                positions = range(first, last + 1) if m.group(3).lower() == "to" else (first, last)
                tokens = [token.strip() for token in m.group(5).split(",")]
                claims += [(axis, position, [token], m.group(0)) for position, token in zip(positions, tokens)]
                assert len(tokens) == len(positions), f"{page.relative_to(site)}: {m.group(0)!r} lists {len(tokens)} tokens"
            for axis, position, (token,), said in claims:
                candidates = [sequence for name in shown for sequence in examples[name][AXES[axis]]]
                assert any(0 < position <= len(sequence) and sequence[position - 1] == token for sequence in candidates), (
                    f"{page.relative_to(site)}: {said!r}, but in {sorted(shown)} {axis} {position} is "
                    f"{sorted({s[position - 1] for s in candidates if 0 < position <= len(s)})}")
                checked += 1
    assert checked >= 10, f"only {checked} positions named with their token: is the text read at all?"


def test_a_figure_that_says_how_its_panels_sit_says_it_right(site):
    """multi-head/'s heads were called "side by side" in a figure that stacks them. The SVG is the same on
    a phone and a desktop, so the first cell of each panel says where the panel sits."""
    checked = 0
    for page in pages(site):
        for match in re.finditer(r'<figure\b[^>]*\bid="fig-([a-z0-9-]+)".*?</figure>', page.read_text(encoding="utf-8"), re.S):
            name, figure = match.group(1), match.group(0)
            corners = [tuple(map(float, xy)) for xy in re.findall(
                rf'id="{name}-[a-z0-9]+-cell-0-0" d="M ([\d.]+) ([\d.]+) ', figure)]
            words = html.unescape(" ".join(re.findall(r"<(?:title|figcaption)\b[^>]*>(.*?)</(?:title|figcaption)>", figure, re.S)))
            if len(corners) < 2 or not re.search(r"side by side|one above the other", words):
                continue
            xs, ys = {x for x, _ in corners}, {y for _, y in corners}
            layout = "side by side" if len(ys) == 1 and len(xs) == len(corners) else \
                "one above the other" if len(xs) == 1 and len(ys) == len(corners) else "neither"
            said = set(re.findall(r"side by side|one above the other", words))
            assert said == {layout}, f"{page.relative_to(site)}: figure {name} says {sorted(said)}; its panels sit {layout}"
            checked += 1
    assert checked, "no figure says how its panels sit"


class OutsideCode(HTMLParser):
    """The text of a page's body that is not code: outside <code>, <pre>, <script> and <style> (and the <head>,
    whose <title> a tab shows as plain text)."""

    CODE = ("code", "pre", "script", "style", "head")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth, self.text = 0, []

    def handle_starttag(self, tag, attrs):
        self.depth += tag in self.CODE

    def handle_endtag(self, tag):
        self.depth -= tag in self.CODE and self.depth > 0

    def handle_data(self, data):
        if not self.depth:
            self.text.append(data)


def test_code_names_that_count_from_0_stand_as_code_and_cite_says_so(site):
    """An ID or figure name with a number in it (`multi-head-h0` beside "head 1") is shown as code, and cite/
    says once that code names count from 0 while the text counts from 1."""
    names = {path.stem for path in (site / "examples").glob("*.json")} | {path.stem for path in (site / "figures").glob("*.svg")}
    numbered = sorted((name for name in names if re.search(r"\d$", name)), key=len, reverse=True)
    assert len(numbered) > 10
    named = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, numbered)) + r")(?![\w-])")
    for page in pages(site):
        reader = OutsideCode()
        reader.feed(page.read_text(encoding="utf-8"))
        loose = sorted(set(named.findall(" ".join(reader.text))))
        assert not loose, f"{page.relative_to(site)}: {loose[:5]} outside <code>"
    cite = OutsideCode()
    cite.feed((site / "cite" / "index.html").read_text(encoding="utf-8"))
    words = " ".join(" ".join(cite.text).split())
    assert "they count from 0, while the text counts from 1" in words


def load_make_pdf():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_pdf", ROOT / "scripts" / "make_pdf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_pdf_link_shows_only_once_make_pdf_has_written_the_pdf(site, tmp_path):
    """Only `make pdf` (the Pages workflow) writes the PDF: a site built without it must not link to it. Once it
    has, the link shows, and it reaches the PDF from its page."""
    make_pdf = load_make_pdf()
    carrying = [page for page in pages(site) if make_pdf.HIDDEN_LINK in page.read_text(encoding="utf-8")]
    assert {in_edition(page, site)[0] for page in carrying} == {"cite", "print"}
    assert not (site / make_pdf.PDF_NAME).exists()
    for page in carrying:
        text = page.read_text(encoding="utf-8")
        assert "attention-is-a-heatmap.pdf\"" not in text, f"{page}: a site without the PDF links no PDF"
        assert re.search(re.escape(make_pdf.HIDDEN_LINK) + r"[^<]*\s*" + re.escape(make_pdf.UNSET_ADDRESS), text), (
            f"{page}: the link waits, without its address, in the hidden span")
    copy = tmp_path / "site"
    for page in carrying:
        (copy / page.relative_to(site)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(page, copy / page.relative_to(site))
    with pytest.raises(FileNotFoundError, match="attention-is-a-heatmap.pdf does not exist"):
        make_pdf.show_pdf_link(copy)
    (copy / make_pdf.PDF_NAME).write_bytes(b"%PDF-1.7")
    assert sorted(make_pdf.show_pdf_link(copy)) == sorted(copy / page.relative_to(site) for page in carrying)
    for page in carrying:
        text = (copy / page.relative_to(site)).read_text(encoding="utf-8")
        assert make_pdf.HIDDEN_LINK not in text and make_pdf.SHOWN_LINK in text
        up = "../" * (len(page.relative_to(site).parts) - 1)  # zh/cite/: ../../
        assert f'<a href="{up}attention-is-a-heatmap.pdf">' in text, f"{page}: the shown link reaches the PDF from its folder"


def test_collapsed_numbers_and_listings_wait_in_a_noscript_that_holds_them_whole(site):
    """Every numbers table and source listing is in the page, inside a <noscript class="aih-lazy"> right after
    its <summary>: rendered as is without JavaScript, parsed on first opening with it (site.js)."""
    waiting = 0
    for page in pages(site):
        if in_edition(page, site)[0] == "print":
            continue  # the print edition holds every table open for the printer (finish/edition.py)
        text = page.read_text()
        for block in re.findall(r'<details class="(?:aih-data|example)">.*?</details>', text, re.S):
            assert re.fullmatch(r'<details class="[a-z-]+">\s*<summary>.*?</summary><noscript class="aih-lazy">.*</noscript></details>',
                                block, re.S), f"{page}: a collapsed block not waiting in a noscript: {block[:200]}"
            assert ("<table" in block) or ('class="highlight"' in block), f"{page}: {block[:200]}"
            waiting += 1
    assert waiting >= 30


def test_every_page_links_one_stylesheet_holding_every_extra_css_file_in_order(site):
    import yaml
    from finish import stylesheet

    with open(ROOT / "mkdocs.yml", encoding="utf-8") as config:
        parts = yaml.load(config, Loader=yaml.BaseLoader)["extra_css"]  # BaseLoader: leaves the !!python tags be
    bundle = (site / stylesheet.BUNDLE).read_text(encoding="utf-8")
    # each file's minified rules, in mkdocs.yml's order: the cascade is the one the separate files had
    starts = [bundle.index(stylesheet.bundle(ROOT / "docs", [part]).strip()) for part in parts]
    assert starts == sorted(starts) and len(parts) >= 8
    for page in site.rglob("index.html"):
        if "embed" in page.relative_to(site).parts:
            continue
        links = re.findall(r'<link rel="stylesheet" href="([^"]+)"', page.read_text(encoding="utf-8"))
        ours = [link for link in links if "/assets/stylesheets/" not in "/" + link]
        assert len(ours) == 1 and ours[0].endswith(stylesheet.BUNDLE), f"{page}: {links}"


def test_every_page_defers_the_themes_bundle_and_runs_site_js_after_it(site):
    """overrides/main.html defers the theme's bundle, so the page is laid out once before it runs; it must
    still run before site.js, which subscribes to the bundle's document$."""
    checked = 0
    for page in pages(site):
        scripts = re.findall(r"<script\b[^>]*\bsrc=[^>]*>", page.read_text(encoding="utf-8"))
        if "embed" in page.relative_to(site).parts:
            continue  # a bare page with embed.js only, no theme
        theme = [k for k, tag in enumerate(scripts) if "/javascripts/bundle." in tag]
        ours = [k for k, tag in enumerate(scripts) if "javascripts/site.js" in tag]
        assert len(theme) == 1 and " defer" in scripts[theme[0]], f"{page.relative_to(site)}: {scripts}"
        if in_edition(page, site)[0] == "print":
            assert not ours  # the print edition runs no widget (finish/edition.py)
        else:
            assert len(ours) == 1 and theme[0] < ours[0] and 'type="module"' in scripts[ours[0]], scripts
        checked += 1
    assert checked > 15


def test_every_markdown_table_arrives_wrapped_so_the_themes_script_moves_none(site):
    """finish/tables.py: the theme's script wraps each table:not([class]) at load (a restyle of the whole article);
    the build writes the same wrapper and marks the table, so no page, not even inside a <noscript>, has one left."""
    wrapped = 0
    for page in pages(site):
        html = page.read_text(encoding="utf-8")
        bare = re.findall(r"<table(?![^>]*\bclass=)[^>]*>", html)
        assert not bare, f"{page.relative_to(site)}: a table the theme's script would move: {bare[0]}"
        ours = len(re.findall(r'<table class="aih-table"[ >]', html))  # a table of numbers also data-search-exclude
        assert ours == len(re.findall(r'<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'
                                      r'<table class="aih-table"[ >]', html)), page.relative_to(site)
        wrapped += ours
    assert wrapped > 50


def test_the_table_job_wraps_only_markdowns_bare_tables():
    from finish import tables

    html = '<p>x</p><table>\n<tr><td>1</td></tr>\n</table><table class="aih-numbers"><tr><td>2</td></tr></table>'
    assert tables.wrap_tables(html) == (
        '<p>x</p><div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="aih-table">\n'
        '<tr><td>1</td></tr>\n</table></div></div><table class="aih-numbers"><tr><td>2</td></tr></table>')


def css_rules(css):
    """(at-rule or "", selector, declarations) of every style rule in a minified stylesheet, one level of
    @media deep; selectors and declarations with the white space a minifier may keep or drop taken out."""
    rules, opened, position = [], [], 0  # opened: the preludes of the blocks we are in
    for brace in re.finditer(r"[{}]", css):
        text = css[position:brace.start()].strip()
        position = brace.end()
        if brace.group() == "{":
            opened.append(text)
            continue
        prelude = opened.pop()
        if not prelude.startswith("@"):
            at = next((outer for outer in reversed(opened) if outer.startswith("@")), "")
            rules.append((re.sub(r"\s+", " ", at), re.sub(r"\s*([>+~,])\s*", r"\1", prelude),
                          tuple(re.sub(r"\s*:\s*", ":", d.strip()) for d in text.split(";") if d.strip())))
    return rules


def test_the_aih_table_rules_are_the_themes_table_rules(site):
    """site.css styles .aih-table (finish/tables.py) with the theme's rules for table:not([class]): every one of
    those, with the selector changed, must be in our stylesheet, so a new theme version cannot drift from it."""
    import material

    theme_css, = (Path(material.__file__).parent / "templates/assets/stylesheets").glob("main.*.min.css")
    theirs = [(at, selector.replace("table:not([class])", "table.aih-table"), declarations)
              for at, selector, declarations in css_rules(theme_css.read_text(encoding="utf-8"))
              if "table:not([class])" in selector]
    ours = set(css_rules((site / "stylesheets" / "site.bundle.css").read_text(encoding="utf-8")))
    assert len(theirs) >= 10
    missing = [rule for rule in theirs if rule not in ours]
    assert not missing, f"site.css lacks the theme's table rules (as .aih-table): {missing}"


# For positions in the theme's bundle (0-based line, column): the original source, line and column its map gives.
ORIGINAL_POSITIONS = """
const {SourceMap} = require("node:module"), fs = require("fs");
const [mapFile, positions] = process.argv.slice(1);
const map = new SourceMap(JSON.parse(fs.readFileSync(mapFile, "utf8")));
console.log(JSON.stringify(JSON.parse(positions).map(([line, column]) => {
  const {originalSource, originalLine, originalColumn} = map.findEntry(line, column);
  return [originalSource, originalLine, originalColumn];
})));
"""


def test_the_themes_bundle_ships_with_the_compile_hint_and_a_map_that_still_points_home(site):
    """finish/scripts.py puts `//# allFunctionsCalledOnLoad` above the theme's bundle: the rest of the file
    is the theme's, one line down, and each place in it maps to the same original source as in the theme's."""
    import material

    from finish.scripts import HINT

    theirs, = (Path(material.__file__).parent / "templates/assets/javascripts").glob("bundle.*.min.js")
    ours = site / "assets" / "javascripts" / theirs.name
    assert ours.read_text(encoding="utf-8") == HINT + theirs.read_text(encoding="utf-8")
    lines = theirs.read_text(encoding="utf-8").splitlines()
    # every 997th character of the code, and the start of each of a few names the map knows
    places = [(line, column) for line, text in enumerate(lines) for column in range(0, len(text), 997)
              if not text.startswith("//# sourceMappingURL")]
    places += [(line, text.index(name)) for name in ("sitemap.xml", "DOMContentLoaded", "__md_get")
               for line, text in enumerate(lines) if name in text]
    assert len(places) > 100

    def originals(map_file, shift):
        result = subprocess.run(["node", "-e", ORIGINAL_POSITIONS, str(map_file),
                                 json.dumps([[line + shift, column] for line, column in places])],
                                capture_output=True, text=True, check=True)
        return json.loads(result.stdout)

    before = originals(theirs.with_name(theirs.name + ".map"), 0)
    assert sum(source is not None for source, _, _ in before) > 100
    assert originals(ours.with_name(ours.name + ".map"), 1) == before


def test_the_compile_hint_is_added_once(tmp_path):
    from finish.scripts import HINT, add_hint

    bundle, source_map = tmp_path / "bundle.min.js", tmp_path / "bundle.min.js.map"
    bundle.write_text("var a=1;\n")
    source_map.write_text('{"version": 3, "mappings": "AAAA"}')
    for _ in range(2):
        add_hint(bundle)
        assert bundle.read_text() == HINT + "var a=1;\n"
        assert json.loads(source_map.read_text()) == {"version": 3, "mappings": ";AAAA"}


def test_the_stylesheet_bundle_names_a_listed_file_that_is_missing(tmp_path):
    from finish import FinishError, stylesheet

    (tmp_path / "a.css").write_text("/* a */ p { color: red; }\n")
    assert stylesheet.bundle(tmp_path, ["a.css"]) == "p{color:red}\n"
    with pytest.raises(FinishError, match="lists b.css"):
        stylesheet.bundle(tmp_path, ["a.css", "b.css"])


def test_every_source_listing_links_the_file_as_it_is_and_its_highlighted_fragment(site):
    """A collapsed listing (figures_src/engine/sources.py) links code/<path>: the repository's file, byte for
    byte, for readers without JavaScript; site.js fills the block from code/<path>.highlight when opened."""
    listed = 0
    for page in site.rglob("index.html"):
        html = page.read_text(encoding="utf-8")
        for block in re.findall(r'<details class="example aih-source">(.*?)</details>', html, re.S):
            href = re.search(r'<a href="([^"]+)"', block).group(1)
            published = (page.parent / href).resolve()
            path = published.relative_to((site / "code").resolve()).as_posix()
            assert published.read_bytes() == (ROOT / path).read_bytes(), path
            fragment = Path(f"{published}.highlight").read_text(encoding="utf-8")
            assert fragment.startswith('<div class="highlight"><pre><span></span><code>') and "</code></pre></div>" in fragment
            listed += 1
    assert listed >= 4  # real heads' two and learning's two


# ---------------------------------------------------------------- make pdf (issue 41)


def make_pdf_module():
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.spec_from_file_location("make_pdf", ROOT / "scripts" / "make_pdf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def tiny_print_edition(tmp_path):
    """A site/ whose print edition is one short section: enough for Chromium to print, fast."""
    site = tmp_path / "site"
    (site / "print").mkdir(parents=True)
    (site / "print" / "index.html").write_text('<!doctype html><html lang="en"><title>print</title>'
                                               '<section class="aih-print-page"><h1>One page</h1></section></html>')
    return site


def test_make_pdf_with_a_wrong_chromium_says_so_in_one_line(tmp_path):
    site = tiny_print_edition(tmp_path)
    result = run([sys.executable, "scripts/make_pdf.py", str(site), str(tmp_path / "out.pdf")],
                 env={"CHROMIUM": "/nonexistent"})
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "CHROMIUM=/nonexistent is not an executable file: set CHROMIUM to Chromium's path (Debian: /usr/bin/chromium)"]
    assert not list(tmp_path.rglob("*.pdf*"))


@pytest.mark.slow  # it prints with Chromium: seconds, and a browser that the build-free tier does not ask for
def test_make_pdf_leaves_no_temporary_file_when_its_page_count_check_fails(tmp_path, monkeypatch):
    make_pdf = make_pdf_module()
    site = tiny_print_edition(tmp_path)
    monkeypatch.setattr(make_pdf, "_pages", lambda pdf: 0)  # as if Chromium printed only the first sheets, every time
    # in a thread of its own: the browser tests' Playwright may still be running its event loop in this one
    with ThreadPoolExecutor(1) as thread, pytest.raises(SystemExit, match="Chromium printed only 0 sheets for 1 pages"):
        thread.submit(make_pdf.make_pdf, site, site / "book.pdf").result()
    assert not list(site.glob("*.pdf*")) and not list(site.glob(".*.tmp")), list(site.iterdir())


def test_the_browser_tests_with_a_wrong_chromium_stop_in_one_line(monkeypatch):
    import importlib.util  # noqa: PLC0415

    spec = importlib.util.spec_from_file_location("browser_chromium", ROOT / "tests" / "browser" / "chromium.py")
    conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(conftest)
    monkeypatch.setenv("CHROMIUM", "/nonexistent")
    with pytest.raises(pytest.exit.Exception, match=r"^CHROMIUM=/nonexistent is not an executable file"):
        conftest.chromium_executable()


def test_each_code_block_of_the_print_edition_gets_an_id_of_its_own():
    """Material's copy button copies the block named by the nearest id around it: every block of a page in the
    print edition sat in the page's section, so every button copied that page's first block."""
    from finish.edition import code_ids

    content = '<pre><code>a</code></pre><div class="highlight"><pre><span></span><code>b</code></pre></div><pre id="x">c</pre>'
    numbered = code_ids(content, "masks")
    assert re.findall(r'<pre id="([^"]+)"', numbered) == ["masks-code-1", "masks-code-2", "x"], (
        "each <pre> of a print section gets <page>-code-<n>, a <pre> that has an id keeps it")


def test_a_tab_set_repeated_in_the_print_edition_keeps_its_labels_and_its_own_radio_group():
    """multi-head/ and real-heads/ both have a tab set `__tabbed_1`: in print/ the later one's inputs were renamed,
    but not the labels that name them nor their radio group, so Material's script threw on a missing label."""
    from finish.edition import unique_ids

    tabs = ('<input id="__tabbed_1_1" name="__tabbed_1" type="radio"><input id="__tabbed_1_2" name="__tabbed_1" '
            'type="radio"><label for="__tabbed_1_1">Q</label><label for="__tabbed_1_2">K</label>')
    seen = set()
    unique_ids(tabs, "multi-head", seen)
    renamed, _ = unique_ids(tabs, "real-heads", seen)
    assert re.findall(r'for="([^"]+)"', renamed) == ["real-heads-__tabbed_1_1", "real-heads-__tabbed_1_2"], (
        "a label names its input by the input's id in the edition")
    assert set(re.findall(r'name="([^"]+)"', renamed)) == {"real-heads-__tabbed_1"}, (
        "a repeated tab set's radios form a group of their own")


def test_a_table_of_numbers_is_left_out_of_the_search_index_and_a_table_of_words_is_not():
    from hooks.search_text import on_page_content

    class Page:
        class file:
            src_uri = "x.md"

    numbers = "<table><tr><th>Q</th></tr><tr><td>0.44</td><td>−1.20</td><td>3</td><td>a</td></tr></table>"
    words = "<table><tr><td>scores</td><td>n × n</td><td>12</td></tr></table>"
    html = on_page_content(numbers + words, Page, {}, None)
    assert html.count("data-search-exclude") == 1 and html.startswith("<table data-search-exclude>"), (
        "a table whose cells are mostly numbers is marked for the search index to skip; one of words stays")
