"""Every page as a notebook (issue 59): each page that computes numbers declares one; the build writes it as valid
nbformat 4 and runs it; on a fresh kernel it runs top to bottom, its outputs are the ones it ships with, and every
worked example it computes equals the published JSON; each page links its own, and the cite page offers them all in
one zip that holds exactly them.

The engine's pieces (the comparison, the zip, `attend` by hand) are tested build-free; the published notebooks are
run again here from generated/, each on a kernel of its own, in a folder of its own.
"""
import copy
import importlib
import inspect
import io
import json
import re
import zipfile
from pathlib import Path

import nbformat
import numpy as np
import pytest

import attention
from figures_src import registry
from figures_src.engine.errors import BuildError
from figures_src.engine.examples import example_json
from figures_src.engine.items import Example, Figure
from figures_src.engine.notebooks import (LARGEST_OUTPUT, METADATA, RAISES, ZIP, NotebookItem, attend_by_hand,
                                          check_outputs, code, markdown, mismatch, nbformat_notebook, run, source)
from finish.published import notebooks_zip

ROOT = Path(__file__).resolve().parents[1]
# Pages whose modules declare items but compute no numbers a reader could redo: the cite page lists the others.
NO_NOTEBOOK = {"figures_src.pages.cite": "it lists the other pages' examples, figures and notebooks"}


def declared_notebooks():
    """[(page module, NotebookItem)] in navigation order, from the declarations (nothing is built)."""
    return [(module, item) for module in registry.page_modules()
            for item in importlib.import_module(module).ITEMS if isinstance(item, NotebookItem)]


NOTEBOOKS = declared_notebooks()


# ---------------------------------------------------------------- build-free: the engine


def test_every_page_that_computes_numbers_declares_one_notebook_of_its_own():
    markdown_of = registry.markdown_files()
    for module in registry.page_modules():
        items = importlib.import_module(module).ITEMS
        notebooks = [item for item in items if isinstance(item, NotebookItem)]
        if module in NO_NOTEBOOK:
            assert not notebooks, f"{module}: declares a notebook, but NO_NOTEBOOK says {NO_NOTEBOOK[module]}"
            continue
        assert len(notebooks) == 1, (f"{module}: a page that computes numbers declares exactly one notebook "
                                     f"(figures_src/engine/notebooks.py), not {len(notebooks)}")
        assert notebooks[0].page == markdown_of[module], \
            f"{module}: its notebook is of {notebooks[0].page}, not of its own page {markdown_of[module]}"


def test_attend_by_hand_is_the_library_s_attend():
    rng = np.random.default_rng(3)
    Q, K, V = rng.normal(size=(3, 6, 5))
    for mask in (None, attention.causal_mask(6)):
        out, A = attend_by_hand(Q, K, V, mask)
        out_lib, A_lib = attention.attend(Q, K, V, mask=mask)
        np.testing.assert_allclose(out, out_lib, rtol=0, atol=1e-12,
                                   err_msg="the notebooks' attend in plain numpy computes what attention.attend does")
        np.testing.assert_allclose(A, A_lib, rtol=0, atol=1e-12)


def test_a_source_cell_is_the_function_s_own_text():
    cell = source(attend_by_hand)
    assert cell.kind == "code" and cell.text == inspect.getsource(attend_by_hand).strip("\n"), \
        "a source() cell holds the function exactly as its module does: no second copy of the code"


def test_a_notebook_is_valid_nbformat_4_with_the_python3_kernel_and_stable_cell_ids():
    nb = nbformat_notebook([markdown("# A title"), code("x = 1\nx"), code("raise ValueError", tags=(RAISES,))],
                           "scores.md", {"ex-scores": "example"})
    nbformat.validate(nb)
    assert nb.nbformat == 4 and nb.metadata.kernelspec.name == "python3", "notebooks run on the python3 kernel"
    assert "version" not in nb.metadata.language_info, \
        "the notebook names no patch version of Python: every machine writes the same bytes"
    assert [c.id for c in nb.cells] == ["cell-1", "cell-2", "cell-3"], "cell ids are stable, not random"
    assert nb.metadata[METADATA] == {"page": "scores/", "examples": {"ex-scores": "example"}}
    assert nb.cells[2].metadata.tags == [RAISES]


def example_of(example_id):
    return next(e for e in registry.examples() if e.id == example_id)


