"""The figure pipeline: what it writes, when it skips, and how it fails.

Two kinds of test: the real pages built from scratch into a temporary folder, the session's `fresh_figures`
(their fragments, examples and snippets checked), and small throw-away page packages written under tmp_path (to make the build skip, rebuild and break).
"""
import base64
import importlib
import io
import errno as errno_module
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import tomllib
import xml.etree.ElementTree as ET
from collections import Counter
from html import unescape
from pathlib import Path
from types import SimpleNamespace

import PIL.Image
import pytest
import yaml

from figures_src import build as figures_build
from figures_src import registry
from figures_src.engine import BuildError, Example, Figure
from figures_src.engine import inputs as build_inputs
from figures_src.engine import site
from figures_src.engine.site import DEFAULT_REPO_URL, DEFAULT_SITE_URL
from figures_src.engine.examples import REQUIRED_KEYS, cite_line
from figures_src.engine import svg as svg_cleanup
from finish import widgets
from finish.scripts import our_scripts

# The throw-away pages are real builds, seconds each (half of the build-free tests' time): in make test, not
# make check.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SVG_NS = "{http://www.w3.org/2000/svg}"
XLINK_NS = "http://www.w3.org/1999/xlink"
_counter = itertools.count()


# ---------------------------------------------------------------- the real pages


@pytest.fixture(scope="module")
def built(fresh_figures):
    """Every declared item built from scratch into a temporary generated/ folder (once per session: tests/conftest.py)."""
    return fresh_figures


def figure_svgs(out):
    """{figure name: its inline <svg> element, as text} from the fragments the pages include."""
    svgs = {}
    for path in sorted((out / "fragments").glob("*.html")):
        match = re.search(r"<svg\b.*?</svg>", path.read_text(), re.S)
        assert match, f"{path.name}: no inline SVG"
        svgs[path.stem] = match.group(0)
    return svgs


def test_every_declared_item_produces_its_files(built):
    manifest = json.loads((built / ".manifest.json").read_text())
    names = [item.name for item in registry.items()]
    assert sorted(manifest["items"]) == sorted(names)
    assert sorted(manifest["pages"]) == sorted(registry.page_modules())
    for name in names:
        assert manifest["items"][name]["outputs"], name
        for path in manifest["items"][name]["outputs"]:
            assert (built / path).is_file(), f"{name}: {path} missing"
    assert not list(built.rglob("*.tmp*")), "temporary files left behind"


def test_examples_declare_the_page_that_shows_them():
    markdown = registry.markdown_files()
    for page in registry.page_modules():
        for item in importlib.import_module(page).ITEMS:
            if isinstance(item, Example):
                assert item.markdown == markdown[page], f"{item.id} is declared on {markdown[page]} but says {item.markdown}"


def test_every_output_is_used_by_a_page(built):
    """A snippet or a figure no page includes, or a download no page links to, is dead weight."""
    pages = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md"))
    snippets = "\n".join(p.read_text(encoding="utf-8") for p in (built / "snippets").glob("*.md"))
    # a figure links files too (a real-heads grid's image); each figure's placeholder is checked to be included
    snippets += "\n".join(p.read_text(encoding="utf-8") for p in (built / "fragments").glob("*.html"))
    scripts = "\n".join(our_scripts(ROOT / "docs").values())
    for path in sorted(built.rglob("*")):
        relative = path.relative_to(built).as_posix()
        if not path.is_file() or relative == ".manifest.json":
            continue
        if relative == widgets.TEMPLATE:  # the heatmap's markup: the post-build pass puts it into every page
            continue
        if relative.startswith(("figures/", "snippets/")):
            assert f'--8<-- "generated/{relative}"' in pages, f"generated/{relative} is included by no page"
        elif relative.startswith("fragments/"):  # the figure the post-build pass puts in place of its placeholder
            assert (built / "figures" / path.name).is_file(), f"generated/{relative} has no placeholder in figures/"
        else:
            published = relative.removeprefix("public/")
            if published.startswith("code/"):  # a listing's highlighted fragment: site.js fetches it for the file
                published = published.removesuffix(".highlight")  # its block links (engine/sources.py)
            table = re.fullmatch(r"javascripts/strings-([a-z-]+)\.js", published)
            if table:  # a reader's string table (engine/strings.py), which dom.js's strings("<reader>") imports
                assert f'strings("{table.group(1)}")' in scripts, f"generated/{relative}: no script reads its table"
                continue
            if published.startswith("javascripts/"):  # a module the build writes for the scripts (engine/contract.py)
                assert re.search(rf'from "(\./|\.\./\.\./javascripts/){re.escape(path.name)}"', scripts), (
                    f"generated/{relative} is imported by no script")
                continue
            assert published in pages + snippets, f"generated/{relative} is linked from no page"


def test_svgs_are_well_formed_with_size_and_prefixed_ids(built):
    svgs = figure_svgs(built)
    assert svgs, "no page declares a figure"
    for name, text in svgs.items():
        root = ET.fromstring(text)  # raises on malformed XML
        assert root.tag == f"{SVG_NS}svg", name
        for attribute in ("width", "height", "viewBox"):
            assert root.get(attribute), f"{name}: no {attribute}"
        assert "<style" not in text and "<metadata" not in text, f"{name}: a <style> or <metadata> left in"
        for element in root.iter():
            if element.get("id"):
                assert element.get("id").startswith(f"{name}-"), f"{name}: id {element.get('id')} not prefixed"
        ids = {e.get("id") for e in root.iter() if e.get("id")}
        for ref in re.findall(r'(?:url\(#|href="#)([^)"]+)', text):
            assert ref in ids, f"{name}: dangling reference #{ref}"
        assert root.find(f"{SVG_NS}title") is not None and root.find(f"{SVG_NS}desc") is not None, name
        assert root.get("role") == "img" and root.get("aria-labelledby"), name


def test_svg_text_stays_text_and_black_becomes_the_page_colour(built):
    for name, text in figure_svgs(built).items():
        assert "<text" in text, f"{name}: text was turned into glyph paths"
        assert "#000000" not in text, f"{name}: pure black left; it would vanish on the dark scheme"


def heatmap_cells(root):
    """{heatmap name: [(i, j), ...]} from the cell ids `<hm>-cell-<i>-<j>`."""
    cells = {}
    for element in root.iter():
        m = re.fullmatch(r"(.+)-cell-(\d+)-(\d+)", element.get("id") or "")
        if m:
            cells.setdefault(m.group(1), []).append((int(m.group(2)), int(m.group(3))))
    return cells


