"""A notebook's first cell tells its reader how to get the library (issue 59). Done as it says, in a new virtual
environment with nothing borrowed from the tests' own, every published notebook runs top to bottom.

The cell's commands are read from the notebooks themselves: `git clone <repository>` (here, a copy of the
repository's tracked files under the folder name the cell uses: no test reaches GitHub) and each `pip install` line,
run with the new environment's pip from the package registry, as CI's own install is, held to the repository's
constraints.txt (PIP_CONSTRAINT), so a new release upstream cannot change what the test installs. Each notebook's code
cells then run as one script in that environment, from a folder of their own, with matplotlib drawing off-screen;
a cell tagged to raise (the problems' checks before they are solved) may raise.
"""
import os
import re
import shlex
import subprocess
import sys
import textwrap

import nbformat
import pytest

from figures_src.engine.notebooks import RAISES
from repo_copy import copy_repository




def commands(nb):
    """The shell lines of the notebook's install cell, in order."""
    cell = next(c for c in nb.cells if c.cell_type == "markdown" and "pip install" in c.source)
    blocks = re.findall(r"```bash\n(.*?)```", "\n\n".join(c.source for c in nb.cells if c.cell_type == "markdown"
                                                          and "pip install" in c.source), re.S)
    assert blocks, f"the install cell gives its commands in a bash block: {cell.source[:200]!r}"
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def script(nb):
    """The notebook's code cells as one Python script; a cell tagged to raise may."""
    parts = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if RAISES in cell.metadata.get("tags", []):
            parts.append("try:\n" + textwrap.indent(cell.source, "    ") + "\nexcept Exception:\n    pass")
        else:
            parts.append(cell.source)
    return "\n\n".join(parts) + "\n"


def test_every_notebook_runs_after_the_install_its_first_cell_gives(generated, tmp_path):
    notebooks = sorted((generated / "public" / "notebooks").glob("*.ipynb"))
    assert notebooks, "the build publishes the notebooks"
    read = {path.name: nbformat.read(path, as_version=4) for path in notebooks}
    lines = []
    for nb in read.values():
        lines += [line for line in commands(nb) if line not in lines]
    clones = [line for line in lines if line.startswith("git clone ")]
    assert len(clones) == 1, f"every notebook clones the same repository: {clones}"
    folder = clones[0].split()[-1].rstrip("/").rsplit("/", 1)[-1]
    copy_repository(tmp_path / folder)

    venv = tmp_path / "reader-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    for line in lines:
        if line.startswith("git clone "):
            continue
        words = shlex.split(line)
        assert words[:2] == ["pip", "install"], f"the install cell runs git clone and pip install only, not {line!r}"
        result = subprocess.run([str(venv / "bin" / "python"), "-m", *words[:2], "--quiet", *words[2:]], cwd=tmp_path,
                                capture_output=True, text=True, timeout=900,
                                env={**os.environ, "PIP_CONSTRAINT": str(tmp_path / folder / "constraints.txt")})
        assert result.returncode == 0, f"the install cell's `{line}` fails:\n{result.stderr[-3000:]}"

    for name, nb in read.items():
        runner = tmp_path / "run" / name.removesuffix(".ipynb")
        runner.mkdir(parents=True)
        (runner / "notebook.py").write_text(script(nb), encoding="utf-8")
        result = subprocess.run([str(venv / "bin" / "python"), "notebook.py"], cwd=runner, capture_output=True,
                                text=True, timeout=600, env={"MPLBACKEND": "Agg", "PATH": "/usr/bin:/bin",
                                                             "HOME": str(tmp_path)})
        assert result.returncode == 0, (f"{name}: after its install cell, in a new environment, the notebook runs top "
                                        f"to bottom; it stopped with:\n{result.stderr[-3000:]}")
