"""Publish generated/public/** at the site's root: the figure build's downloads (worked examples' JSON, figures'
SVG, PNG, CSV and BibTeX, embed pages, the models, the problem sets); and, for the Chinese pages under zh/,
generated/zh/public/** under zh/, but what the two languages share (`language_files`).

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
import json
import os
import shutil
import zipfile

from figures_src.build import check_generated
from figures_src.engine.errors import BuildError
from figures_src.engine.notebooks import FOLDER, ZIP

from figures_src.engine.site import language_folder

from .site import DEFAULT_LANGUAGE, OTHER_LANGUAGES, FinishError


def language_files(generated, lang):
    """{path in the site: the file to publish there} for language `lang`'s downloads: generated/public/** at the
    root for the default language; for another, generated/<lang>/public/** under <lang>/, except each file that
    is byte for byte the default language's at the same path (a model, a code listing), which the two share at the
    root, where the pages' links lead (mkdocs-static-i18n resolves a link it finds no <lang>/ file for to the
    default's). A figure's BibTeX entry is always the default's: a citation is the same in every language.
    A worked example's JSON is always the default's, which the Chinese pages cite too: the other
    language's build must have computed the same numbers (`same_example`), or the pass stops."""
    if lang == DEFAULT_LANGUAGE:
        return {path.relative_to(generated / "public").as_posix(): path for path in _files(generated / "public")}
    english = generated / "public"
    public = generated / lang / "public"
    files = {}
    for path in _files(public):
        relative = path.relative_to(public).as_posix()
        twin = english / relative
        if relative.startswith(f"{EXAMPLES}/"):
            same_example(twin, path)
            continue
        if relative.endswith(".bib"):  # a figure's BibTeX: a citation names the English page, in every language
            continue
        if twin.is_file() and twin.read_bytes() == path.read_bytes():
            continue
        files[f"{lang}/{relative}"] = path
    return files


EXAMPLES = "examples"
TEXT_FIELDS = ("title", "precision", "source", "pairing", "note", "leading_axis")  # an example's words: its title and
# precision note (figures_src/engine/items.py's EXAMPLE_HEADER), the provenance and conventions a page module adds, and
# the words of a named leading axis (the zh figure carries its own: data-leading-axis)


def same_example(english, other):
    """FinishError unless worked example `other` (another language's build of it) is `english` but for its words
    (TEXT_FIELDS): every number, token, ID and shape the same."""
    def numbers(path):
        try:
            example = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise FinishError(f"{path}: not a worked example's JSON ({exc}); run `make figures`") from None
        return {key: value for key, value in example.items() if key not in TEXT_FIELDS}

    ours, theirs = numbers(english), numbers(other)
    if ours != theirs:
        keys = sorted(key for key in ours.keys() | theirs.keys() if ours.get(key) != theirs.get(key))
        raise FinishError(f"{other} differs from {english} in {', '.join(keys)}: a worked example's numbers are the "
                          "same in every language, and both editions cite the one JSON; run `make figures`")


def _files(folder):
    return sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))


def languages(site):
    """The languages the site holds pages in, the default first."""
    pages = getattr(site, "pages", ())  # (a stand-in site with no pages: the default language alone)
    return [DEFAULT_LANGUAGE] + [lang for lang in OTHER_LANGUAGES if any(page.language == lang for page in pages)]


def run(site):
    for lang in languages(site):
        folder = site.generated if lang == DEFAULT_LANGUAGE else site.generated / lang
        try:
            # under `mkdocs serve` the site's address is the preview's; what is served there is cited as published
            check_generated(folder, site_url=None if site.serving else site.site_url)
        except BuildError as exc:
            raise FinishError(str(exc)) from None
        if not (folder / "public").is_dir():
            raise FinishError(f"{folder}/public/ does not exist: run `make figures` (python -m figures_src.build) first")
        for relative, path in language_files(site.generated, lang).items():
            if (site.docs / relative).exists():
                raise FinishError(f"{path} would overwrite docs/{relative}")
            target = site.root / relative
            if target.is_file() and target.read_bytes() == path.read_bytes():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(f".{target.name}.tmp{os.getpid()}")
            shutil.copyfile(path, temporary)
            os.replace(temporary, target)
        notebooks = sorted((folder / "public" / FOLDER).glob("*.ipynb"))
        if not notebooks:
            raise FinishError(f"{folder}/public/{FOLDER}/ holds no notebook: run `make figures`")
        zip_path = language_folder(lang) + ZIP
        write(site.root / zip_path, notebooks_zip(notebooks))
        for page in site.pages:  # the zip's link (the cite page's), its address from the site's root
            if page.language == lang:
                page.update(page.html.replace("<a data-aih-zip ", f'<a href="{"../" * page.depth}{zip_path}" '))


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
