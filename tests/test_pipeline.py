"""The figure pipeline: what it writes, when it skips, and how it fails.

Two kinds of test: the real registry built into a temporary folder (its SVGs and fragments checked), and
small throw-away figure packages written under tmp_path (to make the build skip, rebuild and break).
"""
import itertools
import json
import re
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

from figures_src import _render
from figures_src import build as figures_build
from figures_src.build import BuildError

ROOT = Path(__file__).resolve().parents[1]
SVG_NS = "{http://www.w3.org/2000/svg}"
_counter = itertools.count()


# ---------------------------------------------------------------- the real registry


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Every registry item built from scratch into a temporary generated/ folder."""
    out = tmp_path_factory.mktemp("generated")
    figures_build.build(out=out, log=lambda *_: None)
    return out


def figure_names(out):
    return sorted(p.stem for p in (out / "figures").glob("*.svg"))


def test_every_registry_item_produces_its_files(built):
    manifest = json.loads((built / ".manifest.json").read_text())
    names = [figures_build.item_name(m) for m in figures_build.registry_modules()]
    assert sorted(manifest) == sorted(names)
    for name in names:
        assert manifest[name]["outputs"], name
        for path in manifest[name]["outputs"]:
            assert (built / path).is_file(), f"{name}: {path} missing"
    assert not list(built.rglob("*.tmp*")), "temporary files left behind"


def test_svgs_are_well_formed_with_size_and_prefixed_ids(built):
    names = figure_names(built)
    assert names, "the registry has no figure"
    for name in names:
        text = (built / "figures" / f"{name}.svg").read_text()
        root = ET.fromstring(text)  # raises on malformed XML
        assert root.tag == f"{SVG_NS}svg", name
        for attribute in ("width", "height", "viewBox"):
            assert root.get(attribute), f"{name}: no {attribute}"
        assert not text.startswith("<?xml"), f"{name}: XML prolog left in"
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
    for name in figure_names(built):
        text = (built / "figures" / f"{name}.svg").read_text()
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
    """Drawn again here, each heatmap's array shape must match the cell ids in the published SVG."""
    import importlib

    checked = 0
    for dotted in figures_build.registry_modules():
        module = importlib.import_module(dotted)
        if not hasattr(module, "render"):
            continue
        name = figures_build.item_name(dotted)
        _, _, heatmaps = _render.draw_figure(module, name)
        root = ET.fromstring((built / "figures" / f"{name}.svg").read_text())
        html_head = (built / "figures" / f"{name}.html").read_text().split(">", 1)[0]
        cells = heatmap_cells(root)
        assert sorted(cells) == sorted(hm.name for hm in heatmaps), f"{name}: heatmaps and cell groups differ"
        assert ("aih-heatmap" in html_head) == bool(heatmaps), f"{name}: aih-heatmap class wrong"
        for hm in heatmaps:
            n_q, n_k = hm.values.shape
            positions = cells[hm.name]
            assert len(positions) == n_q * n_k, f"{hm.name}: {len(positions)} cell elements for {n_q}×{n_k}"
            assert set(positions) == {(i, j) for i in range(n_q) for j in range(n_k)}, hm.name
            values = [e for e in root.iter() if re.fullmatch(rf"{re.escape(hm.name)}-value-\d+-\d+", e.get("id") or "")]
            assert len(values) in (0, n_q * n_k), f"{hm.name}: {len(values)} printed values for {n_q}×{n_k} cells"
            assert all("".join(v.itertext()).strip() for v in values), f"{hm.name}: an empty printed value"
            checked += 1
    assert checked, "no heatmap in the registry"


def test_ids_unique_when_every_figure_is_inlined_on_one_page(built):
    ids = Counter()
    for path in (built / "figures").glob("*.html"):
        ids.update(re.findall(r'\bid="([^"]+)"', path.read_text()))
    duplicates = [i for i, n in ids.items() if n > 1]
    assert not duplicates, f"ids used twice across figures: {duplicates[:10]}"