def test_each_heatmap_has_exactly_its_cells_and_values(built):
    """From the published files alone: each heatmap's cells form one whole grid, its printed numbers all or none
    and none empty, an image heatmap's picture has a pixel per cell of its table, and a fragment is an
    aih-heatmap exactly when its SVG holds a heatmap. (That each grid is the shape of the array render drew is
    checked by the build itself, on every figure of every build, against what render returned: engine/figures.py,
    _check_heatmap_cells, which the throw-away pages below show failing.)"""
    checked = 0
    for name, svg in figure_svgs(built).items():
        root, fragment = ET.fromstring(svg), (built / "fragments" / f"{name}.html").read_text()
        cells = heatmap_cells(root)
        images = [e for e in root.iter(f"{SVG_NS}image") if (e.get("id") or "").endswith("-cells")]
        assert ("aih-heatmap" in fragment.split(">", 1)[0]) == bool(cells or images), f"{name}: aih-heatmap class wrong"
        for prefix, positions in cells.items():
            n_q, n_k = max(i for i, _ in positions) + 1, max(j for _, j in positions) + 1
            assert len(positions) == n_q * n_k, f"{prefix}: {len(positions)} cell elements for {n_q}×{n_k}"
            assert set(positions) == {(i, j) for i in range(n_q) for j in range(n_k)}, prefix
            value_id = rf"{re.escape(prefix)}-value-\d+-\d+"
            values = [e for e in root.iter() if re.fullmatch(value_id, e.get("id") or "")]
            assert len(values) in (0, n_q * n_k), f"{prefix}: {len(values)} printed values for {n_q}×{n_k} cells"
            assert all("".join(v.itertext()).strip() for v in values), f"{prefix}: an empty printed value"
            checked += 1
        tables = re.findall(r"<table\b.*?</table>", fragment, re.S)
        shapes = set()  # (keys, queries) of each table of numbers under the figure
        for table in tables:
            rows = re.findall(r"<tr\b(?![^>]*aih-sizer).*?</tr>", table, re.S)
            shapes.add((len(re.findall(r"<th\b", rows[0])) - 1, len(rows) - 1))
        for image in images:  # one pixel per cell: as wide as its table has keys, as high as it has queries
            png = base64.b64decode(image.get(f"{{{XLINK_NS}}}href").split(",", 1)[1])
            assert PIL.Image.open(io.BytesIO(png)).size in shapes, (image.get("id"), shapes)
            checked += 1
    assert checked, "no page declares a heatmap"


def test_ids_unique_when_every_figure_is_inlined_on_one_page(built):
    ids = Counter()
    for path in (built / "fragments").glob("*.html"):
        ids.update(re.findall(r'\bid="([^"]+)"', path.read_text()))
    duplicates = [i for i, n in ids.items() if n > 1]
    assert not duplicates, f"ids used twice across figures: {duplicates[:10]}"


def test_fragments_leak_no_stylesheet_and_have_no_blank_line(built):
    for path in (built / "fragments").glob("*.html"):
        text = path.read_text()
        assert not text.startswith("<?xml") and "<?xml" not in text, f"{path.name}: XML prolog left in"
        assert "<style" not in text.lower(), f"{path.name}: a <style> element would restyle the page"
        assert "<script" not in text.lower(), f"{path.name}: a fragment carries no script"
        assert "\n\n" not in text, f"{path.name}: a blank line would end the Markdown HTML block"
        assert text.startswith("<figure ") and text.rstrip().endswith("</figure>"), path.name
        assert "<figcaption>" in text and "<table" in text, f"{path.name}: caption or data table missing"


def test_each_figure_graphic_can_be_reached_by_keyboard_and_is_named_by_its_title(built):
    """A figure narrower than its natural width scrolls; axe's scrollable-region-focusable wants a keyboard to reach it."""
    for path in (built / "fragments").glob("*.html"):
        text, name = path.read_text(), path.stem
        graphic = re.search(r'<div class="aih-figure__graphic"[^>]*>', text).group(0)
        assert 'tabindex="0"' in graphic and 'role="group"' in graphic, path.name
        assert f'aria-labelledby="{name}-title"' in graphic and f'<title id="{name}-title">' in text, path.name


def test_examples_follow_the_contract(built):
    examples = registry.examples()
    assert examples, "no page declares a worked example"
    for declared in examples:
        name = declared.id
        example = json.loads((built / "public" / "examples" / f"{name}.json").read_text())
        assert example["id"] == name and example["title"] == declared.title
        for key in REQUIRED_KEYS:
            assert key in example, f"{name}: no {key}"
        if declared.cite_line:
            cite = (built / "snippets" / f"{name}-cite.md").read_text()
            assert f'id="{name}"' in cite and f"examples/{name}.json" in cite


# ---------------------------------------------------------------- throw-away page packages

GOOD_PAGE = '''
"""A throw-away page with one heatmap figure."""
import numpy as np

from figures_src.engine import Figure
from figures_src.engine.heatmap import heatmap

PAGE = "index.md"
VALUE = {value}


def render(data, ax):
    return heatmap(ax, data["w"], ["a", "b"], ["x", "y", "z"], quantity="weights")


ITEMS = [Figure("{name}", title="A tiny test heatmap.", data=lambda: {{"w": np.full((2, 3), VALUE)}},
                render=render, caption="A 2 by 3 test heatmap.")]
'''


def good_page(name, value):
    return GOOD_PAGE.format(name=name, value=value)


def make_package(tmp_path, monkeypatch, **modules):
    """A fresh importable package under tmp_path holding `modules` {name: source}; -> dotted names."""
    package = f"aih_testpages_{next(_counter)}"
    folder = tmp_path / "src" / package
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    for name, source in modules.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    return [f"{package}.{name}" for name in modules]


def module_file(tmp_path, dotted):
    package, name = dotted.split(".")
    return tmp_path / "src" / package / f"{name}.py"


def quiet_build(pages, out, **kwargs):
    return figures_build.build(pages, out=out, log=lambda *_: None, **kwargs)


def test_unchanged_pages_are_skipped_and_changed_ones_rebuilt(tmp_path, monkeypatch):
    pages = make_package(tmp_path, monkeypatch, one=good_page("fig-one", 0.25), two=good_page("fig-two", 0.5))
    out = tmp_path / "out"
    assert quiet_build(pages, out) == ["fig-one", "fig-two"]
    fragment = out / "fragments" / "fig-one.html"
    mtime = fragment.stat().st_mtime_ns
    assert quiet_build(pages, out) == []
    assert fragment.stat().st_mtime_ns == mtime

    page_two = module_file(tmp_path, pages[1])
    page_two.write_text(page_two.read_text().replace("VALUE = 0.5", "VALUE = 0.75"))
    assert quiet_build(pages, out) == ["fig-two"]
    assert "0.75" in (out / "fragments" / "fig-two.html").read_text(), "rebuilt from the module imported first"

    (out / "fragments" / "fig-one.html").unlink()  # a missing output is rebuilt even if the inputs are unchanged
    assert quiet_build(pages, out) == ["fig-one"]


def test_a_page_with_nothing_to_do_is_not_even_imported(tmp_path, monkeypatch):
    marker = tmp_path / "imported.txt"
    source = good_page("fig", 0.25) + f"\nwith open({str(marker)!r}, 'a') as _log:\n    _log.write('x')\n"
    pages = make_package(tmp_path, monkeypatch, page=source)
    out = tmp_path / "out"
    quiet_build(pages, out)
    assert marker.read_text() == "x"
    sys.modules.pop(pages[0], None)
    assert quiet_build(pages, out) == []
    assert marker.read_text() == "x", "a page with nothing to rebuild was imported"


