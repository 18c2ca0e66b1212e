"""Publish generated/public/** at the site's root: the figure build's downloads (worked examples' JSON, figures'
SVG, PNG, CSV and BibTeX, embed pages, the models, the problem sets).

First every file under generated/ is checked against the SHA-256 the figure build recorded when it wrote it
(figures_src.build.check_generated): a file changed, truncated or left by hand stops the pass with an error
naming it, and never reaches the site; so does generated/ built for another SITE_URL than the site's (it would
cite two addresses). A file that would replace one of docs/ is an error too. A file the engine already copied
(MkDocs does, through hooks/finish_site.py, so that links to the downloads validate) is left as it is.

Then every page's notebook (notebooks/<page>.ipynb, checked with the rest) goes into one zip, notebooks/ZIP, which
the cite page offers: the files in name order, each dated 1980-01-01 (the zip format's earliest date) with the
same permissions, so the same notebooks make the same bytes. Its link (`<a data-aih-zip ...>`, from
generated/snippets/cite-table-notebooks.md) gets its address here, from the page's depth: an address in the
Markdown would be rewritten by Zensical as if relative to the Markdown file, and MkDocs' link check would look for
a file that does not exist yet.
"""
import io
import os
import shutil
import zipfile

from figures_src.build import check_generated
from figures_src.engine.errors import BuildError
from figures_src.engine.notebooks import FOLDER, ZIP

from .site import FinishError


def run(site):
    try:
        # under `mkdocs serve` the site's address is the preview's; what is served there is cited as published
        check_generated(site.generated, site_url=None if site.serving else site.site_url)
    except BuildError as exc:
        raise FinishError(str(exc)) from None
    public = site.generated / "public"
    if not public.is_dir():
        raise FinishError("generated/public/ does not exist: run `make figures` (python -m figures_src.build) first")
    for path in sorted(p for p in public.rglob("*") if p.is_file() and not p.name.startswith(".")):
        relative = path.relative_to(public)
        if (site.docs / relative).exists():
            raise FinishError(f"generated/public/{relative.as_posix()} would overwrite docs/{relative.as_posix()}")
        target = site.root / relative
        if target.is_file() and target.read_bytes() == path.read_bytes():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.tmp{os.getpid()}")
        shutil.copyfile(path, temporary)
        os.replace(temporary, target)
    notebooks = sorted((public / FOLDER).glob("*.ipynb"))
    if not notebooks:
        raise FinishError(f"generated/public/{FOLDER}/ holds no notebook: run `make figures`")
    write(site.root / ZIP, notebooks_zip(notebooks))
    for page in site.pages:  # the zip's link (the cite page's), its address from the site's root
        page.update(page.html.replace("<a data-aih-zip ", f'<a href="{"../" * page.depth}{ZIP}" '))


def notebooks_zip(files):
    """The bytes of a zip of `files` (paths), under a folder named like the zip, reproducibly (module docstring)."""
    folder = ZIP.rsplit("/", 1)[1].removesuffix(".zip")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in files:
            info = zipfile.ZipInfo(f"{folder}/{path.name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def write(target, data):
    """Write `data` to `target` through a temporary file and a rename, unless it already holds those bytes."""
    if target.is_file() and target.read_bytes() == data:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp{os.getpid()}")
    temporary.write_bytes(data)
    os.replace(temporary, target)
