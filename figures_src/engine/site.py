"""Where things are published: the site's address, a page's address within it, and what mkdocs.yml says of the
whole site (its policy, its licence), which the post-build pass (finish/) reads from the same file."""
import functools
import os
import re
from pathlib import Path

import yaml

from .errors import BuildError

MKDOCS = Path(__file__).resolve().parents[2] / "mkdocs.yml"

# Without SITE_URL and REPO_URL, a build cites the published site: the GitHub Pages address of the default
# REPO_URL (both defaults are also mkdocs.yml's). `make serve` still serves on 127.0.0.1; only the address the
# pages cite is this one.
DEFAULT_REPO_URL = "https://github.com/attention-heatmap/attention-heatmap"
DEFAULT_SITE_URL = "https://attention-heatmap.github.io/attention-heatmap/"
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # item names: lower case words joined by hyphens

# The site's languages, the default first: English at the site's root, each other one under <lang>/ (mkdocs.yml's
# i18n plugin), built from words/<lang>/ into generated/<lang>/ (python -m figures_src.build --lang zh).
LANGUAGES = ("en", "zh")
DEFAULT_LANGUAGE = LANGUAGES[0]
LANGUAGE_VARIABLE = "AIH_LANGUAGE"  # set by the build's --lang, so every page's process and a notebook's kernel see it


def language():
    """The language being built: AIH_LANGUAGE, or the default."""
    lang = os.environ.get(LANGUAGE_VARIABLE) or DEFAULT_LANGUAGE
    if lang not in LANGUAGES:
        raise BuildError(f"{LANGUAGE_VARIABLE}={lang!r}: the site's languages are {', '.join(LANGUAGES)}")
    return lang


def language_folder(lang=None):
    """"" for the default language, "zh/" for Chinese: where its pages sit below the site's address, and its
    words below words/ and its build below generated/."""
    lang = language() if lang is None else lang
    return "" if lang == DEFAULT_LANGUAGE else f"{lang}/"


def language_url():
    """The address of the language being built: the site's for English, <site>/zh/ for Chinese."""
    return site_url() + language_folder()


def site_url():
    """The site's address, SITE_URL or mkdocs.yml's default, ending in a slash."""
    url = os.environ.get("SITE_URL") or DEFAULT_SITE_URL
    return url if url.endswith("/") else url + "/"


def repo_url():
    """The repository's address, REPO_URL or the default, without a trailing slash (the notebooks install from it)."""
    return (os.environ.get("REPO_URL") or DEFAULT_REPO_URL).rstrip("/")


def page_path(page):
    """"scores.md" -> "scores/", "index.md" -> "", "problems/index.md" -> "problems/": a page's path below the
    site's address (directory URLs)."""
    stem = page.removesuffix(".md")
    return stem.removesuffix("index") if stem == "index" or stem.endswith("/index") else stem + "/"


class ConfigLoader(yaml.SafeLoader):
    """Reads mkdocs.yml as data: `!ENV [NAME, default]` as MkDocs reads it (the variable if set, else the default),
    MkDocs' other tags as nothing. The post-build pass (finish/) reads mkdocs.yml with it too."""


def _tagged(loader, suffix, node):
    if suffix == "ENV" and isinstance(node, yaml.SequenceNode):
        values = loader.construct_sequence(node)
        return next((os.environ[name] for name in values[:-1] if os.environ.get(name)), values[-1])
    return None


ConfigLoader.add_multi_constructor("!", _tagged)


@functools.cache
def mkdocs_config(path=MKDOCS):
    """mkdocs.yml, read once (a caller that builds from it records it as an input: engine/inputs.note_input)."""
    return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=ConfigLoader)


def nav_entries(config=None):
    """[(title, "page.md"), …]: mkdocs.yml's nav, in order (the site's one reading of it; `config` is mkdocs.yml read
    as data, mkdocs_config() unless given). The nav is one list of `Title: page.md` lines: anything else is refused."""
    config = mkdocs_config() if config is None else config
    entries = []
    for entry in config.get("nav") or []:
        if not (isinstance(entry, dict) and len(entry) == 1 and isinstance(next(iter(entry.values())), str)):
            raise BuildError(f"mkdocs.yml: nav entry {entry!r} is not `Title: page.md`; the site reads only those")
        ((title, markdown),) = entry.items()
        entries.append((title, markdown))
    return entries


def docs_path(markdown, lang=None):
    """The Markdown file of page `markdown` ("qkv.md") in language `lang` (default: the one being built):
    docs/qkv.md, docs/zh/qkv.md."""
    return MKDOCS.parent / "docs" / f"{language_folder(lang)}{markdown}"


def language_config(lang=None):
    """mkdocs.yml's settings for language `lang` (default: the one being built): its entry in the i18n plugin's
    languages ({} for a language it does not list)."""
    lang = language() if lang is None else lang
    for plugin in mkdocs_config().get("plugins") or []:
        if isinstance(plugin, dict) and "i18n" in plugin:
            return next((entry for entry in plugin["i18n"]["languages"] if entry["locale"] == lang), {})
    return {}


def nav_title(title, lang=None):
    """A nav title (mkdocs.yml's, English) in language `lang`: the i18n plugin's nav_translations of it."""
    lang = language() if lang is None else lang
    if lang == DEFAULT_LANGUAGE:
        return title
    translations = language_config(lang).get("nav_translations") or {}
    if title not in translations:
        raise BuildError(f"mkdocs.yml: the {lang} language's nav_translations has no entry for the nav title {title!r}")
    return translations[title]


def policy():
    """The site's one Content-Security-Policy, mkdocs.yml's extra.content_security_policy."""
    return mkdocs_config()["extra"]["content_security_policy"]


def licence():
    """mkdocs.yml's copyright line, in the language being built: "Text and figures CC BY 4.0 · code MIT"."""
    return language_config().get("copyright") or mkdocs_config()["copyright"]
