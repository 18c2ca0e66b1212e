"""A throw-away copy of the repository's tracked files, to edit and build without touching the real one."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_repository(destination):
    """Copy every file git tracks (sources, docs, data; no .venv, generated/ or site/) into `destination`."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    # The npm tools the build runs (wabt compiles the your-sentence kernels), installed once by `npm ci`.
    (destination / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    return destination


def run_build(copy, *arguments):
    """`python -m figures_src.build ARGUMENTS` in the copy (its own figures_src, attention/, models/)
    -> the names it built, in order. Fails with the build's own error."""
    result = subprocess.run([sys.executable, "-m", "figures_src.build", "--jobs", "1", *arguments], cwd=copy,
                            capture_output=True, text=True, env={**os.environ, "SITE_URL": "https://example.org/aih/"})
    assert result.returncode == 0, result.stderr
    return [line.split(":", 1)[0].removeprefix("built ") for line in result.stdout.splitlines() if line.startswith("built ")]