def test_every_item_of_an_edited_page_is_rebuilt(tmp_path, monkeypatch):
    """The build works page by page: an edit anywhere in a page module rebuilds all of that page's items."""
    second = 'Figure("fig-b", title="Another.", data=lambda: {"w": np.zeros((2, 3))}, render=render, caption="B."), '
    two_items = good_page("fig-a", 0.25).replace("ITEMS = [", "ITEMS = [" + second)
    pages = make_package(tmp_path, monkeypatch, page=two_items)
    out = tmp_path / "out"
    assert quiet_build(pages, out) == ["fig-b", "fig-a"]
    path = module_file(tmp_path, pages[0])
    path.write_text(path.read_text().replace("VALUE = 0.25", "VALUE = 0.5"))
    assert sorted(quiet_build(pages, out)) == ["fig-a", "fig-b"]


def test_a_module_imported_while_building_is_an_input(tmp_path, monkeypatch):
    """Recorded, not guessed: a module a figure imports inside data() (no import line at the top) counts."""
    lazy = good_page("fig-one", 0.25).replace('data=lambda: {"w"', 'data=lambda: __import__("aih_lazy_helper") and {"w"')
    assert lazy != good_page("fig-one", 0.25)
    pages = make_package(tmp_path, monkeypatch, one=lazy)
    helper = tmp_path / "src" / "aih_lazy_helper.py"
    helper.write_text("A = 1\n")
    out = tmp_path / "out"
    assert quiet_build(pages, out) == ["fig-one"]
    assert quiet_build(pages, out) == []
    helper.write_text("A = 2\n")
    assert quiet_build(pages, out) == ["fig-one"]
    assert quiet_build(pages, out) == []


def test_a_sibling_module_import_is_an_input(tmp_path, monkeypatch):
    uses_sibling = '''
    """A page whose numbers come from a sibling module."""
    from figures_src.engine import Figure
    from figures_src.engine.heatmap import heatmap

    from . import numbers

    PAGE = "index.md"


    def render(data, ax):
        return heatmap(ax, data["w"], ["a"], ["x", "y"], quantity="weights")


    ITEMS = [Figure("fig", title="Numbers from a sibling.", data=lambda: {"w": numbers.W}, render=render,
                    caption="Numbers from a sibling.")]
    '''
    numbers, page = make_package(tmp_path, monkeypatch, numbers="W = [[0.5, 0.5]]\n", page=uses_sibling)
    out = tmp_path / "out"
    quiet_build([page], out)
    assert "0.75" not in (out / "fragments" / "fig.html").read_text()
    module_file(tmp_path, numbers).write_text("W = [[0.25, 0.75]]\n")
    assert quiet_build([page], out) == ["fig"]
    assert "0.75" in (out / "fragments" / "fig.html").read_text(), "rebuilt from the module imported first"


def test_a_data_file_read_while_building_is_an_input(tmp_path, monkeypatch):
    table = tmp_path / "table.txt"
    table.write_text("0.5 0.5\n")
    reads_data = f'''
    """A page whose numbers come from a data file."""
    from pathlib import Path

    from figures_src.engine import Figure
    from figures_src.engine.heatmap import heatmap

    PAGE = "index.md"
    TABLE = "{table}"


    def render(data, ax):
        return heatmap(ax, data["w"], ["a"], ["x", "y"], quantity="weights")


    ITEMS = [Figure("fig", title="Numbers from a file.", caption="Numbers from a file.", render=render,
                    data=lambda: {{"w": [[float(x) for x in Path(TABLE).read_text().split()]]}})]
    '''
    pages = make_package(tmp_path, monkeypatch, page=reads_data)
    out = tmp_path / "out"
    assert quiet_build(pages, out) == ["fig"]
    assert quiet_build(pages, out) == []
    table.write_text("0.25 0.75\n")
    assert quiet_build(pages, out) == ["fig"]
    table.unlink()
    with pytest.raises(BuildError, match="fig .*failed: FileNotFoundError.*table.txt"):
        quiet_build(pages, out)


def test_an_item_added_to_a_page_whose_build_failed_is_built_once_it_is_fixed_not_removed(tmp_path, monkeypatch):
    table = tmp_path / "table.txt"
    pages = make_package(tmp_path, monkeypatch, page=good_page("fig", 0.25))
    out = tmp_path / "out"
    assert quiet_build(pages, out) == ["fig"]
    path = module_file(tmp_path, pages[0])  # a second item, which reads a file that is not there yet
    path.write_text(path.read_text() + textwrap.dedent(f'''
        from pathlib import Path
        from figures_src.engine import Snippets
        ITEMS.append(Snippets("more", data=lambda: Path({str(table)!r}).read_text(), snippets=lambda t: {{"": t}}))
        '''))
    with pytest.raises(BuildError, match="more"):
        quiet_build(pages, out)  # fig is rebuilt (its page changed), more fails
    table.write_text("fixed\n")
    assert quiet_build(pages, out) == ["more"], \
        "after a failed build, the page is imported again: its new item is built, not taken for one no page declares"
    assert (out / "snippets" / "more.md").read_text() == "fixed\n"


PUBLISHES = '''
"""Publishes one download."""
from figures_src.engine import Snippets

PAGE = "index.md"
ITEMS = [Snippets("{name}", data=dict, public=lambda data: {{"downloads/shared.txt": "{text}\\n"}})]
'''


def test_an_item_no_page_declares_leaves_only_what_others_still_write(tmp_path, monkeypatch):
    old, new, figure = make_package(tmp_path, monkeypatch, old=PUBLISHES.format(name="old-item", text="old"),
                                    new=PUBLISHES.format(name="new-item", text="new"), fig=good_page("fig-one", 0.25))
    out = tmp_path / "out"
    quiet_build([old, figure], out)
    assert (out / "public/downloads/shared.txt").read_text() == "old\n"
    quiet_build([new], out)  # old-item renamed new-item; fig-one's page dropped
    assert (out / "public/downloads/shared.txt").read_text() == "new\n", "the new owner's file was deleted"
    assert not (out / "fragments/fig-one.html").exists()
    manifest = json.loads((out / ".manifest.json").read_text())
    assert sorted(manifest["items"]) == ["new-item"] and sorted(manifest["pages"]) == [new]


def test_only_builds_the_named_item_or_page_and_force_rebuilds(tmp_path, monkeypatch):
    pages = make_package(tmp_path, monkeypatch, one=good_page("fig-one", 0.25), two=good_page("fig-two", 0.5))
    out = tmp_path / "out"
    assert quiet_build(pages, out, only=["fig_two"]) == ["fig-two"]
    assert not (out / "fragments" / "fig-one.html").exists()
    assert quiet_build(pages, out, only=["fig-two"]) == []
    assert quiet_build(pages, out, only=["fig-two"], force=True) == ["fig-two"]
    assert quiet_build(pages, out, only=["one"]) == ["fig-one"]  # a page: all of its items
    assert quiet_build(pages, out, force=True) == ["fig-one", "fig-two"]
    with pytest.raises(BuildError, match="unknown item or page 'nope'"):
        quiet_build(pages, out, only=["nope"])


def test_force_gives_byte_identical_files(tmp_path, monkeypatch):
    pages = make_package(tmp_path, monkeypatch, page=good_page("fig", 0.25))
    first, second = tmp_path / "a", tmp_path / "b"
    quiet_build(pages, first)
    quiet_build(pages, second, force=True)
    for path in first.rglob("*"):
        if path.is_file() and path.name != ".manifest.json":
            assert path.read_bytes() == (second / path.relative_to(first)).read_bytes(), path.name


