"""The built site the jobs work on: its pages, held in memory and written back once, and the configuration they read.

A page is an HTML file the engine rendered with the theme's frame: it carries the policy's placeholder
(overrides/main.html), whatever its path (a second language's pages under zh/ too), until the pass fills it. The
figure build's own HTML (generated/public/embed/…) has no placeholder: it is published as it is, and no job touches
it. A site whose Home has no placeholder is finished already: the pass refuses it rather than do its work twice.
"""
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from figures_src.engine.site import ConfigLoader

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "mkdocs.yml"
DEFAULT_LANGUAGE = "en"
OTHER_LANGUAGES = ("zh",)  # each built under <lang>/ (mkdocs.yml's i18n plugin) from generated/<lang>/


class FinishError(Exception):
    """Something the pass cannot finish: the message names the file and what to do."""


def read_config(path=CONFIG):
    """mkdocs.yml, read afresh (under `mkdocs serve` it may have changed since the last rebuild)."""
    return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=ConfigLoader)


@dataclass
class Page:
    """One rendered page: `name` its path in the site ("scores/index.html"), `url` its address below the site's
    ("scores/", "" for Home, "404.html"), `html` its text as the jobs leave it."""

    name: str
    url: str
    html: str
    changed: bool = False

    @property
    def language(self):
        """The page's language: "zh" for a page under zh/ (mkdocs-static-i18n's folder), else "en"."""
        return next((lang for lang in OTHER_LANGUAGES if self.name.startswith(f"{lang}/")), DEFAULT_LANGUAGE)

    @property
    def depth(self):
        """How many folders down the page sits: its relative links climb this many times to the site's root."""
        return self.url.count("/")

    def update(self, html):
        if html != self.html:
            self.html, self.changed = html, True


@dataclass
class Site:
    root: Path
    config: dict
    pages: list = field(default_factory=list)  # [Page], in the order of docs/
    generated: Path = ROOT / "generated"  # what the figure build wrote: the figures, the downloads
    serving: bool = False  # under `mkdocs serve`: the site's address is the preview's
    config_dir: Path = ROOT  # mkdocs.yml's folder, which its paths (docs_dir) are relative to

    @classmethod
    def open(cls, site_dir, config_file=None, serving=False, generated=None):
        root, config_file = Path(site_dir), Path(config_file or CONFIG)
        if not (root / "index.html").is_file():
            raise FinishError(f"{root}: no index.html; build the site first (make site)")
        site = cls(root, read_config(config_file), serving=serving, generated=Path(generated or ROOT / "generated"),
                   config_dir=config_file.resolve().parent)
        site.pages = rendered_pages(root)
        return site

    def page(self, url):
        found = next((page for page in self.pages if page.url == url), None)
        if found is None:
            raise FinishError(f"{self.root}: no page at {url or 'the root'} (index.html), though mkdocs.yml's nav lists it")
        return found

    def path(self, name):
        return self.root / name

    def generated_for(self, page):
        """The figure build's folder for `page`'s language: generated/ for English, generated/<lang>/ for another
        (python -m figures_src.build --lang zh)."""
        return self.generated if page.language == DEFAULT_LANGUAGE else self.generated / page.language

    def save(self):
        for page in self.pages:
            if page.changed:
                self.path(page.name).write_text(page.html, encoding="utf-8")
                page.changed = False

    @property
    def policy(self):
        """The site's one Content-Security-Policy (mkdocs.yml's extra.content_security_policy)."""
        policy = (self.config.get("extra") or {}).get("content_security_policy")
        if not isinstance(policy, str) or "script-src 'self'" not in policy:
            raise FinishError("mkdocs.yml: extra.content_security_policy must be the site's policy, with script-src 'self'")
        return policy

    @property
    def docs(self):
        return self.config_dir / self.config.get("docs_dir", "docs")

    @property
    def site_url(self):
        url = self.config.get("site_url") or ""
        return url if not url or url.endswith("/") else url + "/"


PLACEHOLDER = "'aih-policy'"  # where the policy goes, in every page the theme renders (finish/policy.py fills it)


def rendered_pages(root):
    """Every page the theme rendered, in path order: [Page]. Refuses a site finished already (its Home has no
    placeholder left)."""
    if PLACEHOLDER not in (root / "index.html").read_text(encoding="utf-8"):
        raise FinishError(f"{root}: finished already (index.html has no policy placeholder); build the site again with "
                          "its engine (make site) before the pass")
    pages = []
    for path in sorted(root.rglob("*.html")):
        name = path.relative_to(root).as_posix()
        if name.startswith("assets/"):
            continue
        html = path.read_text(encoding="utf-8")
        if PLACEHOLDER in html:
            url = name if not name.endswith("index.html") else name.removesuffix("index.html")
            pages.append(Page(name, url, html))
    return pages


_ARTICLE = re.compile(r'(<article class="md-content__inner md-typeset">)(.*)(</article>)', re.S)


def _article(html, name):
    match = _ARTICLE.search(html)
    if match is None:
        raise FinishError(f"{name}: no <article class=\"md-content__inner md-typeset\"> (has the theme changed?)")
    return match


def article(html, name):
    """The page's content: its Markdown rendered (with what the jobs put in), inside the theme's <article>."""
    return _article(html, name).group(2)


def with_article(html, name, change):
    """`html` with its article's content replaced by change(content): the jobs that work on a page's own content
    leave the theme's frame alone."""
    match = _article(html, name)
    return html[:match.start(2)] + change(match.group(2)) + html[match.end(2):]
