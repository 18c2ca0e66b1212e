"""The Chinese edition as built (issue 60), on the session's shared site/ (tests/conftest.py): every page in both
languages, in the right language, with the same numbers, no English sentence left, a switcher and hreflang links
that go to the same page, and a search index that segments Chinese. (That the Chinese figure build is
reproducible is tests/test_site.py's, beside the English one's.)

The sources behind it are tests/test_zh.py's (no build); what the browser shows, tests/browser/test_zh_browser.py's.
"""
import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import pytest

from figures_src.engine.site import nav_entries, page_path

ROOT = Path(__file__).resolve().parents[1]
LANG = "zh"
# Every nav page's address below the site's root: "" (Home), "qkv/", …
NAV = [page_path(markdown) for _, markdown in nav_entries()]


@pytest.fixture(scope="module")
def site(built_site):
    return built_site


def html_files(site):
    return sorted(path for path in site.rglob("*.html") if "assets" not in path.relative_to(site).parts)


def chinese_pages(site):
    """{address of the English twin: its Chinese page}, for every page under zh/ that has one (not the glossary,
    which only the Chinese edition has): the nav pages, the print edition and the embed pages."""
    found = {}
    for path in sorted((site / LANG).rglob("index.html")):
        address = path.parent.relative_to(site / LANG).as_posix() + "/"
        address = "" if address == "./" else address
        if (site / address / "index.html").is_file():
            found[address] = path
    return found


# ---------------------------------------------------------------- both editions, each in its language


def test_every_nav_page_is_built_in_both_languages(site):
    missing = [f"{prefix}{address}" for address in NAV for prefix in ("", f"{LANG}/")
               if not (site / prefix / address / "index.html").is_file()]
    assert not missing, f"every nav page is at site/<page>/ and site/zh/<page>/; missing: {missing}"


def html_lang(path):
    found = re.search(r"<html\b[^>]*\blang=\"([^\"]*)\"", path.read_text(encoding="utf-8"))
    return found and found.group(1)


def test_every_page_says_its_language(site):
    """<html lang>: Material's language on the page, and what screen readers, fonts and search engines go by. The
    site's one 404.html is served for a missing address in either edition: it is the default language's."""
    wrong = []
    for path in html_files(site):
        relative = path.relative_to(site)
        wanted = LANG if relative.parts[0] == LANG else "en"
        if html_lang(path) != wanted:
            wrong.append(f"{relative}: lang={html_lang(path)!r}, not {wanted!r}")
    assert len(html_files(site)) > 100
    assert not wrong, f"a page under zh/ says <html lang=\"zh\">, every other page \"en\": {wrong[:10]}"


# ---------------------------------------------------------------- the same numbers


class PageText(HTMLParser):
    """The text of a page's <article> (an embed page's <body>: it has no article) as a reader meets it, every
    element's text apart; with `spoken`, also the words screen readers speak (aria-label, alt, title).
    `skipped`: elements whose text is left out."""

    SPOKEN = ("aria-label", "alt", "title")

    def __init__(self, skipped=("script", "style"), kept_inside=(), spoken=False):
        super().__init__(convert_charrefs=True)
        self.skipped, self.kept_inside, self.spoken = set(skipped), set(kept_inside), spoken
        self.parts, self.open, self.inside = [], [], 0

    def handle_starttag(self, tag, attrs):
        self.open.append(tag)
        if tag == "article" or (tag == "body" and not self.inside):
            self.inside += 1
        self.parts.append("\n")
        if self.spoken and self._reading():
            self.parts += [f"\n{value}\n" for name, value in attrs if name in self.SPOKEN and value]

    def handle_endtag(self, tag):
        if tag in self.open:
            while self.open.pop() != tag:
                pass
        if tag == "article":
            self.inside = 0
        self.parts.append("\n")

    def handle_data(self, data):
        if self._reading():
            self.parts.append(data)

    def _reading(self):
        if not self.inside:
            return False
        skipping = [index for index, tag in enumerate(self.open) if tag in self.skipped]
        return not skipping or any(tag in self.kept_inside for tag in self.open[skipping[-1]:])

    @classmethod
    def of(cls, path, **kwargs):
        html = path.read_text(encoding="utf-8")
        if "<article" in html:
            html = html[html.index("<article"):html.rindex("</article>") + len("</article>")]
        parser = cls(**kwargs)
        parser.feed(html)
        return "".join(parser.parts)


