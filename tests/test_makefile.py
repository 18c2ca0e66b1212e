"""The Makefile, in a scratch copy of the project (never the shared .venv): it notices a broken .venv and
repairs it, runs from any directory (make -C), and cleans in two strengths.

The repair is checked with `make -n` (what make would run): the checks that decide it are real (the scratch
.venv's interpreter is run and its packages imported), only the installs themselves are not carried out.
"""
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test makes a .venv and runs make: seconds, in make test

ROOT = Path(__file__).resolve().parents[1]
COPIED = ["Makefile", "pyproject.toml", "constraints.txt", "package.json", "package-lock.json"]


@pytest.fixture
def scratch(tmp_path):
    """A copy of the files the Makefile's rules depend on, with a working .venv that borrows the test
    interpreter's packages (a .pth file) and stamps newer than their prerequisites."""
    repo = tmp_path / "repo"
    repo.mkdir()
    for name in COPIED:
        shutil.copy2(ROOT / name, repo / name)
    for folder in ("attention", "models", "figures_src", "finish"):
        shutil.copytree(ROOT / folder, repo / folder, ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(repo / ".venv")], check=True)
    purelib = Path(subprocess.run([str(repo / ".venv" / "bin" / "python"), "-c",
                                   "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                  check=True, capture_output=True, text=True).stdout.strip())
    (purelib / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    for name, version in json.loads((ROOT / "package.json").read_text(encoding="utf-8"))["devDependencies"].items():
        (repo / "node_modules" / name).mkdir(parents=True)
        (repo / "node_modules" / name / "package.json").write_text(json.dumps({"name": name, "version": version}))
    # npm ci has run, then the .venv was set up. One time for all three stamps: touched one after another they
    # can straddle a tick of the file system's clock, and the node stamp, newer than the test stamp that
    # depends on it, would send make to reinstall.
    now = time.time()
    for stamp in ("node_modules/.installed", ".venv/.site-installed", ".venv/.test-installed"):
        (repo / stamp).touch()
        os.utime(repo / stamp, (now, now))
    return repo, purelib


def plan(repo, goal="site"):
    """What `make -C repo -n goal` would run, from a directory other than the project's."""
    result = subprocess.run(["make", "-C", str(repo), "-n", goal], cwd=repo.parent, capture_output=True, text=True,
                            env={**os.environ, "MAKEFLAGS": ""})
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_working_venv_with_fresh_stamps_is_left_alone_and_make_runs_from_elsewhere(scratch):
    repo, _ = scratch
    steps = plan(repo)
    assert "pip install" not in steps and "rm -rf .venv" not in steps
    assert ".venv/bin/python -m figures_src.build" in steps and "mkdocs build --strict" in steps


def test_a_venv_whose_interpreter_does_not_run_is_re_created(scratch):
    repo, _ = scratch
    python = repo / ".venv" / "bin" / "python"
    python.unlink()
    python.symlink_to(repo / "no-such-python3")  # the system Python it pointed to is gone
    steps = plan(repo)
    assert "rm -rf .venv" in steps
    assert steps.index("rm -rf .venv") < steps.index("-m venv .venv") < steps.index("pip install")


def test_a_package_that_does_not_import_behind_a_present_stamp_is_reinstalled(scratch):
    repo, purelib = scratch
    (purelib / "material").mkdir()
    (purelib / "material" / "__init__.py").write_text("raise ImportError('uninstalled')\n")
    steps = plan(repo)
    assert "pip install --quiet -c constraints.txt -e '.[site]'" in steps
    # setuptools at its pin, as the test packages want it: every figure records it (tests/test_recorded_deps.py)
    assert "-e '.[site]' setuptools" in steps
    assert "rm -rf .venv" not in steps


def test_a_missing_test_package_reinstalls_the_test_set_up(scratch):
    repo, purelib = scratch
    assert "pip install" not in plan(repo, "test")
    (purelib / "borrowed.pth").write_text("")  # nothing is installed any more, the stamps still there
    steps = plan(repo, "test")
    assert "-e '.[site]'" in steps and "-e '.[site,test]'" in steps
    assert "npm ci" not in steps  # the npm tooling has its own stamp, and it is there


def test_the_site_build_installs_the_npm_tooling_first_when_it_is_missing(scratch):
    repo, _ = scratch
    assert "npm ci" not in plan(repo)
    (repo / "node_modules" / ".installed").unlink()  # a fresh clone: the build's minifier is not there yet
    steps = plan(repo)
    assert "pip install" not in steps and "npm ci" in steps
    assert steps.index("npm ci") < steps.index("mkdocs build --strict")


@pytest.mark.parametrize("damage", ["missing", "another version"])
def test_a_pinned_npm_package_that_is_gone_behind_a_present_stamp_is_reinstalled(scratch, damage):
    repo, _ = scratch
    wabt = repo / "node_modules" / "wabt"
    if damage == "missing":
        shutil.rmtree(wabt)
    else:
        (wabt / "package.json").write_text(json.dumps({"name": "wabt", "version": "0.0.1"}))
    steps = plan(repo)
    assert "npm ci" in steps and steps.index("npm ci") < steps.index("figures_src.build"), (
        f"node_modules/wabt {damage} while node_modules/.installed exists: make site must run npm ci before the build")


def test_clean_removes_the_build_outputs_and_distclean_also_the_venv_and_caches(scratch):
    repo, _ = scratch
    outputs = ["generated/figures/x.html", "site/index.html"]
    kept = [".venv/.site-installed", "node_modules/x/index.js", ".cache/highlight/x.html", ".cache/mathml.json"]
    for path in outputs + kept:
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).touch()
    subprocess.run(["make", "-C", str(repo), "clean"], check=True, capture_output=True)
    assert not (repo / "generated").exists() and not (repo / "site").exists()
    assert all((repo / path).exists() for path in kept)
    subprocess.run(["make", "-C", str(repo), "distclean"], check=True, capture_output=True)
    assert not [p for p in (".venv", "node_modules", ".cache", "generated", "site") if (repo / p).exists()]
    assert (repo / "Makefile").exists() and (repo / "attention").is_dir()
