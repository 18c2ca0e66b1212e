"""The two tiers of the suite, and the one build the whole session shares.

- `make check` runs `-m "not build and not slow"`: the library, the page modules' functions, the hooks, and the
  JavaScript checked from Python. Nothing in it needs generated/ or site/ (an audit hook below fails a test that
  reads them without asking), and it takes about a minute.
- `make test` runs everything, on three xdist workers, after `make site`.

A test's tier follows from what it uses, so a new test file needs no list: a test in tests/browser/ is marked
`browser` and `build`; a test that asks for one of the fixtures below is marked `build`. `slow` is the only mark
written by hand, on a build-free test that takes seconds: the figure pipeline on throw-away pages
(test_pipeline.py), the Makefile in a scratch .venv, node's own suite, printing with Chromium.

The shared build, for any test that reads the real pages' output:
- `generated`: ROOT/generated, and `built_site`: ROOT/site, both brought up to date once per session. After
  `make site` (which `make test` runs first) nothing is newer than site/, so they are used as they are; run
  without make, a stale site/ is rebuilt once (the figure build of each language, then mkdocs build --strict) before
  any test reads it. generated/zh/ is the Chinese build's (`--lang zh`).
- `fresh_figures`: every declared item built from scratch (--force) into a temporary folder, once per session,
  in the background from the moment the shared build is there: the pipeline's checks on the real pages, the
  examples' recomputations, and the reproducibility test's second build.
- `fresh_figures_zh`: the same for the Chinese build (--lang zh --force), into a folder of its own (not inside
  fresh_figures' folder, whose tests read all of it as the English build); started beside it, in the background,
  when a test asks for it (the reproducibility test).

Under xdist (`make test` runs three workers, --dist loadgroup) each worker is a session of its own: they take
turns through a file lock, and the later ones find the work done (site/ up to date, the forced build's folder
complete). A browser test runs on whichever worker is free; the other tests of a file stay on one worker.
"""
import contextlib
import fcntl
import importlib.util
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "site"
GENERATED = ROOT / "generated"
# What mkdocs build reads (figures_src too: its build writes generated/, and the hooks import from it).
SITE_INPUTS = ["mkdocs.yml", "package-lock.json", "docs", "overrides", "includes", "hooks", "finish", "generated", "figures_src", "attention",
               "models", "data", "words"]
BUILD_FIXTURES = {"generated", "built_site", "fresh_figures", "fresh_figures_zh", "site_url", "zensical_site"}
BROWSER_TESTS = ROOT / "tests" / "browser"


# Browser tests that spend most of their time waiting (a 29 MB download, a model run, a page left to settle), not
# computing: first, so that the CPU-bound tests overlap them rather than leaving a tail of waits at the end.
WAITING_FIRST = ["test_your_sentence_browser.py", "test_watch_it_write.py", "test_site_pages.py"]


@pytest.hookimpl(tryfirst=True)  # before -m and xdist read the marks
def pytest_collection_modifyitems(items):
    first = {name: rank for rank, name in enumerate(WAITING_FIRST)}
    items.sort(key=lambda item: first.get(Path(item.fspath).name, len(first)))  # stable: the rest keep their order
    for item in items:
        if BROWSER_TESTS in Path(item.fspath).parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.build)
            continue  # each browser test goes to whichever worker is free (xdist --dist loadgroup)
        if BUILD_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.build)
        # the other tests of a file stay together on one worker: their module fixtures (a model, a training run,
        # a node encoder's outputs) are set up once
        item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


# ---------------------------------------------------------------- the build-free tier stays build-free

BUILT = (str(GENERATED), str(SITE))
_build_free_test = {"name": None}  # the test running now, while it is one that asked for no build


