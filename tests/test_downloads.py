"""What a reader takes away (issue 16): every figure on every page of the built site/ links its downloads, and
each file is there and is what it says: the SVG well-formed XML referencing nothing outside itself, the PNG a PNG
at twice the figure's size, the CSV the figure's table (labels and numbers, the same shape), the BibTeX naming
the figure's permalink; every example the heatmap can draw has an embed page with the site's policy."""
import csv
import html
import io
import json
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from figures_src.engine import downloads, embed
from figures_src.engine.site import policy as site_policy

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "site"
FIGURE = re.compile(r'<figure class="aih-figure[^"]*" id="fig-([a-z0-9-]+)"([^>]*)>(.*?)</figure>', re.S)
MENU = re.compile(r'<details class="aih-download" data-search-exclude><summary>[^<]+</summary>(.*?)</details>', re.S)
LINK = re.compile(r'<a href="([^"]+)" download>([^<]+)</a>')
TABLE = re.compile(r'<table class="aih-numbers"[^>]*>(.*?)</table>', re.S)


pytestmark = pytest.mark.usefixtures("built_site")  # every test reads the shared site/ (tests/conftest.py)


def site_pages():
    return sorted(p for p in SITE.rglob("index.html")
                  if not {"assets", "embed", "print"} & set(p.relative_to(SITE).parts))


def figures_on_pages():
    """[(page, name, attributes, inner HTML)] of every figure of every page (the print edition repeats them)."""
    found = [(page, *match.groups()) for page in site_pages()
             for match in FIGURE.finditer(page.read_text(encoding="utf-8"))]
    assert len(found) >= 30, f"only {len(found)} figures found on the site's pages"
    return found


def table_shapes(inner):
    """[(column labels, [row label, ...])] of the figure's tables, read from its HTML."""
    shapes = []
    for table in TABLE.findall(inner):
        plain = re.sub(r"<sub>(.*?)</sub>", r"_\1", table)  # the page typesets W_Q as W<sub>Q</sub>; a CSV cannot
        columns = re.findall(r'<th scope="col">(.*?)</th>', plain)
        rows = re.findall(r'<tr><th scope="row">(.*?)</th>', plain)
        shapes.append((columns, rows))
    return shapes


def csv_tables(text):
    """The CSV's tables, as downloads.csv_text writes them: [(caption or None, header, rows)]."""
    records = list(csv.reader(io.StringIO(text)))
    blocks, block = [], []
    for record in records + [[]]:
        if record:
            block.append(record)
        elif block:
            blocks.append(block)
            block = []
    if len(blocks) == 1:
        return [(None, blocks[0][0], blocks[0][1:])]
    return [(b[0][0], b[1], b[2:]) for b in blocks]


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG header"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def unescape(text):
    return html.unescape(text)


def test_every_figure_links_all_its_downloads_and_each_file_parses():
    checked = set()
    for page, name, attributes, inner in figures_on_pages():
        menu = MENU.search(inner)
        assert menu, f"{page}: figure {name} has no Download menu"
        links = {label: href for href, label in LINK.findall(menu.group(1))}
        expected = {"SVG", "PNG", "CSV", "BibTeX"} | ({"JSON"} if "data-example=" in attributes else set())
        assert set(links) == expected, f"{page}: figure {name} links {sorted(links)}"
        files = {label: (page.parent / href).resolve() for label, href in links.items()}
        for label, path in files.items():
            assert path.is_file(), f"{page}: figure {name}'s {label} link goes nowhere: {links[label]}"
        # the file names are stable: figures/<name>.svg, or under zh/ for a zh page's own (finish/published.py)
        lang = "zh/" if page.relative_to(SITE).parts[0] == "zh" else ""
        own = SITE / lang / "figures" / f"{name}.svg"
        assert files["SVG"] == (own if own.is_file() else SITE / "figures" / f"{name}.svg").resolve()
        if (lang, name) in checked:
            continue
        checked.add((lang, name))

        # SVG: XML, standalone, nothing from outside the file, the light scheme's ink
        svg_text = files["SVG"].read_text(encoding="utf-8")
        root = ET.fromstring(svg_text.encode("utf-8"))
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert "<!DOCTYPE" not in svg_text and "<!ENTITY" not in svg_text
        for element in root.iter():
            for attribute, value in element.attrib.items():
                if attribute.endswith("href") or attribute == "src":
                    assert value.startswith(("#", "data:")), f"{name}.svg refers to {value}"
        assert not re.search(r"url\((?!#)", svg_text), f"{name}.svg refers to a url() outside itself"
        assert "currentColor" not in svg_text and "<text" not in svg_text, f"{name}.svg needs the page or a font"
        width_pt = float(root.attrib["width"].removesuffix("pt"))
        height_pt = float(root.attrib["height"].removesuffix("pt"))

        # PNG: twice the size the page shows the figure (the SVG's points at 96 px per inch)
        width, height = png_size(files["PNG"].read_bytes())
        assert abs(width - width_pt / 72 * downloads.PNG_DPI) <= 1 and abs(height - height_pt / 72 * downloads.PNG_DPI) <= 1

        # CSV: the figure's tables, each with its column labels and a row per row label
        tables = csv_tables(files["CSV"].read_text(encoding="utf-8"))
        shapes = table_shapes(inner)
        assert len(tables) == len(shapes), f"{name}.csv has {len(tables)} tables, the figure {len(shapes)}"
        for (_, header, rows), (columns, row_labels) in zip(tables, shapes):
            assert all(h == c or h.startswith((c + " (", c + "（")) for h, c in zip(header, map(unescape, columns), strict=True)), (
                f"{name}.csv: its column labels are the figure's, a unit in brackets added at most: {header}")
            assert [r[0] for r in rows] == [unescape(label) for label in row_labels], f"{name}.csv: row labels differ"
            assert all(len(r) == len(header) for r in rows), f"{name}.csv: a row is not {len(header)} cells"

        # BibTeX: the figure's permalink and the library's version
        bib = files["BibTeX"].read_text(encoding="utf-8")
        assert bib.startswith("@misc{") and f"#fig-{name}}}" in bib and "attention library" in bib
        if "JSON" in files:
            assert json.loads(files["JSON"].read_text(encoding="utf-8"))["id"] in attributes
    figures = [(lang, path.stem) for lang in ("", "zh/") for path in (ROOT / "generated" / lang / "figures").glob("*.html")]
    assert checked == set(figures), "every figure of each language is on a page of that language"


