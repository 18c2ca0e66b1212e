"""Build every page's worked examples, figures and generated text into generated/.

    python -m figures_src.build [--force] [--only NAME ...] [--out DIR] [--jobs N]

mkdocs.yml's nav lists the pages (figures_src/registry.py derives each page's module); each page module declares
its items in ITEMS (figures_src/engine/items.py says what each kind writes):

- an Example: generated/public/examples/<id>.json (published at examples/<id>.json) and snippets/<id>-cite.md;
- a Figure: generated/figures/<name>.html, the <figure> fragment a page includes;
- snippets(data): generated/snippets/<name>[-<part>].md; public(data): generated/public/<path>.

What is rebuilt: the manifest, generated/.manifest.json, keeps per item the files it was built from, each with
its SHA-256, as recorded while it built (figures_src/engine/inputs.py), and the files it wrote, each with the
SHA-256 of the bytes written. An item is skipped when every one of those inputs, the environment (Python,
SITE_URL) and every file it wrote are unchanged; a page whose items are all skipped is not even
imported, so a build with nothing to do reads only the manifest and hashes files. A file edited, truncated or
corrupted since the build wrote it makes its item stale, so it is written again.

Each page with something to build runs in a process of its own, forked from this one (up to --jobs at once), so
what it imports and reads is its own; a page holding a large share of the stale items is cut into parts, one
process each. The files are written here, in navigation order. Every file is written to
a temporary name and renamed, so a failure leaves no half-written file; the first failure stops the build with
an error naming the item and its page. `check_generated()` is the same check at publish time: the site build
(finish/published.py) publishes nothing that differs from what the build wrote.

The manifest:

    {"pages": {"figures_src.pages.scores": {"items": ["ex-scores", "scores-heatmap", ...]}},
     "items": {"scores-heatmap": {"page": "figures_src.pages.scores",
                                  "environment": "python 3.11; repo_url <REPO_URL>; site_url <SITE_URL>",
                                  "inputs": {"attention/scores.py": "<sha256>", "figures_src/pages/scores.py": "<sha256>",
                                             ..., "package:numpy": "<version>", ...},
                                  "outputs": {"figures/scores-heatmap.html": "<sha256>", ...}}}}

A page's entry is written once every one of its items is built; "absent" is the digest of an input that was
looked for and not found.
"""
import argparse
import hashlib
import importlib
import json
import os
import signal
import sys
import traceback
from collections import Counter
from pathlib import Path

from . import registry
from .engine.errors import BuildError
from .engine.inputs import Digests, Recorder, distributions, environment
from .engine.site import DEFAULT_LANGUAGE, DEFAULT_SITE_URL, LANGUAGE_VARIABLE, LANGUAGES, language, language_folder
from .engine.words import translation_gaps

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"
MANIFEST = ".manifest.json"


def encoded(text):
    """The bytes a file of `text` holds: UTF-8 for text, as it is for bytes (a binary download)."""
    return text if isinstance(text, bytes) else text.encode("utf-8")


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def write_atomic(path, text):
    """Write via a temporary file and a rename; leave the file alone when its bytes are already right.
    `text` may be bytes (a binary download)."""
    data = encoded(text)
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


# ---------------------------------------------------------------- what was built, from what