def test_fragments_leak_no_stylesheet_and_have_no_blank_line(built):
    for path in (built / "figures").glob("*.html"):
        text = path.read_text()
        assert "<style" not in text.lower(), f"{path.name}: a <style> element would restyle the page"
        assert "<script" not in text.lower(), f"{path.name}: a fragment carries no script"
        assert "\n\n" not in text, f"{path.name}: a blank line would end the Markdown HTML block"
        assert text.startswith("<figure ") and text.rstrip().endswith("</figure>"), path.name
        assert "<figcaption>" in text and "<table" in text, f"{path.name}: caption or data table missing"


def test_examples_follow_the_contract(built):
    manifest = json.loads((built / ".manifest.json").read_text())
    examples = [name for name, entry in manifest.items() if f"snippets/{name}-cite.md" in entry["outputs"]]
    assert examples, "no worked example in the registry"
    for name in examples:
        example = json.loads((built / "public" / "examples" / f"{name}.json").read_text())
        assert example["id"] == name
        for key in _render.EXAMPLE_KEYS:
            assert key in example, f"{name}: no {key}"
        cite = (built / "snippets" / f"{name}-cite.md").read_text()
        assert f'id="{name}"' in cite and f"examples/{name}.json" in cite


# ---------------------------------------------------------------- throw-away figure packages

GOOD_FIGURE = '''
"""A tiny test heatmap."""
import numpy as np
from figures_src.heatmap import heatmap

CAPTION = "A 2 by 3 test heatmap."
VALUE = {value}


def data():
    return {{"w": np.full((2, 3), VALUE)}}


def render(data, ax):
    heatmap(ax, data["w"], ["a", "b"], ["x", "y", "z"], quantity="weights")
'''


