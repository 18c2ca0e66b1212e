"""Each page's other-language links, as search engines and readers need them: mkdocs-static-i18n writes them
relative (`<link rel="alternate" href="../zh/scores/" hreflang="zh">`), and names no default.

- every `<link rel="alternate" hreflang>` gets the absolute address Google asks for (site_url), and the page gets
  one more, `hreflang="x-default"`, to its English page, for a reader of any other language;
- 404.html, which the plugin renders with the last page's links (Your sentence's), gets the languages' Home pages,
  in its header's switcher too; it carries no hreflang links (a search engine never indexes it).

A site with one language (Zensical's, for now) has none of these links, and this job leaves it as it is.
"""
import re
from urllib.parse import urljoin

from .site import DEFAULT_LANGUAGE

_ALTERNATE = re.compile(r'<link rel="alternate" href="([^"]*)" hreflang="([a-z-]+)">')
_SWITCH = re.compile(r'<a href="([^"]*)" hreflang="([a-z-]+)" class="md-select__link">')



def run(site):
    root = site.site_url
    for page in site.pages:
        html = page.html
        found = _ALTERNATE.findall(html)
        if not found:
            continue
        if page.name.endswith("404.html"):
            home = {lang: root + ("" if lang == DEFAULT_LANGUAGE else f"{lang}/") for _, lang in found}
            html = _ALTERNATE.sub("", html)
            html = _SWITCH.sub(lambda m: f'<a href="{home[m.group(2)]}" hreflang="{m.group(2)}" class="md-select__link">',
                               html)
            page.update(html)
            continue
        address = root + page.url
        links = {lang: urljoin(address, href) for href, lang in found}
        html = _ALTERNATE.sub(lambda m: f'<link rel="alternate" href="{links[m.group(2)]}" hreflang="{m.group(2)}">', html)
        last = list(_ALTERNATE.finditer(html))[-1]
        indent = html[html.rfind("\n", 0, last.start()) + 1:last.start()]
        default = f'<link rel="alternate" href="{links[DEFAULT_LANGUAGE]}" hreflang="x-default">'
        page.update(html[:last.end()] + "\n" + indent + default + html[last.end():])