def _reads_a_build_output(event, args):
    """An audit hook: a build-free test that opens or lists a file under generated/ or site/ fails, naming itself.
    On a fresh clone those folders are not there (or hold a build of another commit), so such a test passes or
    fails by what happens to lie around."""
    name = _build_free_test["name"]
    if name is None or event not in ("open", "os.scandir", "os.listdir") or not args or isinstance(args[0], int):
        return
    try:
        path = os.path.abspath(os.fsdecode(args[0]))
    except TypeError:
        return
    if any(path == folder or path.startswith(folder + os.sep) for folder in BUILT):
        _build_free_test["name"] = None  # once: the error's own handling may open files
        raise RuntimeError(f"{name} reads {path}, a build output, without asking for the build: take the `generated` "
                           "or `built_site` fixture (tests/conftest.py), which marks the test `build` and builds once")


sys.addaudithook(_reads_a_build_output)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    _build_free_test["name"] = None if item.get_closest_marker("build") else item.nodeid
    try:
        yield
    finally:
        _build_free_test["name"] = None


def pytest_xdist_node_collection_finished(node, ids):
    """Under --dist loadgroup, xdist sends a group to one worker by the group it appends to each node id (`…@group`).
    A pytest whose node ids it can no longer change (9.2.0: pytest-xdist#1386) would spread a file's tests over the
    workers, silently, each setting up the same module fixtures: stop, and say so."""
    if node.config.getoption("dist") != "loadgroup":
        return
    untagged = [nodeid for nodeid in ids if not nodeid.startswith("tests/browser/") and "@" not in nodeid]
    if untagged:
        raise pytest.UsageError(f"pytest-xdist did not group {untagged[0]} (nor {len(untagged) - 1} more) by its "
                                f"file: pytest {pytest.__version__} and --dist loadgroup do not work together")


