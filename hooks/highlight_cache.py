"""Remember Pygments' output for code blocks across builds, in .cache/highlight/ (git-ignored).

The pages show the library's real source (snippets of attention/*.py); colouring those listings is the
largest part of a rebuild in which nothing changed. pymdownx.highlight calls `pygments.highlight(src,
lexer, formatter)`; this hook wraps that one call with a cache keyed by everything its result depends on
(the versions of Pygments and pymdown-extensions, the source, the lexer and its options, the formatter and
its options), so an unchanged block is read back instead of coloured again. Same input, same bytes.
Each entry starts with a line holding the SHA-256 of the HTML after it; an entry whose HTML does not hash to
it (empty, truncated, edited) is coloured again and rewritten, never published. The folder is made before the
build starts (and before site/ is cleaned): a file in its place is replaced by it, since the cache is disposable;
a folder that cannot be made stops the build at once, naming the path.
"""
import hashlib
import importlib.metadata
import os
from pathlib import Path

import pymdownx.highlight
from mkdocs.exceptions import PluginError

CACHE = Path(__file__).resolve().parents[1] / ".cache" / "highlight"
_VERSIONS = " ".join(f"{p}={importlib.metadata.version(p)}" for p in ("pygments", "pymdown-extensions"))


def _key(src, lexer, formatter):
    parts = [
        _VERSIONS,
        f"{type(lexer).__module__}.{type(lexer).__qualname__}",
        repr(sorted((k, repr(v)) for k, v in lexer.options.items())),
        f"{type(formatter).__module__}.{type(formatter).__qualname__}",
        repr(sorted((k, repr(v)) for k, v in formatter.options.items())),
        src,
    ]
    return hashlib.sha256("\0".join(parts).encode("utf-8")).hexdigest()


def _digest(html):
    return "sha256:" + hashlib.sha256(html.encode("utf-8")).hexdigest()


def _read_entry(path):
    """The HTML stored at `path`, or None when there is none or it does not match its recorded hash."""
    try:
        with path.open(encoding="utf-8", newline="") as file:
            stored = file.read()
    except (OSError, UnicodeDecodeError):
        return None
    digest, newline, html = stored.partition("\n")
    return html if newline and digest == _digest(html) else None


def _cached(highlight):
    def cached_highlight(src, lexer, formatter, outfile=None):
        if outfile is not None:  # not how pymdownx calls it; nothing to remember
            return highlight(src, lexer, formatter, outfile)
        path = CACHE / f"{_key(src, lexer, formatter)}.html"
        html = _read_entry(path)
        if html is not None:
            return html
        html = highlight(src, lexer, formatter)
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(f"{_digest(html)}\n{html}", encoding="utf-8", newline="")
        tmp.replace(path)
        return html

    cached_highlight.aih_wrapped = highlight
    return cached_highlight


def _make_folder():
    """CACHE as a folder: a file in its place is deleted first (it holds nothing the build needs)."""
    if CACHE.is_file() or CACHE.is_symlink() and not CACHE.is_dir():
        CACHE.unlink()
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PluginError(f"{CACHE}: cannot make the highlight cache's folder ({exc.strerror}); delete what is in "
                          "the way (the cache is disposable) or build with AIH_BUILD_CACHE=off") from None


def on_config(config):
    if os.environ.get("AIH_BUILD_CACHE") == "off":  # tests compare builds with and without the cache
        return
    _make_folder()
    if not hasattr(pymdownx.highlight.highlight, "aih_wrapped"):
        pymdownx.highlight.highlight = _cached(pymdownx.highlight.highlight)