def test_mismatch_accepts_the_example_itself_and_names_what_differs():
    example = example_of("ex-scores").compute()
    published = json.loads(example_json(example))
    numbers = {key: example[key] for key in ("inputs", "steps", "outputs", "tokens", "d_k", "scale")}
    assert mismatch(published, numbers) is None, "the example's own numbers match its published JSON"

    changed = copy.deepcopy(numbers)
    changed["steps"]["weights"] = changed["steps"]["weights"] + 1e-9
    assert "steps.weights" in (mismatch(published, changed) or ""), "a number off by 1e-9 is named"

    lacking = copy.deepcopy(numbers)
    del lacking["steps"]["entropy"]
    assert "entropy" in (mismatch(published, lacking) or ""), "an array of steps the notebook lacks is named"

    reshaped = copy.deepcopy(numbers)
    reshaped["inputs"]["X"] = reshaped["inputs"]["X"].T
    assert "shape" in (mismatch(published, reshaped) or ""), "a transposed array is named by its shape"

    stranger = dict(numbers, surprise=1.0)
    assert "surprise" in (mismatch(published, stranger) or ""), "a field the JSON has not is named"


def test_mismatch_reads_a_masked_score_as_the_json_writes_it():
    example = example_of("ex-mask-causal").compute()
    published = json.loads(example_json(example))
    numbers = {key: example[key] for key in ("inputs", "steps", "outputs")}
    assert mismatch(published, numbers) is None, "−∞ in the notebook is null in the JSON: the same masked score"


def test_the_zip_holds_the_notebooks_and_is_the_same_bytes_every_time(tmp_path):
    files = []
    for name, text in (("b.ipynb", "second"), ("a.ipynb", "first")):
        (tmp_path / name).write_text(text)
        files.append(tmp_path / name)
    first = notebooks_zip(sorted(files))
    (tmp_path / "a.ipynb").touch()  # a newer modification time changes nothing
    assert notebooks_zip(sorted(files)) == first, "the zip of the same notebooks is the same bytes"
    archive = zipfile.ZipFile(io.BytesIO(first))
    folder = ZIP.rsplit("/", 1)[1].removesuffix(".zip")
    assert archive.namelist() == [f"{folder}/a.ipynb", f"{folder}/b.ipynb"], "one folder, the notebooks in name order"
    assert archive.read(f"{folder}/a.ipynb") == b"first"


def test_an_oversized_figure_or_a_folder_of_this_machine_in_an_output_stops_the_build():
    nb = nbformat_notebook([code("x")])
    nb.cells[0].outputs = [nbformat.v4.new_output("display_data", data={"image/png": "A" * (LARGEST_OUTPUT + 1)})]
    with pytest.raises(BuildError, match=r"big\.ipynb, cell 1: a image/png output of 200,001 bytes"):
        check_outputs(nb, "big.ipynb")
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"read {ROOT}/data/x.json\n")]
    with pytest.raises(BuildError, match=r"shows the path"):
        check_outputs(nb, "path.ipynb")
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", name="stdout", text="read data/x.json\n")]
    check_outputs(nb, "fine.ipynb")


@pytest.mark.slow
def test_a_cell_that_raises_stops_the_build_naming_it_unless_it_is_tagged():
    nb = nbformat_notebook([code("x = 2"), code("raise ValueError('planted')", tags=(RAISES,)), code("y = x * 3")])
    assert run(nb, {}, "tagged.ipynb") == {}
    assert "planted" in json.dumps(nb.cells[1].outputs), "a tagged cell's error is shown as its output"
    nb = nbformat_notebook([code("x = 2"), code("1 / 0")])
    with pytest.raises(BuildError, match=r"broken\.ipynb.*ZeroDivisionError"):
        run(nb, {}, "broken.ipynb")


# ---------------------------------------------------------------- the published notebooks (shared build)


def notebook_file(generated, item):
    return generated / "public" / item.path


def page_examples(module):
    return [item for item in importlib.import_module(module).ITEMS if isinstance(item, Example)]


@pytest.mark.parametrize(("module", "item"), NOTEBOOKS, ids=[item.name for _, item in NOTEBOOKS])
def test_a_published_notebook_is_valid_small_and_names_its_examples(generated, module, item):
    path = notebook_file(generated, item)
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "python3", f"{item.path}: runs on the python3 kernel"
    text = path.read_text(encoding="utf-8")
    for folder in sorted({str(ROOT), str(Path.home()), "/tmp/"}):
        assert folder not in text, f"{item.path}: names the folder {folder}; a notebook holds no absolute path"
    for k, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            for mime, value in output.get("data", {}).items():
                if mime.startswith("image/"):
                    assert len(value) <= LARGEST_OUTPUT, \
                        f"{item.path}, cell {k + 1}: a {mime} of {len(value):,} bytes; figures stay under 200 KB"
            assert output["output_type"] != "error" or RAISES in cell.metadata.get("tags", []), \
                f"{item.path}, cell {k + 1}: ships an error, and is not a cell tagged to raise"
    named = set(nb.metadata[METADATA]["examples"])
    cited = {e.id for e in page_examples(module) if e.cite_line}
    assert cited <= named, f"{item.path}: computes every worked example its page cites; it lacks {sorted(cited - named)}"
    every = {e.id for e in page_examples(module)}
    assert named <= every and (named or not every), f"{item.path}: names examples of its own page, at least one"