# A number as a page prints it: a minus sign (U+2212) or a hyphen, digits with a decimal point or thousands
# commas, an exponent; not the digits of a word (float32, W1, h2).
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])-?\d+(?:[.,]\d+)*(?:[eE]-?\d+)?")
THIN_SPACES = dict.fromkeys(map(ord, "\u2009\u202f\u200a"), None)


def numbers(text):
    """The multiset of the numbers in a text, − written -, thin spaces inside a number taken out."""
    return Counter(NUMBER.findall(text.replace("\u2212", "-").translate(THIN_SPACES)))


# Where a page's numbers are justly not the English page's: page -> (only in English, only in Chinese, why).
NUMBER_EXCEPTIONS = {
    "learning/": ({"5": 1}, {}, "“5 seeds with the scale and 5 without” says the 5 once in Chinese: "
                                "“有缩放和无缩放各 5 个种子” (each, 5 seeds)"),
    "scaling/": ({"5": 1}, {}, "the same sentence of the training runs' story (words/learning.md, learning-scale-story)"),
    "print/": ({"5": 2}, {}, "the print edition holds both pages above"),
}


def test_every_chinese_page_has_the_english_pages_numbers(site):
    """Every number in a zh page's <article> (its text, its tables, its figures' titles and descriptions, its code;
    all but its scripts and styles) is the English page's, each as often: a translation changes the words around
    the numbers, never a number, and never drops or adds one. The theme's chrome around the article is left out
    (it holds no number of the page's). Code is counted: it is the same code in both languages."""
    pages = chinese_pages(site)
    assert set(NAV) <= set(pages) and "print/" in pages and any(a.startswith("embed/") for a in pages)
    differ = []
    for address, chinese in pages.items():
        english, translated = numbers(PageText.of(site / address / "index.html")), numbers(PageText.of(chinese))
        assert sum(english.values()) > 0 or address.startswith("embed/"), f"{address}: no number read"
        only_english, only_chinese, _ = NUMBER_EXCEPTIONS.get(address, ({}, {}, ""))
        if (english - translated, translated - english) != (Counter(only_english), Counter(only_chinese)):
            differ.append(f"{address or 'home'}: only in English {dict(english - translated)}, "
                          f"only in Chinese {dict(translated - english)}")
    assert not differ, ("a zh page has the English page's numbers, each as often (NUMBER_EXCEPTIONS lists the "
                        f"justified differences): {differ}")


def test_a_number_is_read_as_a_page_prints_it():
    assert numbers("−0.25, 1,024 和 3.5e−06；float32 的 W1 在第 34 步") == Counter(
        {"-0.25": 1, "1,024": 1, "3.5e-06": 1, "34": 1})
    assert numbers("1\u2009000") == Counter({"1000": 1})


# ---------------------------------------------------------------- no English sentence left

# Latin words in a row (a run broken by a full stop, a Chinese character or a number), as a sentence of English
# would be: four on a page, three in a widget's line (english_runs).
LATIN_WORD = r"[A-Za-z][A-Za-z'’]*(?:-[A-Za-z]+)*"