def make_package(tmp_path, monkeypatch, **modules):
    """A fresh importable package under tmp_path holding `modules` {name: source}; -> dotted names."""
    package = f"aih_testfigs_{next(_counter)}"
    folder = tmp_path / "src" / package
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("")
    for name, source in modules.items():
        (folder / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    return [f"{package}.{name}" for name in modules]


def test_unchanged_items_are_skipped_and_changed_ones_rebuilt(tmp_path, monkeypatch):
    modules = make_package(tmp_path, monkeypatch, fig_one=GOOD_FIGURE.format(value=0.25),
                           fig_two=GOOD_FIGURE.format(value=0.5))
    out = tmp_path / "out"
    assert figures_build.build(modules, out=out, log=lambda *_: None) == ["fig-one", "fig-two"]
    svg = out / "figures" / "fig-one.svg"
    mtime = svg.stat().st_mtime_ns
    assert figures_build.build(modules, out=out, log=lambda *_: None) == []
    assert svg.stat().st_mtime_ns == mtime

    module_file = tmp_path / "src" / modules[1].split(".")[0] / "fig_two.py"
    module_file.write_text(module_file.read_text().replace("VALUE = 0.5", "VALUE = 0.75"))
    assert figures_build.build(modules, out=out, log=lambda *_: None) == ["fig-two"]
    assert "0.75" in (out / "figures" / "fig-two.html").read_text(), "rebuilt from the module imported first"

    (out / "figures" / "fig-one.html").unlink()  # a missing output is rebuilt even if the inputs are unchanged
    assert figures_build.build(modules, out=out, log=lambda *_: None) == ["fig-one"]


def test_a_change_in_a_shared_input_rebuilds_everything(tmp_path, monkeypatch):
    modules = make_package(tmp_path, monkeypatch, fig_one=GOOD_FIGURE.format(value=0.25))
    out = tmp_path / "out"
    figures_build.build(modules, out=out, log=lambda *_: None)
    fake_shared = tmp_path / "shared_helper.py"
    fake_shared.write_text("A = 1\n")
    monkeypatch.setattr(figures_build, "SHARED", figures_build.SHARED + [fake_shared])
    assert figures_build.build(modules, out=out, log=lambda *_: None) == ["fig-one"]
    fake_shared.write_text("A = 2\n")
    assert figures_build.build(modules, out=out, log=lambda *_: None) == ["fig-one"]
    assert figures_build.build(modules, out=out, log=lambda *_: None) == []


def test_a_sibling_module_import_is_an_input(tmp_path, monkeypatch):
    uses_sibling = '''
    """A heatmap whose numbers come from a sibling module."""
    from . import numbers
    from figures_src.heatmap import heatmap

    CAPTION = "Numbers from a sibling."


    def data():
        return {"w": numbers.W}


    def render(data, ax):
        heatmap(ax, data["w"], ["a"], ["x", "y"], quantity="weights")
    '''
    modules = make_package(tmp_path, monkeypatch, numbers="W = [[0.5, 0.5]]\n", fig=uses_sibling)
    out = tmp_path / "out"
    figures_build.build(modules[1:], out=out, log=lambda *_: None)
    assert "0.75" not in (out / "figures" / "fig.html").read_text()
    (tmp_path / "src" / modules[0].split(".")[0] / "numbers.py").write_text("W = [[0.25, 0.75]]\n")
    assert figures_build.build(modules[1:], out=out, log=lambda *_: None) == ["fig"]
    assert "0.75" in (out / "figures" / "fig.html").read_text(), "rebuilt from the module imported first"


def test_a_data_file_listed_in_inputs_is_an_input(tmp_path, monkeypatch):
    table = tmp_path / "table.txt"
    table.write_text("0.5 0.5\n")
    reads_data = f'''
    """A heatmap whose numbers come from a data file."""
    from pathlib import Path
    from figures_src.heatmap import heatmap

    INPUTS = ["{table}"]
    CAPTION = "Numbers from a file."


    def data():
        return {{"w": [[float(x) for x in Path(INPUTS[0]).read_text().split()]]}}


    def render(data, ax):
        heatmap(ax, data["w"], ["a"], ["x", "y"], quantity="weights")
    '''
    modules = make_package(tmp_path, monkeypatch, fig=reads_data)
    out = tmp_path / "out"
    assert figures_build.build(modules, out=out, log=lambda *_: None) == ["fig"]
    assert figures_build.build(modules, out=out, log=lambda *_: None) == []
    table.write_text("0.25 0.75\n")
    assert figures_build.build(modules, out=out, log=lambda *_: None) == ["fig"]
    table.unlink()
    with pytest.raises(BuildError, match="INPUTS names .*table.txt"):
        figures_build.build(modules, out=out, log=lambda *_: None)


PUBLISHES = '''
"""Publishes one download."""


def data():
    return {{}}


def public(data):
    return {{"downloads/shared.txt": "{text}\\n"}}
'''


def test_an_item_dropped_from_the_registry_leaves_only_what_others_still_write(tmp_path, monkeypatch):
    old, new, figure = make_package(tmp_path, monkeypatch, old_item=PUBLISHES.format(text="old"),
                                    new_item=PUBLISHES.format(text="new"), fig_one=GOOD_FIGURE.format(value=0.25))
    out = tmp_path / "out"
    figures_build.build([old, figure], out=out, log=lambda *_: None)
    assert (out / "public/downloads/shared.txt").read_text() == "old\n"
    figures_build.build([new], out=out, log=lambda *_: None)  # old_item renamed; fig_one dropped
    assert (out / "public/downloads/shared.txt").read_text() == "new\n", "the new owner's file was deleted"
    assert not (out / "figures/fig-one.svg").exists() and not (out / "figures/fig-one.html").exists()
    assert sorted(json.loads((out / ".manifest.json").read_text())) == ["new-item"]


def test_only_builds_the_named_item_and_force_rebuilds(tmp_path, monkeypatch):
    modules = make_package(tmp_path, monkeypatch, fig_one=GOOD_FIGURE.format(value=0.25),
                           fig_two=GOOD_FIGURE.format(value=0.5))
    out = tmp_path / "out"
    assert figures_build.build(modules, only=["fig_two"], out=out, log=lambda *_: None) == ["fig-two"]
    assert not (out / "figures" / "fig-one.svg").exists()
    assert figures_build.build(modules, only=["fig-two"], out=out, log=lambda *_: None) == []
    assert figures_build.build(modules, only=["fig-two"], force=True, out=out, log=lambda *_: None) == ["fig-two"]
    assert figures_build.build(modules, force=True, out=out, log=lambda *_: None) == ["fig-one", "fig-two"]
    with pytest.raises(BuildError, match="unknown item.*nope"):
        figures_build.build(modules, only=["nope"], out=out, log=lambda *_: None)


def test_force_gives_byte_identical_files(tmp_path, monkeypatch):
    modules = make_package(tmp_path, monkeypatch, fig=GOOD_FIGURE.format(value=0.25))
    first, second = tmp_path / "a", tmp_path / "b"
    figures_build.build(modules, out=first, log=lambda *_: None)
    figures_build.build(modules, out=second, force=True, log=lambda *_: None)
    for path in first.rglob("*"):
        if path.is_file():
            assert path.read_bytes() == (second / path.relative_to(first)).read_bytes(), path.name


BROKEN = {
    "raises": ('''
        """Raises while computing."""
        def data():
            raise ZeroDivisionError("the figure's own bug")


        def render(data, ax):
            pass
        ''', "ZeroDivisionError"),
    "wrong_shape": ('''
        """Hands the heatmap a 3-D array."""
        import numpy as np
        from figures_src.heatmap import heatmap

        CAPTION = "Broken."


        def data():
            return np.zeros((2, 2, 2))


        def render(data, ax):
            heatmap(ax, data, ["a", "b"], ["x", "y"], quantity="scores")
        ''', "must be 2-D"),
    "wrong_labels": ('''
        """Has fewer labels than rows."""
        import numpy as np
        from figures_src.heatmap import heatmap

        CAPTION = "Broken."


        def data():
            return np.zeros((3, 2))


        def render(data, ax):
            heatmap(ax, data, ["a", "b"], ["x", "y"], quantity="weights")
        ''', "needs 3 row labels"),
    "no_caption": ('''
        """Says nothing about itself."""
        import numpy as np
        from figures_src.heatmap import heatmap


        def data():
            return np.zeros((2, 2))


        def render(data, ax):
            heatmap(ax, data, ["a", "b"], ["x", "y"], quantity="weights")
        ''', "caption"),
    "bad_example": ('''
        """An example whose weights do not match its tokens."""
        def example():
            return {"id": "bad-example", "title": "t", "page": "scores/", "library_version": "1", "seed": 0,
                    "tokens": ["a", "b"], "inputs": {}, "steps": {"weights": [[1.0]]}, "outputs": {}}
        ''', "expected"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_broken_module_stops_the_build_naming_it_and_writes_nothing(tmp_path, monkeypatch, kind):
    source, message = BROKEN[kind]
    modules = make_package(tmp_path, monkeypatch, fig_good=GOOD_FIGURE.format(value=0.25), **{kind: source})
    out = tmp_path / "out"
    figures_build.build(modules[:1], out=out, log=lambda *_: None)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    name = kind.replace("_", "-")
    with pytest.raises(BuildError, match=re.escape(name)) as failure:
        figures_build.build(modules, force=True, out=out, log=lambda *_: None)
    assert message in str(failure.value)
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert not [p for p in after if name in p.name], f"{kind}: a file was written for the broken item"
    assert not [p for p in after if ".tmp" in p.name], f"{kind}: a temporary file was left behind"
    assert set(after) == set(before)
    assert all(after[p] == before[p] for p in before if p.name != ".manifest.json"), "earlier outputs changed"


def test_a_figure_breaking_after_a_good_build_keeps_its_last_good_files(tmp_path, monkeypatch):
    modules = make_package(tmp_path, monkeypatch, fig=GOOD_FIGURE.format(value=0.25))
    out = tmp_path / "out"
    figures_build.build(modules, out=out, log=lambda *_: None)
    good = (out / "figures" / "fig.svg").read_bytes()
    path = tmp_path / "src" / modules[0].split(".")[0] / "fig.py"
    path.write_text(path.read_text().replace('["a", "b"]', '["a"]'))
    sys.modules.pop(modules[0], None)
    with pytest.raises(BuildError, match="fig"):
        figures_build.build(modules, out=out, log=lambda *_: None)
    assert (out / "figures" / "fig.svg").read_bytes() == good


def test_the_command_line_reports_the_failing_item_and_exits_non_zero(tmp_path):
    result = subprocess.run([sys.executable, "-m", "figures_src.build", "--only", "no-such-figure",
                             "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 1
    assert "no-such-figure" in result.stderr
    assert not list(tmp_path.rglob("*.svg"))