@pytest.mark.parametrize(("module", "item"), NOTEBOOKS, ids=[item.name for _, item in NOTEBOOKS])
def test_a_published_notebook_runs_on_a_fresh_kernel_to_its_own_outputs_and_the_json(generated, module, item):
    shipped = nbformat.read(notebook_file(generated, item), as_version=4)
    fresh = copy.deepcopy(shipped)
    for cell in fresh.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    variables = shipped.metadata[METADATA]["examples"]
    computed = run(fresh, variables, item.path)  # raises, naming the cell, if one fails
    for shipped_cell, fresh_cell in zip(shipped.cells, fresh.cells):
        if shipped_cell.cell_type == "code":
            assert fresh_cell.outputs == shipped_cell.outputs, \
                f"{item.path}, {shipped_cell.id}: a fresh kernel prints what the shipped notebook shows"
    for example_id, numbers in computed.items():
        published = json.loads((generated / "public" / "examples" / f"{example_id}.json").read_text(encoding="utf-8"))
        problem = mismatch(published, numbers, where=f"{item.path}: {example_id}")
        assert problem is None, f"every example a notebook computes equals the published JSON to 1e-12: {problem}"


def page_html(built_site, page):
    stem = page.removesuffix(".md")
    return built_site / ("index.html" if stem == "index" else f"{stem}/index.html")


DOWNLOAD = re.compile(r'<p class="aih-notebook"><a download="([^"]+)" href="([^"]+)">Download this page as a notebook')


@pytest.mark.parametrize(("module", "item"), NOTEBOOKS, ids=[item.name for _, item in NOTEBOOKS])
def test_each_page_offers_its_notebook_beside_its_first_cite_line(built_site, module, item):
    page = page_html(built_site, item.page)
    html = page.read_text(encoding="utf-8")
    found = DOWNLOAD.findall(html)
    assert len(found) == 1, f"{item.page}: offers its notebook once ('Download this page as a notebook (.ipynb)')"
    file, href = found[0]
    target = (page.parent / href).resolve()
    assert target == (built_site / item.path).resolve() and target.is_file(), \
        f"{item.page}: its download link {href} reaches {item.path} in the site"
    assert file == Path(item.path).name
    at = html.index('class="aih-notebook"')
    cite = html.find('class="aih-cite"')
    why = html.find('class="aih-why"')
    under_why = why != -1 and why < at and len(re.findall(r"<p[\s>]", html[why:at])) <= 1 and "<h2" not in html[why:at]
    # a page whose notebook starts above its first cite line (positions: the sine waves) offers it under its why line
    if cite != -1 and not under_why:
        assert cite < at, f"{item.page}: the notebook's line comes after the page's first cite line, not before it"
        between = html[cite:at]
        assert len(re.findall(r"<p[\s>]", between)) <= 1 and "<h2" not in between and "<figure" not in between, \
            f"{item.page}: the notebook's line comes right after the page's first cite line"


def test_the_cite_page_offers_every_notebook_in_one_zip_that_holds_exactly_them(built_site):
    archive = zipfile.ZipFile(built_site / ZIP)
    published = sorted((built_site / "notebooks").glob("*.ipynb"))
    assert sorted(Path(name).name for name in archive.namelist()) == sorted(p.name for p in published) \
        == sorted(Path(item.path).name for _, item in NOTEBOOKS), "the zip holds every page's notebook, no other file"
    for path in published:
        assert archive.read(next(n for n in archive.namelist() if n.endswith("/" + path.name))) == path.read_bytes(), \
            f"the zip's {path.name} is the published notebook, byte for byte"
    cite = (built_site / "cite" / "index.html").read_text(encoding="utf-8")
    link = re.search(r'<a href="([^"]+)" download="[^"]+">Download all (\d+) notebooks in one zip</a>', cite)
    assert link, "the cite page offers the zip of every notebook"
    assert (built_site / "cite" / link.group(1)).resolve() == (built_site / ZIP).resolve(), "its link reaches the zip"
    assert int(link.group(2)) == len(NOTEBOOKS), "it counts the notebooks it holds"
    for _, item in NOTEBOOKS:
        assert f'href="../{item.path}"' in cite, f"the cite page lists {item.path}"


def test_the_notebook_extra_pins_what_the_build_pins():
    import tomllib  # noqa: PLC0415

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    pins = dict(line.split("==", 1) for line in (ROOT / "constraints.txt").read_text().splitlines()
                if "==" in line and not line.startswith("#"))
    key = {re.sub(r"[-_.]+", "-", name).lower(): version for name, version in pins.items()}
    for requirement in extras["notebook"]:
        name, version = requirement.split("==")
        assert key.get(re.sub(r"[-_.]+", "-", name).lower()) == version, (
            f"pyproject's notebook extra pins {requirement}; the notebooks run in the build at constraints.txt's "
            f"{key.get(name.lower())}: keep the two the same")
