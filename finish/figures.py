"""Put each figure in its page: the figure build writes, for every figure, the placeholder a page includes
(`--8<-- "generated/figures/<name>.html"`, an empty `<div class="aih-figure-slot" id="fig-<name>">`) and the
figure itself (generated/fragments/<name>.html; a Chinese page's from generated/zh/). This job swaps each
placeholder for its figure, and points its Download links at the page's language's files.

So neither engine's Markdown parser nor its search index walks the SVG: with the figure in the Markdown, that
was most of a build's time, and tick labels in the search index. The placeholder carries the figure's id, so a
link to `#fig-<name>` validates while the site is built. A placeholder whose figure is missing, or one left in a
page, fails the pass, naming the page and the figure.
"""
import re

from .site import DEFAULT_LANGUAGE, FinishError

_MENU_LINK = re.compile(r' href="((?:figures|examples)/[^"]+)"')  # a figure's Download links, from the site's root
# Indented (in a content tab or an admonition), the placeholder lands inside a paragraph; the figure replaces it.
_SLOT = re.compile(r'(?:<p>)?<div class="aih-figure-slot" id="fig-([A-Za-z0-9_-]+)"></div>(?:</p>)?')


def download(site, page, path):
    """The address, from `page`, of download `path` ("figures/x.svg"): the page's language's own (zh/figures/x.svg,
    its words in Chinese) where the site has one, else the shared file at the root (finish/published.py)."""
    own = f"{page.language}/{path}"
    return "../" * page.depth + (own if page.language != DEFAULT_LANGUAGE and site.path(own).is_file() else path)


def run(site):
    for page in site.pages:
        fragments = site.generated_for(page) / "fragments"

        def figure(match):
            path = fragments / f"{match.group(1)}.html"
            if not path.is_file():
                raise FinishError(f"{page.name}: {path.relative_to(site.generated.parent)} does not exist (is the figure "
                                  "declared in the ITEMS of a page module in figures_src/pages/? run `make figures`)")
            return _MENU_LINK.sub(lambda link: f' href="{download(site, page, link.group(1))}"',
                                  path.read_text(encoding="utf-8").rstrip("\n"))

        page.update(_SLOT.sub(figure, page.html))
        if 'class="aih-figure-slot"' in page.html:
            raise FinishError(f"{page.name}: a figure placeholder was left in the page")
