"""The print edition, print/: every page of the site in navigation order, on one page, for the printer and for
`make pdf` (scripts/make_pdf.py); the Chinese edition's at zh/print/, of the Chinese pages. docs/print.md gives the page its frame and a placeholder; this job copies each
page's finished <article> (figures, MathML and tables already in) into it.

The copies are static: the page loads no widget script and its heatmaps lose data-example, so what prints is
the figure the build drew and its table (docs/stylesheets/print.css). Ids that a page repeats from an earlier one
(a "Recap" heading, say) get the page's name in front, with the page's own links to them. Links keep working:
every page but Home sits one folder down, as print/ does, so its "../" links hold; Home's relative links get a
"../", and a page's links into its own folder get "../<page>/". Then a link to a page of the edition, or to a
place in one, becomes a link within the edition (../masks/#recap -> #masks-recap, ../masks/ -> #print-masks);
links to files (a worked example's JSON, a figure's SVG) stay links to the site.

Why not mkdocs-print-site-plugin: it assembles its page from each page's content before the figures and MathML
are in (the pass puts them in the finished HTML), it adds scripts of its own that the CSP would have to allow, and
a plugin, like a hook, is something MkDocs' successor does not run.
"""
import itertools
import re
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from figures_src.engine.errors import BuildError
from figures_src.engine.site import language_folder, nav_entries, page_path
from figures_src.engine.words import SITE_WORDS as WORDS, listed

from .site import DEFAULT_LANGUAGE, OTHER_LANGUAGES, FinishError, article

PRINT_PAGE = "print.md"
PLACEHOLDER = '<div id="aih-print-edition"></div>'
_ID = re.compile(r'\bid="([^"]+)"')
_RELATIVE = re.compile(r'\b(href|src)="(?![#/]|[a-z][a-z0-9+.-]*:)')
_OWN_FOLDER = re.compile(r'\b(href|src)="(?![#/.]|[a-z][a-z0-9+.-]*:)')
# The widget script (finish/policy.py, after this job, writes preload hints only for what is left).
_SITE_SCRIPT = re.compile(r'<script[^>]*\bsrc="[^"]*javascripts/site\.js"[^>]*></script>\s*')

# Words of a page's instructions for its controls ("What to do", "Try this", "drag the slider", "Point at a cell, or
# tap it", "Type six digits, or pick a preset, and press Generate", "Tick"): the print edition's copy has no
# controls, so a page that uses them gets a note that quotes them, with its web address. Not in code listings
# (numpy's dtype.type), and "Type" and "Tick" only as the imperative that opens a sentence ("a sentence you type" is
# another page's control, "a right entry gets a tick" is no instruction). The pattern reads the English pages, so it
# stays English here; the note's own words are words/site.md's web-note.
_INSTRUCTIONS = {
    "en": re.compile(r"\b(?:(?i:hover(?:ing)?|click|drag|slider|tap it|point at a cell|press)|Type|Tick)\b"),
    # the same instructions in the Chinese pages' words: hover, click, drag, slider, tap, tick, press a button (按 or
    # 按下 before a quoted button name: 按下表 is "by the table below", 按位置 "by position"), type (输入 before what
    # is typed: 输入 alone is also "input")
    "zh": re.compile(r"悬停|点击|拖动|滑块|轻触|勾选|按下?(?=“)|输入(?=[一二三四五六七八九十\d]+个|一个提示词)"),
}
_CODE = re.compile(r"<(pre|code)\b.*?</\1>", re.S)
_H1_END = re.compile(r"</h1>")
_PRE_WITHOUT_ID = re.compile(r"<pre\b(?![^>]*\bid=)")


def nav_pages(config, lang=DEFAULT_LANGUAGE):
    """(Markdown page, its page in the site, its url) of the nav's pages in language `lang`, in order, but the
    edition itself (the Chinese pages sit under zh/)."""
    try:
        entries = nav_entries(config)
    except BuildError as error:
        raise FinishError(f"print edition: {error}") from None
    folder = language_folder(lang)
    return [(markdown, f"{folder}{page_path(markdown)}index.html", folder + page_path(markdown))
            for _, markdown in entries if markdown != PRINT_PAGE]


def static(content):
    """The article without what makes it interactive (its heatmaps stay the figures the build drew), and its
    images and collapsed tables there at once, as a printer needs them."""
    # finish/details.py's collapsed bodies, and the problems' waiting inputs and grids (pages/problems/html.py)
    content = re.sub(r'<noscript class="aih-(?:lazy|near)">(.*?)</noscript>', r"\1", content, flags=re.S)
    # Zensical's skip link target, first in every article: the edition's own page has it already
    content = re.sub(r'\s*<a id="__skip" tabindex="-1"></a>', "", content)
    return re.sub(r' data-example="[^"]*"| loading="lazy"', "", content)