def test_csv_numbers_are_the_figures_at_full_precision():
    ex = json.loads((SITE / "examples" / "ex-scores.json").read_text(encoding="utf-8"))
    [(_, header, rows)] = csv_tables((SITE / "figures" / "scores-heatmap.csv").read_text(encoding="utf-8"))
    assert header[1:] == ex["tokens"] and [r[0] for r in rows] == ex["tokens"]
    assert [[float(v) for v in r[1:]] for r in rows] == ex["steps"]["scores"]


# A number as a page prints it: a true minus sign, thousands separated by commas, a unit or a percent after it.
DISPLAY_NUMBER = re.compile(r"−\d|^\d{1,3}(,\d{3})+$|^[\d.]+ ?(%|KiB|MiB|GiB|bytes)\b")


def test_no_csv_holds_a_number_as_the_page_prints_it():
    display = {}
    for path in sorted((SITE / "figures").glob("*.csv")):
        for caption, header, rows in csv_tables(path.read_text(encoding="utf-8")):
            display.setdefault(path.name, []).extend(cell for row in rows for cell in row[1:] if DISPLAY_NUMBER.search(cell))
    display = {name: cells[:4] for name, cells in display.items() if cells}
    assert not display, ("a CSV download holds each number at full precision, one a spreadsheet reads (float()), never "
                         f"the page's text of it (−, 1,024, 256 KiB, 12.1%): {display}")


def test_every_drawable_example_has_an_embed_page_with_the_sites_policy():
    # the site's pages carry the same policy (finish/policy.py writes it), with their inline scripts' hashes added
    policy = re.search(r'Content-Security-Policy" content="([^"]+)"', (SITE / "index.html").read_text(encoding="utf-8"))
    assert re.sub(r" 'sha256-[^']+'", "", policy.group(1)) == site_policy()
    examples = sorted((SITE / "examples").glob("*.json"))
    pages = sorted(p.parent.name for p in (SITE / "embed").glob("*/index.html"))
    assert pages == [p.stem for p in examples if embed.embeddable(json.loads(p.read_text(encoding="utf-8")))]
    assert {"ex-scores", "ex-softmax", "ex-demo", "ex-multi-head", "ex-mask-causal"} <= set(pages)
    for name in pages:
        html = (SITE / "embed" / name / "index.html").read_text(encoding="utf-8")
        assert f'content="{site_policy()}"' in html and "<script>" not in html
        # the site's files, its own address, or inside the page (the static figure's SVG: #ids, an inline image)
        assert not re.search(r'(?:href|src)="(?!\.\./\.\./|#|data:image/png;base64,|https?://127\.0\.0\.1|https?://[^"]*/attention-heatmap/)', html)
        assert f'data-example="{name}"' in html and "CC BY 4.0" in html
        assert f"/#{name}" in html, f"embed/{name}/ does not link back to its permalink"
        # issue 41: the static figure (inline SVG) and its numbers as a table, for a frame without JavaScript
        example = json.loads((SITE / "examples" / f"{name}.json").read_text(encoding="utf-8"))
        tokens = example["batch_tokens"][0] if "batch_tokens" in example else example["tokens"]
        assert len(re.findall(r'<svg [^>]*id="embed-[^"]+-svg" class="aih-svg"', html)) == 1, f"embed/{name}/: no static figure"
        [table] = TABLE.findall(html)
        assert len(re.findall(r'<th scope="row">', table)) == len(tokens), f"embed/{name}/: the table has not every query"


def test_cite_lines_offer_the_iframe_snippet():
    for name in ("ex-scores", "ex-demo"):
        cite = (ROOT / "generated" / "snippets" / f"{name}-cite.md").read_text(encoding="utf-8")
        assert f"embed/{name}/index.html" in cite and f"&lt;iframe src=&quot;" in cite and f"embed/{name}/&quot;" in cite