# What a zh page rightly shows in English: phrase -> why. A run of English inside one of these is not a sentence
# left untranslated.
ENGLISH_KEPT = {
    # The running sentences and their tokens: the models are English (issue 60: say so once in Chinese).
    "the cat sat on mats": "the running sentence (figures_src/pages/sentences.py RUNNING)",
    "mats sat on the cat": "the running sentence shuffled (output.md, positions.md)",
    "my dog chased the red ball": "the demo's sentence (sentences.py DEMO)",
    "h e g e b e h h": "Watch it learn's training sequence, one letter a token",
    "The animal didn't cross the street because it was too tired": "a real-heads sentence (models/minilm/data.py)",
    "The keys to the old cabinet in the hallway are on the table": "a real-heads sentence (models/minilm/data.py)",
    "The author who wrote the letters that the editor rejected finally published them herself in a small magazine":
        "a real-heads sentence (models/minilm/data.py)",
    # A real model writes: the prompts offered, and what the English model wrote from the first.
    "The capital of France is Paris": "SmolLM2's prompt and what it wrote (smollm.md's worked run)",
    "The capital of France is": "a prompt offered to SmolLM2 (words/smollm.md preset/capital)",
    "Once upon a time, a small robot": "a prompt offered to SmolLM2 (preset/robot)",
    "The three primary colours are": "a prompt offered to SmolLM2 (preset/colours)",
    # Proper names: the site's own name, cited as its BibTeX and CITATION.cff give it, and papers' titles.
    "Attention Is a Heatmap": "the site's name, as it is cited",
    "Language Models are Unsupervised Multitask Learners": "a paper's title (cost.md's references)",
    "Llama 2: Open Foundation and Fine-Tuned Chat Models": "a paper's title (cost.md)",
    "LLaMA: Open and Efficient Foundation Language Models": "a paper's title (cost.md)",
    "Language Models are Few-Shot Learners": "a paper's title (cost.md)",
    "Fast Transformer Decoding: One Write-Head is All You Need": "a paper's title (multi-head.md)",
    "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints":
        "a paper's title (multi-head.md)",
    "Quantifying Attention Flow in Transformers": "a paper's title (real-heads.md's reading)",
    "What Does BERT Look At? An Analysis of BERT's Attention": "a paper's title (real-heads.md)",
    "Attention is not Explanation": "a paper's title (real-heads.md)",
    "Attention is not not Explanation": "a paper's title (real-heads.md)",
    "Attention is Not Only a Weight: Analyzing Transformers with Vector Norms": "a paper's title (real-heads.md)",
}


# The sentences' tokens, which a figure's description or a table lists one by one ("the, cat, sat, on, mats"): a
# run of these words alone is tokens, not a sentence.
TOKENS = {word.lower() for phrase, why in ENGLISH_KEPT.items() if "sentence" in why or "prompt" in why
          for word in re.findall(r"[A-Za-z]+", phrase)} | {"birds", "sing", "loudly", "pad"}  # sentences.py SHORT, PAD


def english_runs(text, kept=ENGLISH_KEPT, at_least=4):
    """The runs of `at_least` or more Latin words in `text`, once each phrase of `kept` is taken out; not a run of
    the sentences' tokens alone."""
    for phrase in sorted(kept, key=len, reverse=True):
        text = re.sub(r"\s+".join(map(re.escape, phrase.split())), " · ", text)
    run = re.compile(rf"{LATIN_WORD}(?:[ \t,;:()“”\"]+{LATIN_WORD}){{{at_least - 1},}}")
    return [found for line in text.split("\n") for found in run.findall(line)
            if not {word.lower() for word in re.findall(r"[A-Za-z]+", found)} <= TOKENS]


def reader_text(path):
    """What a reader of the page reads in English or Chinese: the article's text and spoken names, but code,
    preformatted blocks, math and the figures' drawn letters (an SVG's title and description are read)."""
    return PageText.of(path, skipped=("script", "style", "code", "pre", "math", "svg"), kept_inside=("title", "desc"),
                       spoken=True)


