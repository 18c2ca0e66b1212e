"""Each page's other-language version, said where search engines read it and Material's script does not trip on it.

mkdocs-static-i18n writes, on every page, `<link rel="alternate" hreflang>` to the page in each language, and the
sitemap's `xhtml:link` alternates, absolute. Material's script fetches `sitemap.xml` relative to every
`<link rel="alternate">` of a page (to map its language menu), which for a page's own link is a file that does not
exist (scores/sitemap.xml): a failed request and a console error on every page. So:

- the pages' hreflang <link>s go, and the sitemap carries them (a way search engines read hreflang, with absolute
  addresses), each <url> with one more, `hreflang="x-default"`, to the English page, for a reader of any other
  language; sitemap.xml.gz is written again from it;
- the language menu (`<a hreflang class="md-select__link">`) stays, to the same page in the other language;
  404.html, which the plugin renders with the last page's links (Your sentence's), gets the languages' Home pages.

A site with one language (Zensical's, for now) has none of these, and this job leaves it as it is.
"""
import gzip
import re

from .site import DEFAULT_LANGUAGE, OTHER_LANGUAGES

_ALTERNATE = re.compile(r'[ \t]*<link rel="alternate" href="[^"]*" hreflang="[a-z-]+">\n?')
_SWITCH = re.compile(r'<a href="([^"]*)" hreflang="([a-z-]+)" class="md-select__link">')
_SITEMAP_DEFAULT = re.compile(r'([ \t]*)<xhtml:link rel="alternate" hreflang="' + DEFAULT_LANGUAGE + r'" href="([^"]+)"/>\n')


def run(site):
    root = site.site_url
    for page in site.pages:
        html = _ALTERNATE.sub("", page.html)
        if page.name.endswith("404.html"):
            def home(match):
                lang = match.group(2)
                return (f'<a href="{root}{"" if lang == DEFAULT_LANGUAGE else lang + "/"}" hreflang="{lang}" '
                        'class="md-select__link">')
            html = _SWITCH.sub(home, html)
        page.update(html)
    sitemap = site.path("sitemap.xml")
    if not sitemap.is_file():
        return
    text = sitemap.read_text(encoding="utf-8")
    if "x-default" not in text:
        # no <lastmod>: the plugin's is the day of the build, so two builds of the same pages differed
        text = re.sub(r"[ \t]*<lastmod>[^<]*</lastmod>\n", "", text)
        text = _SITEMAP_DEFAULT.sub(lambda m: m.group(0) + f'{m.group(1)}<xhtml:link rel="alternate" '
                                    f'hreflang="x-default" href="{m.group(2)}"/>\n', text)
        sitemap.write_text(text, encoding="utf-8")
        site.path("sitemap.xml.gz").write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    # Material's script reads the sitemap from its page's base, which is a language's folder on its pages
    # (finish/search.py): the same file there
    for lang in OTHER_LANGUAGES:
        if any(page.language == lang for page in site.pages):
            site.path(f"{lang}/sitemap.xml").write_text(text, encoding="utf-8")