@pytest.fixture(scope="session")
def shared_dir(tmp_path_factory, worker_id):
    """A folder every worker of this run sees (xdist's workers each get a base folder below a common one)."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent


@pytest.fixture(scope="session")
def worker_id(request):
    """xdist's worker name ("gw0", …), or "master" without xdist (xdist's own fixture, when it is not installed)."""
    return getattr(request.config, "workerinput", {}).get("workerid", "master")


@contextlib.contextmanager
def locked(path):
    """Hold an exclusive lock on `path` (created if missing): one worker at a time inside."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def newest_input():
    """The newest modification time among the files site/ is built from."""
    newest = 0.0
    for name in SITE_INPUTS:
        path = ROOT / name
        files = [path] if path.is_file() else (p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        newest = max([newest, *(p.stat().st_mtime for p in files)])
    return newest


def site_is_up_to_date():
    """site/ is MkDocs' build (its search index is MkDocs'; Zensical's site is the zensical_site fixture's), newer
    than everything it is built from."""
    index = SITE / "index.html"
    return (index.is_file() and (SITE / "search" / "search_index.json").is_file()
            and index.stat().st_mtime > newest_input())


def run_build(args):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    result = subprocess.run([sys.executable, "-m", *args], cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode:
        pytest.fail(f"python -m {' '.join(args)} failed:\n{result.stderr[-4000:]}", pytrace=False)


@pytest.fixture(scope="session")
def shared_build(shared_dir, request):
    """generated/ and site/ as `make site` leaves them: built once if stale, else used as they are. Then, if a
    test of this run will want `fresh_figures`, its build starts in the background."""
    done = shared_dir / "shared-build.done"  # decided once per run: a worker never rebuilds what another reads
    with locked(shared_dir / "shared-build.lock"):
        if not done.exists():
            if not site_is_up_to_date():
                run_build(["figures_src.build"])
                run_build(["figures_src.build", "--lang", "zh"])  # what `make figures` builds: both languages
                run_build(["mkdocs", "build", "--strict"])  # not --quiet: it hides the warnings --strict counts
            done.touch()
    wanted = {name for item in request.session.items for name in getattr(item, "fixturenames", ())}
    for lang in FRESH_BUILDS:
        if FRESH_BUILDS[lang] in wanted:
            start_fresh_figures(shared_dir, lang)
    return ROOT


@pytest.fixture(scope="session")
def generated(shared_build):
    """ROOT/generated, up to date: what the real pages include and publish."""
    return GENERATED


@pytest.fixture(scope="session")
def built_site(shared_build):
    """ROOT/site, up to date: the site `make site` built."""
    return SITE


@pytest.fixture(scope="session")
def zensical_site(shared_build, shared_dir):
    """The same site built by Zensical (what `make site ENGINE=zensical` does, scripts/zensical_site.py) from the
    shared generated/, once for all workers, into a folder of this run: site/ stays MkDocs'. Only the engine
    differs."""
    spec = importlib.util.spec_from_file_location("zensical_site", ROOT / "scripts" / "zensical_site.py")
    builder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(builder)
    tree = shared_dir / "zensical"
    with locked(shared_dir / "zensical.lock"):
        if not (shared_dir / "zensical.done").exists():
            try:
                builder.build_zensical(tree)
            except RuntimeError as error:
                pytest.fail(str(error), pytrace=False)
            (shared_dir / "zensical.done").touch()
    return tree / "site"


# The forced builds a test may ask for: language -> its fixture.
FRESH_BUILDS = {"en": "fresh_figures", "zh": "fresh_figures_zh"}


def fresh_name(lang):
    """fresh-figures (English), fresh-figures-zh: the forced build's folder, and its log's and exit code's name."""
    return "fresh-figures" + ("" if lang == "en" else f"-{lang}")


def start_fresh_figures(shared_dir, lang="en"):
    """Start the forced build of language `lang` into its fresh folder, once for all workers, in the background:
    the workers go on with other tests meanwhile, rather than one building and the other waiting on it. Its output
    goes to fresh-figures[-<lang>].log, its exit code to fresh-figures[-<lang>].rc."""
    name = fresh_name(lang)
    with locked(shared_dir / f"{name}.lock"):
        log = shared_dir / f"{name}.log"
        if log.exists():
            return
        build = [sys.executable, "-m", "figures_src.build", "--force", "--out", str(shared_dir / name)]
        build += [] if lang == "en" else ["--lang", lang]
        script = f"{shlex.join(build)}; echo $? > {shlex.quote(str(shared_dir / f'{name}.rc'))}"
        with open(log, "w") as output:  # a process of its own: a build in this one would drop the pages' modules
            subprocess.Popen(["sh", "-c", script], cwd=ROOT, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
                             stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)


def wait_for_fresh_figures(shared_dir, lang):
    """Start the forced build of `lang` unless started, wait until it ends; -> its folder, or the test fails."""
    start_fresh_figures(shared_dir, lang)
    name = fresh_name(lang)
    exit_code = shared_dir / f"{name}.rc"
    while not (exit_code.exists() and exit_code.read_text().strip()):
        time.sleep(0.2)
    if exit_code.read_text().strip() != "0":
        log = (shared_dir / f"{name}.log").read_text(errors="replace")
        flags = "--force" + ("" if lang == "en" else f" --lang {lang}")
        pytest.fail(f"python -m figures_src.build {flags} failed:\n{log[-4000:]}", pytrace=False)
    return shared_dir / name


@pytest.fixture(scope="session")
def fresh_figures(shared_dir):
    """Every declared item built from scratch into a temporary generated/ folder, once for all workers (started
    by `shared_build`, or here if nothing started it)."""
    return wait_for_fresh_figures(shared_dir, "en")


@pytest.fixture(scope="session")
def fresh_figures_zh(shared_dir):
    """The Chinese build from scratch (--lang zh --force) into a temporary folder: what make site's build wrote to
    generated/zh/. Once for all workers, started by `shared_build` beside the English one, or here."""
    return wait_for_fresh_figures(shared_dir, "zh")


def pytest_terminal_summary(terminalreporter):
    """What a test recorded as "retraining" (tests/test_trained.py: how far retraining on this machine lands from
    data/trained/), printed at the end of the run; under xdist the reports carry it from the workers."""
    lines = [value for report in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", [])
             if report.when == "call" for name, value in getattr(report, "user_properties", ()) if name == "retraining"]
    if lines:
        terminalreporter.section("retraining on this machine, against data/trained/")
        for line in lines:
            terminalreporter.write_line(line)