@pytest.mark.parametrize("address", ["", *[a for a in NAV if a], "glossary/", "print/"])
def test_no_english_sentence_is_left_on_a_chinese_page(site, address):
    """Outside code, math, the running sentences' tokens and proper names (ENGLISH_KEPT, each with its reason), a
    zh page has no run of four English words: its prose, its figures' titles and descriptions, its widgets'
    templates and what screen readers speak (aria-label, alt, title)."""
    kept = ENGLISH_KEPT
    if address == "glossary/":  # its table's first column is the English term each row translates
        from tests.test_zh import glossary
        kept = {**ENGLISH_KEPT, **{english: "the glossary's English column" for english, *_ in glossary()}}
    runs = english_runs(reader_text(site / LANG / address / "index.html"), kept)
    assert not runs, (f"zh/{address}: no English sentence outside code, math, tokens and proper names "
                      f"(ENGLISH_KEPT): {len(runs)} run(s), {sorted(Counter(runs).items(), key=lambda i: -i[1])[:12]}")


def test_every_phrase_kept_in_english_is_still_on_some_chinese_page(site):
    """ENGLISH_KEPT holds no phrase that no page shows any more."""
    text = "\n".join(reader_text(path) for path in sorted((site / LANG).rglob("index.html")))
    text = re.sub(r"\s+", " ", text)
    stale = [phrase for phrase in ENGLISH_KEPT if re.sub(r"\s+", " ", phrase) not in text]
    assert not stale, f"ENGLISH_KEPT lists phrases no zh page shows: {stale}"


def test_a_run_of_english_is_found_and_a_kept_phrase_is_not():
    assert english_runs("它说 This part needs JavaScript to run。") == ["This part needs JavaScript to run"]
    assert english_runs("例句“the cat sat on mats”有 5 个词元") == []
    assert english_runs("softmax 的 QK 与 d k") == [], "three Latin words or fewer are a term, not a sentence"
    assert english_runs("5 个查询（the, cat, sat, on, mats）") == [], "the sentence's tokens, listed"


# ---------------------------------------------------------------- the switcher and hreflang


def canonical(path):
    return re.search(r'<link rel="canonical" href="([^"]+)"', path.read_text(encoding="utf-8")).group(1)


def switcher(path):
    """{language: the address its link in the header's language menu goes to}, made absolute from the page's."""
    html = path.read_text(encoding="utf-8")
    base = canonical(path) if 'rel="canonical"' in html else None
    return {lang: urljoin(base, href) if base else href
            for href, lang in re.findall(r'<a href="([^"]*)" hreflang="([a-z-]+)" class="md-select__link">', html)}


def alternates(path):
    return {lang: href for href, lang in
            re.findall(r'<link rel="alternate" href="([^"]*)" hreflang="([a-z-]+)">', path.read_text(encoding="utf-8"))}


def sitemap_alternates(site):
    """{page address: {language: address}} of the sitemap's xhtml:link alternates (finish/alternates.py: where the
    site says hreflang)."""
    text = (site / "sitemap.xml").read_text(encoding="utf-8")
    return {loc: dict((lang, href) for lang, href in
                      re.findall(r'<xhtml:link rel="alternate" hreflang="([a-z-]+)" href="([^"]+)"/>', body))
            for loc, body in re.findall(r"<url>\s*<loc>([^<]+)</loc>(.*?)</url>", text, flags=re.S)}


@pytest.mark.parametrize("address", ["", *[a for a in NAV if a], "print/"])
def test_the_language_menu_and_hreflang_go_to_the_same_page_in_the_other_language(site, address):
    english, chinese = site / address / "index.html", site / LANG / address / "index.html"
    english_url, chinese_url = canonical(english), canonical(chinese)
    assert chinese_url == english_url.replace(canonical(site / "index.html"), canonical(site / LANG / "index.html"))
    for path in (english, chinese):
        where = path.relative_to(site).parent.as_posix()
        assert switcher(path) == {"en": english_url, LANG: chinese_url}, (
            f"{where}: the language menu's links go to this page in each language (English {english_url}, "
            f"Chinese {chinese_url}): {switcher(path)}")
        assert alternates(path) == {}, (f"{where}: no <link rel=alternate hreflang> in the page (Material's script "
                                        "would fetch a sitemap.xml beside it, which does not exist): the sitemap says it")
    in_sitemap = sitemap_alternates(site)
    for url in (english_url, chinese_url):
        assert in_sitemap.get(url) == {"en": english_url, LANG: chinese_url, "x-default": english_url}, (
            f"sitemap.xml: {url}'s hreflang alternates are absolute, one per language to this page's twin, and "
            f"x-default to the English page: {in_sitemap.get(url)}")


