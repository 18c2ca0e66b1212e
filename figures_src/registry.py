"""The site's pages: mkdocs.yml's nav is the one list, in order; this module derives the page modules from it.

The rule, nav entry -> page module: the Markdown path without `.md`, with `-` written `_` and `/` written `.`,
under figures_src.pages: `qkv.md` -> figures_src.pages.qkv, `multi-head.md` -> figures_src.pages.multi_head
(a module, or a package such as real_heads/). A page with nothing generated has no module. A module of
figures_src/pages/ that declares `ITEMS` but matches no nav entry is an error; one without `ITEMS`
(sentences.py) is a helper the pages import.

So adding a page is its Markdown, its module and one nav line. Its module declares its items in `ITEMS`; an
Example there needs no `page=`: its page is the one whose module lists it (`_page_of`, which the engine asks).
"""
import functools
import importlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from .engine import Example
from .engine.items import find_pages_with
from .engine.errors import BuildError
from .engine.inputs import note_input
from .engine.site import MKDOCS, mkdocs_config, nav_entries

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "figures_src.pages"
FOLDER = ROOT / "figures_src" / "pages"


@dataclass(frozen=True)
class Page:
    title: str
    markdown: str  # under docs/: "multi-head.md"
    module: str  # figures_src.pages.multi_head, whether or not it exists

    @property
    def has_module(self):
        return _module_file(self.module) is not None


def module_name(markdown):
    """"multi-head.md" -> "figures_src.pages.multi_head"."""
    stem = markdown.removesuffix(".md")
    if stem == markdown or not re.fullmatch(r"[a-z0-9][a-z0-9-]*(/[a-z0-9][a-z0-9-]*)*", stem):
        raise BuildError(f"mkdocs.yml: nav page {markdown!r}: name pages in lower-case words joined by hyphens, ending .md")
    return f"{PACKAGE}.{stem.replace('-', '_').replace('/', '.')}"


@functools.cache
def _nav():
    pages = [Page(title, markdown, module_name(markdown)) for title, markdown in nav_entries(mkdocs_config(MKDOCS))]
    if len({page.module for page in pages}) != len(pages):
        raise BuildError("mkdocs.yml: the nav lists a page twice")
    return tuple(pages)


def nav():
    """Every page of mkdocs.yml's nav, in order (a page reading this depends on mkdocs.yml)."""
    note_input(MKDOCS)
    return _nav()


def _module_file(dotted):
    relative = Path(*dotted.split(".")[2:])
    for path in (FOLDER / relative.with_suffix(".py"), FOLDER / relative / "__init__.py"):
        if path.is_file():
            return path
    return None


def page_modules():
    """The page modules the build collects items from, in navigation order, as dotted names."""
    pages = _nav()
    named = {_module_file(page.module) for page in pages}
    candidates = [p for p in sorted(FOLDER.glob("*.py")) if p.name != "__init__.py"] + sorted(FOLDER.glob("*/__init__.py"))
    for path in candidates:
        if path not in named and re.search(r"^ITEMS\b", path.read_text(encoding="utf-8"), re.M):
            raise BuildError(f"{path.relative_to(ROOT)} declares ITEMS, but mkdocs.yml's nav names no page for it "
                             "(the nav line `Title: <name>.md` is the page's place in the site)")
    return [page.module for page in pages if page.has_module]


def markdown_files():
    """{page module: its Markdown file under docs/} for every nav page."""
    return {page.module: page.markdown for page in _nav()}


def untranslated_pages(lang):
    """["docs/zh/qkv.md: missing …", …]: the nav's pages (and the print edition) without a page in language `lang`
    (docs/<lang>/<page>, mkdocs-static-i18n's folder layout)."""
    docs = ROOT / "docs"
    pages = [page.markdown for page in _nav()] + ["print.md"]
    return [f"docs/{lang}/{page}: missing (it translates docs/{page})" for page in pages
            if not (docs / lang / page).is_file()]


def _page_of(example):
    """The nav page whose module, imported by now, lists `example` in ITEMS (masks.py shows qkv.py's example: it
    is still qkv.md's)."""
    for module, markdown in markdown_files().items():
        if any(item is example for item in getattr(sys.modules.get(module), "ITEMS", None) or ()):
            return markdown
    return None


find_pages_with(_page_of)


def items():
    """Every declared item of every page, in build order."""
    return [item for module in page_modules() for item in importlib.import_module(module).ITEMS]


def examples():
    """Every worked example, in navigation order."""
    return [item for item in items() if isinstance(item, Example)]