class Manifest:
    """generated/.manifest.json (the module's docstring shows it): per item, its page, the environment and the
    inputs it was built from and the files it wrote; per page, its items' names once every one is built."""

    def __init__(self, folder):
        self.folder = Path(folder)
        self.path = self.folder / MANIFEST
        stored = self._read()
        if isinstance(stored, dict) and "items" not in stored:  # an older layout: keep its files listed, so the build can remove them
            stored = {"pages": {}, "items": stored}
        if isinstance(stored, dict) and isinstance(stored.get("items"), dict) and isinstance(stored.get("pages"), dict):
            stored["items"] = {name: _recorded(entry) for name, entry in stored["items"].items()}
            stored["pages"] = {page: {"items": entry.get("items")} if isinstance(entry, dict) else entry
                               for page, entry in stored["pages"].items()}
        self._check(stored)
        self.pages, self.items = stored["pages"], stored["items"]
        self._on_disk = {}  # path -> SHA-256 of the file's bytes now (None: no such file), read once per build
        self.digests = Digests()

    def _read(self):
        if not self.path.exists():
            return {}
        try:
            return json.loads(self.path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise self._invalid(f"it is not JSON ({exc})") from None

    def _invalid(self, why):
        return BuildError(f"{self.path}: {why}. It lists what earlier builds wrote; delete it and run "
                          "`python -m figures_src.build --force` to rebuild everything")

    def _check(self, stored):
        """Raise BuildError unless `stored` has the manifest's shape and every output stays inside the folder."""
        if not isinstance(stored, dict) or set(stored) != {"pages", "items"}:
            raise self._invalid('expected an object with "pages" and "items"')
        pages, items = stored["pages"], stored["items"]
        if not isinstance(pages, dict) or not isinstance(items, dict):
            raise self._invalid('"pages" and "items" must be objects')
        for page, entry in pages.items():
            if not (isinstance(entry, dict) and _strings(entry.get("items"))):
                raise self._invalid(f"page {page!r} needs a list of item names")
        for name, entry in items.items():
            if not (isinstance(entry, dict) and isinstance(entry.get("environment"), str)
                    and _file_hashes(entry.get("inputs")) and _file_hashes(entry.get("outputs"))
                    and (entry.get("page") is None or isinstance(entry["page"], str))):
                raise self._invalid(f"item {name!r} needs a page, an environment, and its inputs and outputs as "
                                    "{path: SHA-256}")
            for path in entry["outputs"]:
                if not self.inside(path):
                    raise self._invalid(f"item {name!r} lists {path!r}, which is not a file inside {self.folder}")

    def inside(self, path):
        """Whether the relative path `path` names a file strictly inside the folder: never the folder itself, nor a
        folder in it, nor a path no file can have (a NUL byte, a name longer than the file system allows)."""
        if not path or Path(path).is_absolute() or "\\" in path or "\0" in path:
            return False
        folder = self.folder.resolve()
        try:
            target = (folder / path).resolve()
            is_folder = target.is_dir()
        except (OSError, ValueError):  # ENAMETOOLONG and the like
            return False
        return (target != folder and target.is_relative_to(folder) and ".." not in Path(path).parts
                and not is_folder)

    def save(self):
        write_atomic(self.path, json.dumps({"pages": self.pages, "items": self.items}, indent=1, sort_keys=True) + "\n")

    def on_disk(self, path):
        """The SHA-256 of generated file `path` as it is now, or None when there is no such file."""
        if path not in self._on_disk:
            file = self.folder / path
            self._on_disk[path] = sha256(file.read_bytes()) if file.is_file() else None
        return self._on_disk[path]

    def changed_output(self, name):
        """(path, "missing" or "changed") for the first file of item `name` that is not what the build wrote, or None."""
        for path, written in sorted(self.items[name]["outputs"].items()):
            now = self.on_disk(path)
            if now != written:
                return path, "missing" if now is None else "changed"
        return None

    def inputs_unchanged(self, name, env):
        entry = self.items.get(name)
        return (bool(entry) and bool(entry["inputs"]) and entry["environment"] == env
                and self.digests.changed(entry["inputs"]) is None)

    def item_is_fresh(self, name, env):
        return self.inputs_unchanged(name, env) and self.changed_output(name) is None

    def page_is_fresh(self, page, env):
        entry = self.pages.get(page)
        return bool(entry) and all(self.item_is_fresh(n, env) for n in entry["items"])

    def record(self, name, page, env, inputs, files):
        """Item `name` was built from `inputs` ({label: SHA-256}) and wrote `files` ({path: text or bytes}); the
        files it wrote before and writes no more go, unless another item writes them."""
        previous = self.items.get(name, {}).get("outputs", {})
        hashes = {path: sha256(encoded(text)) for path, text in sorted(files.items())}
        self.items[name] = {"page": page, "environment": env, "inputs": inputs, "outputs": hashes}
        self._on_disk.update(hashes)
        self.remove_unowned(set(previous) - set(files))

    def forget(self, name):
        self.remove_unowned(self.items.pop(name)["outputs"])

    def remove_unowned(self, paths):
        owned = {p for entry in self.items.values() for p in entry["outputs"]}
        for path in set(paths) - owned:
            if not self.inside(path):  # _check refused such a manifest; this guards the files written since
                raise BuildError(f"{self.path}: refusing to delete {path!r}, which is outside {self.folder}")
            (self.folder / path).unlink(missing_ok=True)
            self._on_disk.pop(path, None)


def _recorded(entry):
    """An item's entry of an older layout (a page hash, perhaps no file hashes) as one of this layout that is stale."""
    if not isinstance(entry, dict) or "inputs" in entry:
        return entry
    outputs = entry.get("outputs")
    if _strings(outputs):
        outputs = dict.fromkeys(outputs, "")
    return {"page": entry.get("page"), "environment": "", "inputs": {}, "outputs": outputs}


def _strings(value):
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _file_hashes(value):
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def check_generated(folder=GENERATED, site_url=None):
    """Raise BuildError naming the first file under `folder` that the site would publish although it is not what
    the figure build wrote: missing, changed since (its SHA-256 differs from the manifest's), or written by no
    item; or, given the `site_url` the site is built for, an item built for another address (its permalinks,
    <iframe> snippets and BibTeX would name that one beside the site's canonical links). The site build calls
    this before it publishes anything (finish/published.py, and hooks/finish_site.py before MkDocs builds)."""
    manifest = Manifest(folder)
    if not manifest.path.is_file():
        raise BuildError(f"{manifest.path} does not exist: run `make figures` (python -m figures_src.build)")
    if site_url is not None:
        wanted = site_url if site_url.endswith("/") else site_url + "/"
        for name, entry in sorted(manifest.items.items()):
            built_for = entry["environment"].rpartition("site_url ")[2]
            if built_for != wanted:
                raise BuildError(f"{manifest.folder}: item {name} was built for SITE_URL {built_for}, but the site is "
                                 f"built for {wanted}; run `make figures` with SITE_URL={wanted}, then build the site")
    listed = set()
    for name in sorted(manifest.items):
        listed |= set(manifest.items[name]["outputs"])
        changed = manifest.changed_output(name)
        if changed is not None:
            path, how = changed
            raise BuildError(f"{manifest.folder / path}: {how} since the figure build wrote it (item {name}); "
                             "run `make figures` to write it again")
    for file in sorted(p for p in manifest.folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
        path = file.relative_to(manifest.folder).as_posix()
        if path.split("/")[0] in LANGUAGES:  # another language's build, with a manifest of its own
            continue
        if path not in listed:
            raise BuildError(f"{file} was not written by the figure build (no item lists it); delete it, "
                             "then run `make figures`")


# ---------------------------------------------------------------- one page, in a process of its own

# The build's own modules stay imported in a page's process (their classes must stay one); every other module of
# the project is imported afresh there, so the recorder sees it, and a second build in one process renders the
# code on disk.
KEPT = ("__main__", "figures_src", "figures_src.build", "figures_src.registry", "figures_src.engine")


def declarations(page):
    """The items page module `page` declares; a page that fails to import is named."""
    from .engine.items import Example, Figure, Snippets  # noqa: PLC0415

    try:
        module = importlib.import_module(page)
    except BuildError as exc:
        raise BuildError(f"page {page}: {exc}") from None
    except Exception as exc:
        raise BuildError(f"page {page} failed to import: {type(exc).__name__}: {exc}\n{traceback.format_exc()}") from None
    items = getattr(module, "ITEMS", None)
    if not isinstance(items, list) or not items:
        raise BuildError(f"page {page}: declare its items in a non-empty list ITEMS")
    for item in items:
        if not isinstance(item, (Example, Figure, Snippets)):
            raise BuildError(f"page {page}: ITEMS holds {item!r}, not an Example, Figure or Snippets")
    return items


def _forget_project_modules(recorder):
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if not file or os.path.abspath(file).startswith(recorder.installation) or name in KEPT or name.startswith("figures_src.engine."):
            continue
        del sys.modules[name]
        parent, _, child = name.rpartition(".")
        if getattr(sys.modules.get(parent), child, None) is module:  # `from . import child` looks here first
            delattr(sys.modules[parent], child)


def build_page(connection, task, plan):
    """In a page's process: import the page, send ("declared", names) (the first part of a page only), then
    ("built", name, files, inputs) for each item `plan` wants in this part of the page, and ("error", message) if
    something fails. task: (page, part, parts): the wanted items are cut into `parts` runs, in order."""
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))  # the main process says what happened, once
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked by run_pages until this handler is set
    page, part, parts = task
    try:
        from .engine.render import outputs  # noqa: PLC0415  (matplotlib only when something is drawn)

        recorder = Recorder()
        _forget_project_modules(recorder)
        items = declarations(page)
        if part == 0:
            connection.send(("declared", [item.name for item in items]))
        wanted = [item for item in items if plan["wants"](page, item.name)]
        for item in wanted[len(wanted) * part // parts:len(wanted) * (part + 1) // parts]:
            try:
                files = outputs(item, plan["markdown"].get(page))
            except BuildError as exc:
                raise BuildError(f"{item.name} (page {page}): {exc}") from None
            except Exception as exc:
                raise BuildError(f"{item.name} (page {page}) failed: {type(exc).__name__}: {exc}\n"
                                 f"{traceback.format_exc()}") from None
            connection.send(("built", item.name, files, recorder.inputs()))
    except BuildError as exc:
        connection.send(("error", str(exc)))
    except Exception as exc:  # the build's own failure, not a page's: still named, still one message
        connection.send(("error", f"page {page}: {type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
    connection.close()


def run_pages(tasks, plan, jobs, first=()):
    """Yield (page, message) for every task (page, part, parts), task by task in the given order, running up to
    `jobs` at once; the tasks in `first` start first (the largest, so that no core waits for them at the end)."""
    import multiprocessing  # noqa: PLC0415
    from multiprocessing.connection import wait  # noqa: PLC0415

    context = multiprocessing.get_context("fork")
    waiting = [task for task in first if task in tasks] + [task for task in tasks if task not in first]
    running, received, finished = {}, {task: [] for task in tasks}, set()
    try:
        for task in tasks:
            while task not in finished or received[task]:
                while received[task]:
                    yield task[0], received[task].pop(0)
                if task in finished:
                    break
                while waiting and len(running) < jobs:
                    reader, writer = context.Pipe(duplex=False)
                    started = waiting.pop(0)
                    process = context.Process(target=build_page, args=(writer, started, plan))
                    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})  # Ctrl-C now waits: see build_page
                    try:
                        process.start()
                    finally:
                        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
                    writer.close()
                    running[reader] = (started, process)
                for reader in wait(list(running)):
                    other, process = running[reader]
                    try:
                        received[other].append(reader.recv())
                    except EOFError:
                        process.join()
                        if process.exitcode:
                            received[other].append(("error", f"page {other[0]}: its build process stopped "
                                                             f"(exit code {process.exitcode})"))
                        finished.add(other)
                        del running[reader]
    finally:
        for reader, (_, process) in running.items():
            process.kill()
            process.join()
            reader.close()


def plan_tasks(pages, stale_counts, jobs):
    """Each page one task, or several when it holds a large share of the stale items (each part imports the page
    on its own; an edited page still renders on every core); and the order to start them in, the largest first."""
    total = sum(stale_counts.get(page, 1) for page in pages)
    parts = {page: max(1, min(stale_counts.get(page, 1), round(jobs * stale_counts.get(page, 1) / total)))
             for page in pages}
    tasks = [(page, part, parts[page]) for page in pages for part in range(parts[page])]
    first = sorted(tasks, key=lambda task: -stale_counts.get(task[0], 1) / task[2])
    return tasks, first


# ---------------------------------------------------------------- the build


def build(pages=None, *, only=None, force=False, out=GENERATED, jobs=None, log=print):
    """Build the items of `pages` (dotted module names; default: the nav's). Returns the names rebuilt.

    only: item names (or page names: all of that page's items) to build instead of everything.
    """
    pages = registry.page_modules() if pages is None else list(pages)
    if len(set(pages)) != len(pages):
        raise BuildError("the build was given a page twice")
    untranslated(language())
    manifest = Manifest(out)
    env = environment()
    jobs = jobs or os.cpu_count() or 1
    markdown = registry.markdown_files()
    to_run, known, wants = _select(pages, only, force, manifest, env, markdown, jobs)
    for name in sorted(known):
        changed = manifest.changed_output(name) if manifest.inputs_unchanged(name, env) else None
        if changed and wants(known[name], name) and manifest.items[name]["outputs"][changed[0]]:  # "": an older layout
            log(f"{Path(out) / changed[0]}: {changed[1]} since the build wrote it; rebuilding {name}")
    if to_run:
        import matplotlib.figure  # noqa: F401, PLC0415  (imported once here, inherited by every page's process)

        # The whole engine, here, before any fork: every item then records the same engine modules, whichever
        # items its page's process happened to build before it (a lazy import would make the manifest depend on
        # the build's history, not on its inputs).
        for module in sorted((Path(__file__).parent / "engine").glob("*.py")):
            importlib.import_module(f".engine.{module.stem}", __package__)

        distributions()  # once, for every page's process

    # item -> its page, for every page (a page not run: from the manifest)
    names = {name: page for page in pages if page not in to_run for name in manifest.pages.get(page, {}).get("items", ())}
    rebuilt, declared = [], {}
    tasks, first = plan_tasks(to_run, Counter(page for name, page in known.items() if wants(page, name)), jobs)
    for page, message in run_pages(tasks, {"markdown": markdown, "wants": wants}, jobs, first):
        match message:
            case ("error", text):
                # The page's list of items is not known to be whole now (an item it declares may never have been
                # built): forget it, so the next build imports the page rather than skip it on that list and take
                # what it leaves out for items no page declares, deleting their files.
                if manifest.pages.pop(page, None) is not None:
                    manifest.save()
                raise BuildError(text)
            case ("declared", page_names):
                for name in page_names:
                    if names.get(name, page) != page:
                        raise BuildError(f"item {name} is declared twice: by {names[name]} and by {page}")
                    names[name] = page
                declared[page] = page_names
            case ("built", name, files, inputs):
                for path, text in files.items():
                    try:
                        write_atomic(Path(out) / path, text)
                    except OSError as exc:  # a full disk, a file-size limit (Python ignores SIGXFSZ: EFBIG)
                        raise BuildError(f"item {name}: writing {Path(out) / path} failed ({exc.strerror or exc}); "
                                         "the file was left as it was. Free some space (or raise the file-size "
                                         "limit) and run the build again") from None
                manifest.record(name, page, env, inputs, files)
                manifest.save()
                rebuilt.append(name)
                log(f"built {name}: {', '.join(sorted(files))}")

    for page, page_names in declared.items():
        if all(manifest.item_is_fresh(name, env) for name in page_names):
            manifest.pages[page] = {"items": page_names}
    if not only:  # what no page declares any more: its files go
        for name in sorted(set(manifest.items) - set(names)):
            manifest.forget(name)
            log(f"removed {name} (no page declares it any more)")
        manifest.pages = {page: entry for page, entry in manifest.pages.items() if page in pages}
    manifest.save()
    return rebuilt


def untranslated(lang):
    """Refuse to build language `lang` while anything a reader of the English edition sees has no `lang` entry: a
    words file or a section of one (engine/words.translation_gaps), or a nav page without its docs/<lang>/ twin.
    The error lists every one, so a translator sees the whole gap at once."""
    if lang == DEFAULT_LANGUAGE:
        return
    gaps = translation_gaps(lang) + registry.untranslated_pages(lang)
    if gaps:
        shown = "\n  ".join(gaps[:60]) + (f"\n  … and {len(gaps) - 60} more" if len(gaps) > 60 else "")
        raise BuildError(f"the {lang} edition is not whole: {len(gaps)} English string(s) or page(s) have no {lang} "
                         f"entry:\n  {shown}")


def _select(pages, only, force, manifest, env, markdown, jobs):
    """-> (the pages to run, {item: page} as far as known, wants(page, item): whether to build it)."""
    known = {name: entry["page"] for name, entry in manifest.items.items() if entry["page"] in pages}
    wanted_pages, wanted_items = set(pages), None
    if only:  # --only NAME: an item (scores-heatmap or scores_heatmap), or a page (all its items)
        short = _short_names(pages)
        requested = [name.replace("_", "-") for name in only]
        if any(name not in short and name not in known for name in requested):  # new to the manifest: ask every page
            known = {}
            for page, message in run_pages([(page, 0, 1) for page in pages],
                                           {"markdown": markdown, "wants": lambda page, name: False}, jobs):
                if message[0] == "error":
                    raise BuildError(message[1])
                known |= dict.fromkeys(message[1], page)
        for name in requested:
            if name not in short and name not in known:
                raise BuildError(f"--only: unknown item or page {name!r}; pages: {sorted(short)}; items: {sorted(known)}")
        wanted_pages = {short[name] for name in requested if name in short}
        wanted_items = {name for name in requested if name not in short}
        to_run = [page for page in pages if page in wanted_pages | {known[name] for name in wanted_items}]
    else:
        to_run = [page for page in pages if force or not manifest.page_is_fresh(page, env)]
    fresh = set() if force else {name for name in known if manifest.item_is_fresh(name, env)}

    def wants(page, name):
        return name not in fresh and (page in wanted_pages or wanted_items is not None and name in wanted_items)
    return to_run, known, wants


def _short_names(pages):
    return {page.rsplit(".", 1)[-1].replace("_", "-"): page for page in pages}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m figures_src.build", description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if the inputs are unchanged")
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="build only this item, or every item of this page (repeatable)")
    parser.add_argument("--lang", choices=LANGUAGES, default=DEFAULT_LANGUAGE,
                        help="the language to build, from words/<lang>/ (default: en, from words/)")
    parser.add_argument("--out", default=None, help="output folder (default: generated/, generated/<lang>/ for --lang)")
    parser.add_argument("--jobs", type=int, default=None, help="processes rendering at once (default: one per core)")
    args = parser.parse_args(argv)
    os.environ[LANGUAGE_VARIABLE] = args.lang  # every page's process, and a notebook's kernel, build this language
    out = args.out or str(GENERATED / language_folder(args.lang))
    if not os.environ.get("SITE_URL"):
        print(f"figures_src.build: note: SITE_URL is not set, so every permalink, <iframe> snippet and BibTeX "
              f"entry points at the published site, {DEFAULT_SITE_URL} (to publish elsewhere, see README.md, "
              "Deploying)", file=sys.stderr)
    try:
        rebuilt = build(only=args.only, force=args.force, out=out, jobs=args.jobs)
    except BuildError as exc:
        print(f"figures_src.build: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # every file is written whole or not at all (write_atomic); the next build goes on
        print("figures_src.build: interrupted; no file was left half-written, run it again to finish", file=sys.stderr)
        return 130
    print(f"figures_src.build: {len(rebuilt)} rebuilt, the rest unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