def test_the_404_pages_language_menu_goes_to_each_languages_home(site):
    page = site / "404.html"
    homes = {"en": canonical(site / "index.html"), LANG: canonical(site / LANG / "index.html")}
    assert switcher(page) == homes, f"404.html's language menu goes to the two Home pages {homes}: {switcher(page)}"
    assert alternates(page) == {}, "404.html has no hreflang links: no search engine indexes it"


# ---------------------------------------------------------------- search


@pytest.fixture(scope="module")
def search_index(site):
    """Both languages' indexes as one (finish/search.py splits them: zh/search/search_index.json holds the Chinese
    pages', their locations from zh/), each Chinese entry's location from the site's root again."""
    english = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    chinese = json.loads((site / LANG / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert not [doc for doc in english["docs"] if doc["location"].startswith(f"{LANG}/")], (
        "the English index holds no Chinese page: a Chinese page searches zh/search/search_index.json")
    assert chinese["config"]["separator"] == english["config"]["separator"]
    return {"config": chinese["config"],
            "docs": english["docs"] + [dict(doc, location=f"{LANG}/{doc['location']}") for doc in chinese["docs"]]}


def test_the_search_index_holds_every_chinese_page_segmented_by_jieba(search_index):
    """The zh pages' entries (in zh/'s index, at zh/… here), their text
    segmented by jieba with U+200B between words, which the index's separator splits on; jieba's user dictionary
    (words/zh/jieba.txt) keeps the glossary's terms whole."""
    separator = re.compile(search_index["config"]["separator"])
    assert separator.split("注意力\u200b权重") == ["注意力", "权重"], (
        f"the search separator splits on U+200B, the space jieba's words are joined with: {separator.pattern}")
    chinese = [doc for doc in search_index["docs"] if doc["location"].startswith(f"{LANG}/")]
    pages = {doc["location"].split("#")[0] for doc in chinese}
    missing = [f"{LANG}/{address}" for address in NAV if f"{LANG}/{address}" not in pages]
    assert not missing, f"every zh nav page is in the search index (location zh/<page>); missing: {missing}"
    tokens = Counter(token for doc in chinese for token in separator.split(doc["title"] + " " + doc["text"]) if token)
    assert all("\u200b" in doc["text"] for doc in chinese if re.search(r"[\u4e00-\u9fff]{2}", doc["text"])), (
        "every zh entry with Chinese text is segmented (U+200B between words)")
    for term in ("注意力", "权重", "查询", "掩码", "词元", "热力图", "注意力权重", "缩放点积注意力"):
        assert tokens[term] > 0, f"jieba segments {term} as a word of its own in the zh entries"
    from tests.test_zh import glossary, han_terms

    text = "\n".join(doc["title"] + " " + doc["text"] for doc in chinese)
    # each term of a glossary cell; a page name with punctuation or a space (查询、键和值) is words the separator splits
    terms = [term for _, chinese, _, _ in glossary() for term in han_terms(chinese)
             if not re.search(r"[\s、，。：；？！（）“”]", term)]
    cut = {term: found.group() for term in terms if len(re.findall(r"[\u4e00-\u9fff]", term)) >= 2
           for found in re.finditer("\u200b?".join(map(re.escape, term)), text) if "\u200b" in found.group()}
    assert not cut, f"no glossary term is cut into words in the search index (words/zh/jieba.txt): {cut}"


def test_the_english_entries_stay_unsegmented(search_index):
    english = [doc for doc in search_index["docs"] if not doc["location"].startswith(f"{LANG}/")]
    assert len(english) > 100 and not [doc["location"] for doc in english if "\u200b" in doc["text"]], (
        "jieba segments only the Chinese entries")