def test_a_name_declared_twice_stops_the_build(tmp_path, monkeypatch):
    pages = make_package(tmp_path, monkeypatch, one=good_page("fig", 0.25), two=good_page("fig", 0.5))
    with pytest.raises(BuildError, match="item fig is declared twice"):
        quiet_build(pages, tmp_path / "out")


BROKEN_FIGURE = '''
"""A broken page."""
import numpy as np

from figures_src.engine import Example, Figure
from figures_src.engine.heatmap import heatmap

PAGE = "index.md"
{body}
'''

BROKEN = {
    "raises": ('''
        def data():
            raise ZeroDivisionError("the figure's own bug")


        ITEMS = [Figure("raises", title="Raises.", data=data, render=lambda data, ax: None, caption="Broken.")]
        ''', "ZeroDivisionError"),
    "wrong-shape": ('''
        def render(data, ax):
            return heatmap(ax, data, ["a", "b"], ["x", "y"], quantity="scores")


        ITEMS = [Figure("wrong-shape", title="A 3-D heatmap.", data=lambda: np.zeros((2, 2, 2)), render=render,
                        caption="Broken.")]
        ''', "must be 2-D"),
    "wrong-labels": ('''
        def render(data, ax):
            return heatmap(ax, data, ["a", "b"], ["x", "y"], quantity="weights")


        ITEMS = [Figure("wrong-labels", title="Too few labels.", data=lambda: np.zeros((3, 2)), render=render,
                        caption="Broken.")]
        ''', "needs 3 row labels"),
    "no-caption": ('''
        def render(data, ax):
            return heatmap(ax, data, ["a", "b"], ["x", "y"], quantity="weights")


        ITEMS = [Figure("no-caption", title="Says nothing.", data=lambda: np.zeros((2, 2)), render=render, caption="")]
        ''', "caption"),
    "unreturned-heatmap": ('''
        def render(data, ax):
            heatmap(ax, data, ["a", "b"], ["x", "y"], quantity="weights")


        ITEMS = [Figure("unreturned-heatmap", title="Forgets to return its heatmap.", data=lambda: np.zeros((2, 2)),
                        render=render, caption="Broken.")]
        ''', "return what heatmap() returns"),
    "label-past-the-edge": ('''
        def render(data, ax):
            drawn = heatmap(ax, data, ["a", "b"], ["x", "y"], quantity="weights")
            ax.yaxis.set_label_coords(-3.0, 0.5)  # far left of the figure, where its SVG and PNG end
            return drawn


        ITEMS = [Figure("label-past-the-edge", title="A label outside.", data=lambda: np.zeros((2, 2)), render=render,
                        caption="Broken.")]
        ''', "it draws past its own edge, where the SVG and PNG cut it off: “queries” by"),
    "bad-example": ('''
        def data():
            return {"seed": 0, "tokens": ["a", "b"], "inputs": {}, "steps": {"weights": [[1.0]]}, "outputs": {}}


        ITEMS = [Example("bad-example", page=PAGE, title="Weights that do not match the tokens", data=data)]
        ''', "expected"),
    "nan-in-heatmap": ('''
        def data():
            values = np.full((2, 3), 0.5)
            values[1, 2] = np.nan
            return values


        def render(data, ax):
            return heatmap(ax, data, ["a", "b"], ["x", "y", "z"], quantity="scores")


        ITEMS = [Figure("nan-in-heatmap", title="A NaN.", data=data, render=render, caption="Broken.")]
        ''', "figure nan-in-heatmap: data() holds NaN at index [1, 2]"),
    "inf-unmasked": ('''
        def data():
            values = np.zeros((2, 2))
            values[0, 1] = -np.inf
            return values


        def render(data, ax):
            return heatmap(ax, data, ["a", "b"], ["x", "y"], quantity="scores", panel="left")


        ITEMS = [Figure("inf-unmasked", title="A −∞ no mask declares.", data=data, render=render, caption="Broken.")]
        ''', "heatmap left (scores) holds −∞ at index [0, 1]"),
    "inf-where-allowed": ('''
        def data():
            values = np.zeros((2, 2))
            values[0, 1] = -np.inf  # the mask below forbids only (1, 0)
            return values


        def render(data, ax):
            forbidden = np.array([[False, False], [True, False]])
            return heatmap(ax, data, ["a", "b"], ["x", "y"], quantity="scores", masked=forbidden)


        ITEMS = [Figure("inf-where-allowed", title="−∞ off the mask.", data=data, render=render, caption="Broken.")]
        ''', "holds −∞ at index [0, 1] (−∞ is allowed only where the mask forbids the pair)"),
    "inf-in-table": ('''
        ITEMS = [Figure("inf-in-table", title="A table with +∞.", data=dict, render=lambda data, ax: None,
                        alt=lambda data: "Nothing.", caption="Broken.",
                        table=lambda data: {"caption": "T", "columns": ["k", "v"], "rows": [["a", 1.0], ["b", np.inf]]})]
        ''', "table 'T', row 1, column 1 is +∞"),
    # issue 41: a figure that draws no heatmap (scores.py's arrows) printed `nan`; any figure's data is checked
    "nan-in-arrows": ('''
        def data():
            return {"q": np.array([2.0, 1.0]), "keys": [{"name": "same", "k": [1.2, 0.6]},
                                                        {"name": "odd", "k": np.array([float("nan"), 2.0])}]}


        def render(data, ax):
            for key in data["keys"]:
                ax.annotate("", xy=tuple(key["k"]), xytext=(0, 0), arrowprops={"arrowstyle": "->"})
            ax.set_xlabel(f"q · k = {data['keys'][1]['k'][0]}")


        ITEMS = [Figure("nan-in-arrows", title="Arrows.", data=data, render=render, caption="Two keys.",
                        alt=lambda data: "Two arrows.",
                        table=lambda data: {"caption": "T", "columns": ["key"], "rows": [[k["name"]] for k in data["keys"]]})]
        ''', "figure nan-in-arrows: data()['keys'][1]['k'] holds NaN at index [0]"),
    "inf-in-snippets": ('''
        from figures_src.engine import Snippets


        def data():
            return {"peak": 3.0, "ratio": float("inf")}


        ITEMS = [Snippets("inf-in-snippets", data=data, snippets=lambda data: {"": f"The ratio is {data['ratio']}."})]
        ''', "snippets inf-in-snippets: data()['ratio'] is +∞"),
    "nan-outside-an-example-s-arrays": ('''
        def data():
            return {"seed": 0, "tokens": ["a"], "inputs": {}, "steps": {"weights": [[1.0]]}, "outputs": {},
                    "checkpoints": [{"step": 0, "loss": 0.5}, {"step": 1, "loss": float("nan")}]}


        ITEMS = [Example("nan-outside-an-example-s-arrays", page=PAGE, title="A NaN loss", data=data,
                         snippets=lambda example: {"loss": str(example["checkpoints"][1]["loss"])})]
        ''', "example nan-outside-an-example-s-arrays: data()['checkpoints'][1]['loss'] is NaN"),
    "nan-in-example": ('''
        def data():
            return {"seed": 0, "tokens": ["a", "b"], "inputs": {}, "outputs": {},
                    "steps": {"weights": [[1.0, 0.0], [0.5, float("nan")]]}}


        ITEMS = [Example("nan-in-example", page=PAGE, title="A NaN weight", data=data)]
        ''', "steps.weights holds NaN at index [1, 1]"),
    "unmasked-inf-in-example": ('''
        def data():
            return {"seed": 0, "tokens": ["a", "b"], "inputs": {"mask": [[True, False], [True, True]]}, "outputs": {},
                    "steps": {"scores": [[1.0, float("-inf")], [float("-inf"), 0.0]]}}


        ITEMS = [Example("unmasked-inf-in-example", page=PAGE, title="−∞ where the mask allows", data=data)]
        ''', "steps.scores holds −∞ at index [1, 0]"),
    "tab-in-snippet": ('''
        from figures_src.engine import Snippets


        ITEMS = [Snippets("tab-in-snippet", data=dict, snippets=lambda data: {"": f"Q is ${3} \\times {4}$."})]
        ''', "snippets/tab-in-snippet.md: a control character '\\t' after 'Q is $3 '"),
    "bad-name": ('''
        ITEMS = [Figure("Bad Name", title="A name with spaces.", data=dict, render=lambda data, ax: None, caption="x")]
        ''', "lower-case words joined by hyphens"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_broken_page_stops_the_build_naming_it_and_writes_nothing(tmp_path, monkeypatch, kind):
    body, message = BROKEN[kind]
    source = BROKEN_FIGURE.format(body=textwrap.dedent(body))
    pages = make_package(tmp_path, monkeypatch, good=good_page("fig-good", 0.25), **{kind.replace("-", "_"): source})
    out = tmp_path / "out"
    quiet_build(pages[:1], out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(BuildError, match=re.escape(kind.replace("-", "_") if kind == "bad-name" else kind)) as failure:
        quiet_build(pages, out, force=True)
    assert message in str(failure.value)
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert not [p for p in after if kind in p.name], f"{kind}: a file was written for the broken item"
    assert not [p for p in after if ".tmp" in p.name], f"{kind}: a temporary file was left behind"
    assert set(after) == set(before)
    assert all(after[p] == before[p] for p in before if p.name != ".manifest.json"), "earlier outputs changed"


# What could go wrong between drawing a heatmap and publishing it (the SVG cleaner, a change to heatmap()): each
# mangles the published SVG of good_page's 2 × 3 heatmap "fig", and the message the build must give.
MANGLED = {
    "a-lost-cell": (lambda svg: re.sub(r'<path id="fig-cell-1-2"[^>]*/>', "", svg, count=1),
                    "heatmap fig has 5 cells in the SVG, expected 2×3 (cell (1, 2) is missing)"),
    "a-cell-out-of-place": (lambda svg: svg.replace('id="fig-cell-1-2"', 'id="fig-cell-2-0"', 1),
                        "heatmap fig has 6 cells in the SVG, expected 2×3 (cell (1, 2) is missing)"),
    "an-empty-number": (lambda svg: re.sub(r'(<text id="fig-value-0-1"[^>]*>)[^<]+', r"\1", svg, count=1),
                        "heatmap fig prints 5 numbers in its 2×3 cells: all or none"),
    "another-heatmap": (lambda svg: svg.replace('id="fig-cell-1-2"', 'id="fig-other-cell-0-0"', 1),
                        "render drew heatmap cells or numbers (fig-other) but did not return that heatmap"),
    "another-heatmaps-number": (lambda svg: svg.replace('id="fig-value-1-2"', 'id="fig-other-value-0-0"', 1),
                                "render drew heatmap cells or numbers (fig-other) but did not return that heatmap"),
}


def build_published_as(tmp_path, monkeypatch, mangle, *, as_image=False):
    """Build good_page's heatmap "fig" (drawn as one picture if `as_image`) with its cleaned SVG passed through
    `mangle`: -> the out folder."""
    clean = svg_cleanup.clean_svg
    monkeypatch.setattr(svg_cleanup, "clean_svg", lambda *args: mangle(clean(*args)))
    page = good_page("fig", 0.25)
    if as_image:
        page = page.replace('quantity="weights")', 'quantity="weights", as_image=True)')
    quiet_build(make_package(tmp_path, monkeypatch, page=page), tmp_path / "out")
    return tmp_path / "out"


@pytest.mark.parametrize("kind", sorted(MANGLED))
def test_the_build_checks_each_published_heatmap_against_the_array_it_drew(tmp_path, monkeypatch, kind):
    mangle, message = MANGLED[kind]
    with pytest.raises(BuildError, match="figure fig: ") as failure:
        build_published_as(tmp_path, monkeypatch, mangle)
    assert message in str(failure.value)
    assert not (tmp_path / "out" / "fragments" / "fig.html").exists()


def _one_pixel_png():
    png = io.BytesIO()
    PIL.Image.new("RGBA", (1, 1)).save(png, format="png")
    return base64.b64encode(png.getvalue()).decode()


# The same for a heatmap drawn as_image (good_page's, drawn as one picture): what its SVG must not become.
IMAGE = r'(<image id="fig-cells"[^>]*href="data:image/png;base64,)[^"]+'
IMAGE_MANGLED = {
    "a-picture-of-the-wrong-size": (lambda svg: re.sub(IMAGE, lambda m: m[1] + _one_pixel_png(), svg, count=1),
                                    "heatmap fig's image is 1×1 pixels, expected 3×2"),
    "no-picture": (lambda svg: svg.replace('id="fig-cells"', 'id="fig-picture"', 1),
                   "heatmap fig was drawn as an image, and the SVG has no image of its cells"),
    "numbers-as-well": (lambda svg: svg.replace("</svg>", '<text id="fig-value-0-0">0.25</text></svg>'),
                        "heatmap fig was drawn as an image, and the SVG has its cells or their numbers one by one"),
    "cells-as-well": (lambda svg: svg.replace("</svg>", '<path id="fig-cell-0-0" d="M 0 0 L 1 1"/></svg>'),
                      "heatmap fig was drawn as an image, and the SVG has its cells or their numbers one by one"),
    "not-a-png": (lambda svg: re.sub(IMAGE, lambda m: m[1] + "bm90IGEgcG5n", svg, count=1),  # "not a png"
                  "heatmap fig's image is not a PNG written into the SVG"),
    "not-base64": (lambda svg: re.sub(IMAGE, lambda m: m[1] + "!!!", svg, count=1),
                   "heatmap fig's image is not a PNG written into the SVG"),
    "a-jpeg": (lambda svg: re.sub(IMAGE, lambda m: m[1].replace("png", "jpeg") + "AAAA", svg, count=1),
               "heatmap fig's image is not a PNG written into the SVG"),
}


@pytest.mark.parametrize("kind", sorted(IMAGE_MANGLED))
def test_an_image_heatmap_must_be_one_picture_with_a_pixel_per_cell(tmp_path, monkeypatch, kind):
    mangle, message = IMAGE_MANGLED[kind]
    with pytest.raises(BuildError, match="figure fig: ") as failure:
        build_published_as(tmp_path, monkeypatch, mangle, as_image=True)
    assert message in str(failure.value)


def test_an_image_heatmap_written_with_line_breaks_in_its_base64_is_accepted(tmp_path, monkeypatch):
    """A browser ignores spaces inside base64 (matplotlib's own image writer starts a data URI with a line break)."""
    out = build_published_as(tmp_path, monkeypatch, lambda svg: re.sub(
        IMAGE, lambda m: m[1] + "\n" + "\n".join(re.findall(".{1,8}", m[0][len(m[1]):])), svg, count=1), as_image=True)
    assert "\n" in re.search(IMAGE, (out / "fragments" / "fig.html").read_text())[0]


@pytest.mark.parametrize("declared, message", [
    ('render=render, alt=lambda data: ""', "its alt(data) is empty: say what the figure shows"),
    ("render=lambda data, ax: ax.plot(data['w'][0]) and None",
     "it draws no heatmap, so declare alt(data) describing what it shows"),
], ids=["a-heatmap-with-an-empty-alt", "no-heatmap-and-no-alt"])
def test_a_figure_without_a_text_alternative_is_refused_saying_why(tmp_path, monkeypatch, declared, message):
    """A heatmap's text alternative is written from its numbers, unless alt(data) gives one; any other figure
    declares its own. Neither may be empty."""
    page = good_page("fig", 0.25).replace("render=render,", declared + ",")
    pages = make_package(tmp_path, monkeypatch, page=page)
    with pytest.raises(BuildError, match=re.escape(f"figure fig: {message}")):
        quiet_build(pages, tmp_path / "out")


def test_a_figure_breaking_after_a_good_build_keeps_its_last_good_files(tmp_path, monkeypatch):
    pages = make_package(tmp_path, monkeypatch, page=good_page("fig", 0.25))
    out = tmp_path / "out"
    quiet_build(pages, out)
    good = (out / "fragments" / "fig.html").read_bytes()
    path = module_file(tmp_path, pages[0])
    path.write_text(path.read_text().replace('["a", "b"]', '["a"]'))
    with pytest.raises(BuildError, match="fig"):
        quiet_build(pages, out)
    assert (out / "fragments" / "fig.html").read_bytes() == good


def test_the_command_line_reports_the_failing_item_and_exits_non_zero(tmp_path):
    result = subprocess.run([sys.executable, "-m", "figures_src.build", "--only", "no-such-figure",
                             "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 1
    assert "no-such-figure" in result.stderr
    assert not list(tmp_path.rglob("*.html"))


@pytest.mark.parametrize("site_url", [None, "https://example.org/attention/"])
def test_the_build_says_in_one_line_which_site_it_cites_when_site_url_is_unset(tmp_path, site_url, monkeypatch, capsys):
    """Without SITE_URL every permalink, <iframe> and BibTeX entry names the published site: `make site` says so, and
    goes on. (The command line's main(), with the build it calls recorded, not run: the command line end to end is
    above.)"""
    monkeypatch.delenv("SITE_URL", raising=False)
    if site_url:
        monkeypatch.setenv("SITE_URL", site_url)
    calls = []
    monkeypatch.setattr(figures_build, "build", lambda **kwargs: calls.append(kwargs) or ["scores-heatmap"])
    assert figures_build.main(["--only", "scores-heatmap", "--out", str(tmp_path)]) == 0
    assert calls == [{"only": ["scores-heatmap"], "force": False, "out": str(tmp_path), "jobs": None}], "it went on"
    notes = [line for line in capsys.readouterr().err.splitlines() if "SITE_URL" in line]
    if site_url:
        assert notes == []
    else:
        assert notes == [f"figures_src.build: note: SITE_URL is not set, so every permalink, <iframe> snippet and "
                         f"BibTeX entry points at the published site, {DEFAULT_SITE_URL} (to publish elsewhere, see "
                         "README.md, Deploying)"]


def test_a_build_that_sets_neither_address_cites_the_pages_site_of_the_default_repository(monkeypatch):
    """Issue 54: a local build's cite lines, BibTeX and <iframe> snippets named http://127.0.0.1:8000/. Without SITE_URL
    and REPO_URL, the build and MkDocs both take the GitHub Pages address of the default repository."""
    class EnvLoader(yaml.SafeLoader):
        pass

    EnvLoader.add_constructor("!ENV", lambda loader, node: loader.construct_sequence(node))  # [variable, default]
    EnvLoader.add_multi_constructor("!", lambda loader, suffix, node: None)  # MkDocs' other tags
    config = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=EnvLoader)
    (site_variable, mkdocs_site), (repo_variable, mkdocs_repo) = config["site_url"], config["extra"]["social"][0]["link"]
    assert (site_variable, repo_variable) == ("SITE_URL", "REPO_URL")
    owner, name = re.fullmatch(r"https://github\.com/([\w-]+)/([\w.-]+)", DEFAULT_REPO_URL).groups()
    pages = f"https://{owner.lower()}.github.io/{name}/"
    assert mkdocs_repo == DEFAULT_REPO_URL, "mkdocs.yml's default REPO_URL is figures_src/engine/site.py's"
    assert DEFAULT_SITE_URL == mkdocs_site == pages, (
        f"without SITE_URL the site cites {DEFAULT_SITE_URL} (build) and {mkdocs_site} (MkDocs): both must be {pages}, "
        "the Pages address of the default REPO_URL, never a preview address on this machine")
    monkeypatch.delenv("SITE_URL", raising=False)
    assert site.site_url() == pages
    scores = next(example for example in registry.examples() if example.id == "ex-scores")
    line = unescape(cite_line(scores, embeddable=True))  # the cite line, its permalink and the <iframe> to copy
    assert f"{pages}scores/#ex-scores" in line and f'src="{pages}embed/ex-scores/"' in line and "127.0.0.1" not in line


MASKED_PAGE = '''
def data():
    return {"seed": 0, "tokens": ["a", "b"], "d_k": 1, "scale": 1.0,
            "inputs": {"mask": [[True, False], [True, True]]}, "outputs": {},
            "steps": {"scores": [[1.0, float("-inf")], [2.0, 0.5]]}}


from figures_src.engine.items import example_heatmap

EX = Example("ex-masked", page=PAGE, title="Masked", data=data)
ITEMS = [EX, example_heatmap("masked-fig", EX, "scores", masked=True, title="Masked.", caption="Masked.",
                             size=(3, 3))]
'''


def test_a_masked_figure_may_show_minus_infinity_exactly_where_its_mask_forbids(tmp_path, monkeypatch):
    pages = make_package(tmp_path, monkeypatch, masked=BROKEN_FIGURE.format(body=MASKED_PAGE))
    quiet_build(pages, tmp_path / "out")
    html = (tmp_path / "out" / "fragments" / "masked-fig.html").read_text()
    assert html.count("<td>−∞</td>") == 1


# ---------------------------------------------------------------- the manifest


def built_once(tmp_path, monkeypatch):
    pages = make_package(tmp_path, monkeypatch, page=good_page("fig", 0.25))
    out = tmp_path / "out"
    quiet_build(pages, out)
    return pages, out


@pytest.mark.parametrize("garbage", [b"{not json", b"[]", b'{"pages": {}, "items": []}', b"\xff\xfe",
                                     b'{"pages": {}, "items": {"fig": {"hash": 3, "outputs": "x"}}}'])
def test_a_garbage_manifest_is_a_clear_build_error(tmp_path, monkeypatch, garbage):
    pages, out = built_once(tmp_path, monkeypatch)
    (out / ".manifest.json").write_bytes(garbage)
    with pytest.raises(BuildError, match=r"\.manifest\.json: .*delete it"):
        quiet_build(pages, out)


@pytest.mark.parametrize("outside", ["../victim.txt", "../../victim.txt", "/tmp/victim.txt",
                                     "figures/../../victim.txt", ".", "figures", "figures/a\0b",
                                     "figures/" + "x" * 300, "/".join(["y" * 200] * 30)])
def test_a_manifest_naming_a_path_outside_generated_is_refused_and_nothing_outside_is_deleted(
        tmp_path, monkeypatch, outside):
    pages, out = built_once(tmp_path, monkeypatch)
    victims = [out.parent / "victim.txt", out.parent.parent / "victim.txt"]
    for victim in victims:
        victim.write_text("keep me")
    try:
        manifest = json.loads((out / ".manifest.json").read_text())
        manifest["items"]["gone"] = {"page": None, "hash": "x", "outputs": [outside]}  # no page declares it
        (out / ".manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(BuildError, match="not a file inside"):
            quiet_build(pages, out)
        assert all(victim.read_text() == "keep me" for victim in victims)
    finally:
        for victim in victims:
            victim.unlink(missing_ok=True)


@pytest.mark.parametrize("errno", [errno_module.ENOSPC, errno_module.EFBIG])
def test_a_file_the_build_cannot_write_is_a_build_error_naming_the_item_and_the_file(tmp_path, monkeypatch, errno):
    pages = make_package(tmp_path, monkeypatch, page=good_page("fig", 0.25))

    def full_disk(path, text):
        raise OSError(errno, os.strerror(errno))

    monkeypatch.setattr(figures_build, "write_atomic", full_disk)
    with pytest.raises(BuildError, match=rf"^item (fig|ex-\S+): writing \S+ failed \({os.strerror(errno)}\); the file "
                                         "was left as it was"):
        quiet_build(pages, tmp_path / "out")


def test_the_build_runs_from_another_directory(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # what the editable install puts on the path
    # a page's name, not an item's: an item new to the (empty) manifest sends the build to ask every page for its
    # items first (about 6 CPU s more)
    result = subprocess.run([sys.executable, "-m", "figures_src.build", "--only", "scores", "--jobs", "1",
                             "--out", str(tmp_path / "out")], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out" / "fragments" / "scores-heatmap.html").exists()


def test_the_installed_project_includes_the_build_so_it_runs_from_any_directory():
    from setuptools import find_packages  # noqa: PLC0415

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = config.get("packages", [])
    found = set(find_packages(str(ROOT), **packages["find"])) if isinstance(packages, dict) else set(packages)
    expected = {".".join(p.relative_to(ROOT).parent.parts) for p in (ROOT / "figures_src").rglob("__init__.py")}
    assert expected <= found, f"not installed: {sorted(expected - found)}"


# ---------------------------------------------------------------- a file changed after the build (issue 41)

EVERY_KIND = '''
"""A throw-away page writing every kind of generated file: an example's JSON, embed page and snippets, a
figure's fragment and downloads, a binary download."""
from figures_src.engine import Example, Snippets, example_heatmap
from figures_src.pages import sentences

PAGE = "index.md"

EX = Example("ex-every-kind", page=PAGE, title="Every kind", data=lambda: sentences.self_attention_example(sentences.RUNNING),
             snippets=lambda example: {"tokens": " ".join(example["tokens"])})
ITEMS = [EX, example_heatmap("fig-every-kind", EX, "weights", title="Weights.", caption="Weights.", size=(3.6, 3.2)),
         Snippets("model-every-kind", data=dict, public=lambda data: {"models/every-kind.bin": bytes(range(256)) * 8})]
'''

# (file, what is done to it), one of each kind of file the build publishes, each corruption the issue found
CORRUPTED = {
    "example-json": ("public/examples/ex-every-kind.json", "append"),
    "figure-html": ("fragments/fig-every-kind.html", "cut"),
    "svg": ("public/figures/fig-every-kind.svg", "overwrite"),
    "png": ("public/figures/fig-every-kind.png", "overwrite"),
    "snippet-markdown": ("snippets/ex-every-kind-tokens.md", "append"),
    "model-bin": ("public/models/every-kind.bin", "overwrite"),
    "embed-page": ("public/embed/ex-every-kind/index.html", "cut"),
}


def corrupt(path, how):
    data = path.read_bytes()
    if how == "append":
        path.write_bytes(data + b"GARBAGE")
    elif how == "cut":
        path.write_bytes(data[:200])
    else:  # the same length, 100 bytes overwritten
        path.write_bytes(data[:100] + bytes(b ^ 0xFF for b in data[100:200]) + data[200:])
    assert path.read_bytes() != data


@pytest.fixture(scope="module")
def every_kind_built(tmp_path_factory):
    """(page, generated folder) of EVERY_KIND, built once; a test corrupts a copy."""
    src = tmp_path_factory.mktemp("src")
    package = f"aih_testpages_{next(_counter)}"
    (src / package).mkdir()
    (src / package / "__init__.py").write_text("")
    (src / package / "page.py").write_text(EVERY_KIND)
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(src))
        out = tmp_path_factory.mktemp("generated")
        pages = [f"{package}.page"]
        quiet_build(pages, out)
        yield pages, out


@pytest.mark.parametrize("kind", sorted(CORRUPTED))
def test_a_file_changed_after_the_build_is_never_published_and_the_build_writes_it_again(every_kind_built, tmp_path,
                                                                                        kind):
    pages, built = every_kind_built
    out = tmp_path / "generated"
    shutil.copytree(built, out)
    figures_build.check_generated(out)  # as built: every file is what the manifest says
    path, how = CORRUPTED[kind]
    good = (out / path).read_bytes()
    corrupt(out / path, how)

    # at publish time (the site build's hook calls this before it touches site/): an error naming the file
    with pytest.raises(BuildError, match=re.escape(f"{out / path}: changed since") + ".*run `make figures`"):
        figures_build.check_generated(out)
    # the figure build: its item is stale, so it is written again, and says why in one line
    logged = []
    rebuilt = figures_build.build(pages, out=out, log=logged.append)
    assert len(rebuilt) == 1, rebuilt
    assert logged[0] == f"{out / path}: changed since the build wrote it; rebuilding {rebuilt[0]}"
    assert (out / path).read_bytes() == good
    figures_build.check_generated(out)


def test_a_missing_or_stray_generated_file_is_refused_at_publish_time(every_kind_built, tmp_path):
    pages, built = every_kind_built
    out = tmp_path / "generated"
    shutil.copytree(built, out)
    (out / "public" / "examples" / "ex-stray.json").write_text("{}")
    with pytest.raises(BuildError, match=re.escape(f"{out / 'public/examples/ex-stray.json'} was not written by")):
        figures_build.check_generated(out)
    (out / "public" / "examples" / "ex-stray.json").unlink()
    (out / "snippets" / "ex-every-kind-tokens.md").unlink()
    with pytest.raises(BuildError, match=re.escape(f"{out / 'snippets/ex-every-kind-tokens.md'}: missing since")):
        figures_build.check_generated(out)


def test_generated_built_for_another_site_url_is_refused_at_publish_time(every_kind_built, tmp_path):
    """make figures without SITE_URL, then SITE_URL=… mkdocs build, published two addresses: the canonical links had
    the new one, the iframe snippets and permalinks the old."""
    from figures_src.engine.site import site_url  # noqa: PLC0415

    _, out = every_kind_built
    figures_build.check_generated(out, site_url=site_url())  # the address it was built for
    with pytest.raises(BuildError, match=r"item \S+ was built for SITE_URL \S+, but the site is built for "
                                         r"https://example\.org/x/; run `make figures` with SITE_URL=https://example\.org/x/"):
        figures_build.check_generated(out, site_url="https://example.org/x")


def test_the_site_build_refuses_a_changed_generated_file_before_it_touches_site(every_kind_built, tmp_path,
                                                                                 monkeypatch):
    from mkdocs.exceptions import PluginError  # noqa: PLC0415

    from figures_src.engine.site import site_url  # noqa: PLC0415
    from finish import FinishError, published  # noqa: PLC0415
    from hooks import finish_site  # noqa: PLC0415

    _, built = every_kind_built
    shutil.copytree(built, tmp_path / "generated")
    monkeypatch.setattr(finish_site, "ROOT", tmp_path)
    config = {"site_url": site_url()}  # the address generated/ was built for
    finish_site.on_pre_build(config)
    with pytest.raises(PluginError, match=r"was built for SITE_URL .* but the site is built for https://example\.org/"):
        finish_site.on_pre_build({"site_url": "https://example.org/"})
    # the post-build pass checks the same before it publishes generated/public/ (what Zensical's build relies on)
    site = SimpleNamespace(generated=tmp_path / "generated", serving=False, site_url="https://example.org/",
                           docs=tmp_path / "docs", root=tmp_path / "site")
    with pytest.raises(FinishError, match=r"was built for SITE_URL .* but the site is built for https://example\.org/"):
        published.run(site)
    corrupt(tmp_path / "generated/public/models/every-kind.bin", "overwrite")
    with pytest.raises(PluginError, match=r"every-kind\.bin: changed since .*run `make figures`"):
        finish_site.on_pre_build(config)
    with pytest.raises(FinishError, match=r"every-kind\.bin: changed since .*run `make figures`"):
        published.run(SimpleNamespace(**{**vars(site), "site_url": site_url()}))
    assert not (tmp_path / "site").exists(), "nothing is published from a generated/ that failed its check"


# ---------------------------------------------------------------- Ctrl-C (issue 41)

SLOW_PAGE = '''
"""One quick download, then two that take a minute each: the build is interrupted while they render."""
import time
from pathlib import Path

from figures_src.engine import Snippets

PAGE = "index.md"


def slow():
    Path({started!r}).touch()
    time.sleep(60)
    return {{}}


ITEMS = [Snippets("quick", data=dict, public=lambda data: {{"quick.txt": "done\\n"}}),
         Snippets("slow-one", data=slow, public=lambda data: {{"slow-one.txt": "never\\n"}}),
         Snippets("slow-two", data=slow, public=lambda data: {{"slow-two.txt": "never\\n"}})]
'''

RUN_BUILD = '''
import sys
sys.path.insert(0, {src!r})
from figures_src import build
build.registry.page_modules = lambda: [{page!r}]
sys.exit(build.main(["--out", {out!r}, "--jobs", "{jobs}"]))
'''


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_stops_the_build_in_one_line_with_exit_130_and_nothing_half_written(tmp_path, jobs):
    import signal  # noqa: PLC0415

    started, out = tmp_path / "started", tmp_path / "out"
    package = f"aih_testpages_{next(_counter)}"
    (tmp_path / "src" / package).mkdir(parents=True)
    (tmp_path / "src" / package / "__init__.py").write_text("")
    (tmp_path / "src" / package / "page.py").write_text(SLOW_PAGE.format(started=str(started)))
    script = RUN_BUILD.format(src=str(tmp_path / "src"), page=f"{package}.page", out=str(out), jobs=jobs)
    # A shell that starts a command in the background without job control (CI may) has it ignore SIGINT, and a
    # Python started ignoring it never turns it into KeyboardInterrupt: the build gets Ctrl-C as a terminal gives it.
    build = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, start_new_session=True, env={**os.environ, "SITE_URL": "https://example.org/aih/"},
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        for _ in range(600):
            if started.exists() or build.poll() is not None:
                break
            time.sleep(0.05)
        assert started.exists(), build.communicate()
        os.killpg(build.pid, signal.SIGINT)  # what Ctrl-C does: the whole foreground group gets it
        stdout, stderr = build.communicate(timeout=30)
    finally:
        if build.poll() is None:
            os.killpg(build.pid, signal.SIGKILL)
    assert build.returncode == 130, stderr
    assert "Traceback" not in stderr + stdout
    assert stderr.strip().splitlines() == ["figures_src.build: interrupted; no file was left half-written, run it again to finish"]
    assert not [p for p in out.rglob("*") if ".tmp" in p.name], "a temporary file was left behind"
    assert not list(out.rglob("slow-*.txt"))
    if (out / "public" / "quick.txt").exists():
        assert (out / "public" / "quick.txt").read_text() == "done\n"


# ---------------------------------------------------------------- one output whatever the Python


@pytest.fixture(scope="module")
def measured_peaks():
    from figures_src.pages import cost  # noqa: PLC0415

    return cost.measure_in_fresh_process()


def test_measured_peaks_print_the_same_whatever_python_s_own_few_hundred_bytes(measured_peaks, monkeypatch):
    """tracemalloc counts Python's objects too, a few hundred bytes that change between versions (3.12 printed
    321 KiB where 3.11 printed 321.1 KiB): the page prints the same with ±400 bytes on every peak."""
    from figures_src.pages import cost  # noqa: PLC0415

    printed = []
    for shift in (-400, 0, 400):
        shifted = {name: [b + shift for b in peaks] for name, peaks in measured_peaks.items()}
        monkeypatch.setattr(cost, "measure_in_fresh_process", lambda shifted=shifted: shifted)
        data = cost.memory_data()
        printed.append((cost.memory_table(data), cost.memory_snippets(data), cost.memory_caption(data)))
    assert printed[0] == printed[1] == printed[2]


def test_measured_peaks_sit_well_inside_their_rounding_step(measured_peaks):
    from figures_src.pages.cost import GRANULARITY  # noqa: PLC0415

    margin = 1024
    for name, peaks in measured_peaks.items():
        for b in peaks:
            assert margin <= b % GRANULARITY <= GRANULARITY - margin, \
                f"{name}: a peak of {b} bytes is within {margin} bytes of a rounding step; change GRANULARITY"


def test_the_python_version_is_an_input_of_every_page(monkeypatch):
    before = build_inputs.environment()
    monkeypatch.setattr(sys, "version_info", (3, sys.version_info[1] + 1, 0, "final", 0))
    assert build_inputs.environment() != before
