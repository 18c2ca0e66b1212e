"""The link to the notation table that every page ends with, in the page's language.

pymdownx.snippets appends includes/notation-link.md to every page of either language, with the link alone (so the
engines check that Home's #notation exists); its sentence, which no Markdown include can give per language, is
words/site.md's `notation-link` (words/zh/site.md's on a Chinese page), put here around the link's address.
"""
import re

from figures_src.engine.words import SITE_WORDS

from .site import FinishError

_LINK = re.compile(r'<p class="aih-notation-link"><a href="([^"]+)">→</a></p>')


def run(site):
    for page in site.pages:
        if 'class="aih-notation-link"' not in page.html:
            continue
        found = _LINK.findall(page.html)
        if len(found) != 1:
            raise FinishError(f"{page.name}: expected one notation link as includes/notation-link.md writes it "
                              f"(<p class=\"aih-notation-link\"><a href=…>→</a></p>), found {len(found)}")
        words = SITE_WORDS.in_language(page.language)
        page.update(_LINK.sub(lambda m: f'<p class="aih-notation-link">{words.html("notation-link", href=m.group(1))}</p>',
                              page.html))
