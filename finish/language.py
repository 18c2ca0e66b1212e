"""What the engines write in English on every page, in the page's language (words/site.md, words/zh/site.md).

- The link to the notation table that every page ends with: pymdownx.snippets appends includes/notation-link.md to
  every page of either language with the link alone (so the engines check that Home's #notation exists); its
  sentence, which no Markdown include can give per language, is `notation-link`, put here around the address.
- Each heading's permalink title: the toc extension's permalink_title (mkdocs.yml), which mkdocs-static-i18n cannot
  set per language (it refuses per-language markdown_extensions): `chrome/permalink-title`.
- Material's credit in the footer, which its template writes in English in every language: `chrome/made-with`.

The English sections are the engines' own words, so an English page is left as it is; a page that no longer holds
them (mkdocs.yml's permalink_title or the theme changed) stops the pass, naming the section to update.
"""
import re

from figures_src.engine.site import DEFAULT_LANGUAGE
from figures_src.engine.words import SITE_WORDS

from .site import FinishError

_NOTATION = re.compile(r'<p class="aih-notation-link"><a href="([^"]+)">→</a></p>')
_PERMALINK = re.compile(r'(<a class="headerlink" href="#[^"]*" title=")([^"]*)(">)')
_CREDIT = re.compile(r'(<div class="md-copyright">.*?\n)(\s*)Made with(\s*<a href="https://squidfunk)', re.S)


def run(site):
    english = SITE_WORDS.in_language(DEFAULT_LANGUAGE)
    permalink_title = english.line("chrome/permalink-title")
    for page in site.pages:
        words = SITE_WORDS.in_language(page.language)
        html = page.html
        if 'class="aih-notation-link"' in html:
            found = _NOTATION.findall(html)
            if len(found) != 1:
                raise FinishError(f"{page.name}: expected one notation link as includes/notation-link.md writes it "
                                  f"(<p class=\"aih-notation-link\"><a href=…>→</a></p>), found {len(found)}")
            html = _NOTATION.sub(lambda m: f'<p class="aih-notation-link">{words.html("notation-link", href=m.group(1))}</p>',
                                 html)
        titles = set(_PERMALINK.findall(html))
        if titles and {title for _, title, _ in titles} != {permalink_title}:
            raise FinishError(f"{page.name}: its headings' permalink title is not words/site.md's chrome/permalink-title "
                              f"({permalink_title!r}): make it mkdocs.yml's toc permalink_title")
        if page.language != DEFAULT_LANGUAGE:
            title = words.html("chrome/permalink-title", one_line=True)
            html = _PERMALINK.sub(lambda m: m.group(1) + title + m.group(3), html)
            html = _CREDIT.sub(lambda m: m.group(1) + m.group(2) + words.line("chrome/made-with") + m.group(3), html)
        page.update(html)