def unique_ids(content, prefix, seen):
    """Give the ids an earlier page already used `prefix-` in front, and the page's own #links to them.
    -> (content, {id as the page has it: id in the edition})."""
    ids = _ID.findall(content)
    repeated = {i for i in ids if i in seen}
    seen.update(ids)
    renamed = {i: f"{prefix}-{i}" if i in repeated else i for i in ids}
    if not repeated:
        return content, renamed
    content = _ID.sub(lambda m: f'id="{renamed[m.group(1)]}"', content)
    # what names an id: a link to it, a label for it; and a tab set's radio group (pymdownx.tabbed: `__tabbed_1`
    # for the inputs `__tabbed_1_1`, …), which must not join another page's group of the same name
    content = re.sub(r'\b(href="#|for=")([^"]+)"', lambda m: f'{m.group(1)}{renamed.get(m.group(2), m.group(2))}"', content)
    content = re.sub(r'\bname="(__tabbed_\d+)"',
                     lambda m: f'name="{prefix}-{m.group(1)}"' if f"{m.group(1)}_1" in repeated else m.group(0), content)
    return content, renamed


def code_ids(content, slug):
    """Each code block with an id of its own, `<slug>-code-<n>`. Material's copy button names the block it copies
    by the nearest id around it (`__code_<id>`): in the edition that was the page's section, the same for every
    block of a page, so each button copied the page's first block."""
    counter = itertools.count(1)
    return _PRE_WITHOUT_ID.sub(lambda match: f'<pre id="{slug}-code-{next(counter)}"', content)


def web_note(content, address, lang=DEFAULT_LANGUAGE):
    """The article with a note after its title, if its text tells the reader to use controls it has only on the
    web: the words of those instructions, and the web page's address (in the page's language, `lang`)."""
    words = []
    for match in _INSTRUCTIONS[lang].finditer(re.sub(r"<[^>]+>", " ", _CODE.sub(" ", content))):
        if match.group(0).lower() not in words:
            words.append(match.group(0).lower())
    if not words:
        return content
    site_words = WORDS.in_language(lang)
    said = listed([site_words.line("web-note/word", word=word) for word in words], "comma", lang)
    note = f'<p class="aih-web-note">{site_words.line("web-note", words=said, address=address)}</p>'
    return _H1_END.sub(lambda m: m.group(0) + note, content, count=1)


_EDITION = "http://edition.invalid/print/"  # print/'s address, only to resolve the sections' relative links against


def within_edition(content, pages):
    """The section's links to a page of the edition (`pages`: {url: (section id, {id: id in the edition})}) as
    links within the edition: to the place they point at, or to the page's section; any other link as it is."""
    def link(match):
        address = urlsplit(urljoin(_EDITION, match.group(1)))
        if address.netloc != urlsplit(_EDITION).netloc or address.query or address.path.lstrip("/") not in pages:
            return match.group(0)
        section, ids = pages[address.path.lstrip("/")]
        if not address.fragment:
            return f'href="#{section}"'
        return f'href="#{ids[address.fragment]}"' if address.fragment in ids else match.group(0)

    return re.sub(r'\bhref="([^"#][^"]*)"', link, content)


def edition(site, lang=DEFAULT_LANGUAGE):
    """The HTML of every nav page's article in language `lang`, in order, each in a <section> of its own."""
    seen = {"aih-print-edition"}
    sections, pages = [], {}
    site_url = site.site_url
    folder = language_folder(lang)
    for src_uri, dest_path, address in nav_pages(site.config, lang):
        content = static(article(site.page(address).html, dest_path))
        content = web_note(content, site_url.rstrip("/") + "/" + address, lang)
        url = address.removeprefix(folder)  # within the language's folder, where its print/ is too
        if url.count("/") == 0:  # Home is at the language's root; print/ is one folder down
            content = _RELATIVE.sub(r'\1="../', content)
        else:  # a link into the page's own folder (problems/concepts.json) reaches it from print/ through ../
            content = _OWN_FOLDER.sub(rf'\1="../{url}', content)
        slug = Path(src_uri).stem
        content, ids = unique_ids(content, slug, seen)
        content = code_ids(content, slug)
        pages[url] = (f"print-{slug}", ids)
        sections.append((slug, content))
    return "\n".join(f'<section class="aih-print-page" id="print-{slug}">{within_edition(content, pages)}</section>'
                     for slug, content in sections)


def run(site):
    for lang in (DEFAULT_LANGUAGE, *OTHER_LANGUAGES):
        folder = language_folder(lang)
        target = next((page for page in site.pages if page.url == f"{folder}print/"), None)
        if target is None:
            if lang != DEFAULT_LANGUAGE and not any(page.language == lang for page in site.pages):
                continue  # a site built without that language (Zensical's, for now)
            raise FinishError(f"print edition: docs/{folder}{PRINT_PAGE} was not built")
        if target.html.count(PLACEHOLDER) != 1:
            raise FinishError(f"print edition: docs/{folder}{PRINT_PAGE} must hold {PLACEHOLDER} once")
        target.update(_SITE_SCRIPT.sub("", target.html.replace(PLACEHOLDER, edition(site, lang))))
