"""The Chinese edition's sources, checked without a build (issue 60): every page and words section has its Chinese
twin, with the English one's title, heading ids and math; the glossary's terms are the only renderings used, and
jieba's user dictionary knows them all.

The built edition (site/zh/) is tests/test_zh_site.py's; the browser's, tests/browser/test_zh_browser.py's.
"""
import re
from collections import Counter
from pathlib import Path

import markdown
import pytest

from figures_src import registry
from figures_src.engine.site import language_config, mkdocs_config, nav_entries, nav_title
from figures_src.engine.words import english_words_files, parse, translated_path, translation_gaps

ROOT = Path(__file__).resolve().parents[1]
LANG = "zh"
DOCS, ZH_DOCS, ZH_WORDS = ROOT / "docs", ROOT / "docs" / LANG, ROOT / "words" / LANG
GLOSSARY = ZH_DOCS / "glossary.md"
JIEBA = ZH_WORDS / "jieba.txt"
# The nav's pages and the print edition (not in the nav: finish/edition.py fills it), as Markdown under docs/.
PAGES = [markdown_file for _, markdown_file in nav_entries()] + ["print.md"]
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.S)


def page_text(path):
    return FRONT_MATTER.sub("", path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- every page and section has its twin


def test_every_nav_page_and_the_print_edition_have_a_chinese_page():
    missing = [page for page in PAGES if not (ZH_DOCS / page).is_file()]
    assert not missing, f"every nav page (and print.md) has its Chinese twin docs/zh/<page>; missing: {missing}"
    assert registry.untranslated_pages(LANG) == [], "the figure build's own list of untranslated pages is empty"


def test_every_english_words_section_has_a_chinese_twin_with_the_same_holes():
    gaps = translation_gaps(LANG)
    assert not gaps, ("every words section has a Chinese twin with the same holes (the zh figure build refuses to "
                      f"start otherwise); {len(gaps)} gap(s): {gaps[:10]}")


def title(path):
    """A page's `# title`, without its attribute list ({ #id })."""
    found = re.search(r"^# (.+?)\s*(?:\{[^}]*\})?\s*$", page_text(path), re.M)
    return found and found.group(1).strip()


@pytest.mark.parametrize("nav_title_en, page", nav_entries())
def test_a_chinese_pages_title_is_the_navs_translation_of_its_title(nav_title_en, page):
    translated = nav_title(nav_title_en, LANG)
    assert title(ZH_DOCS / page) == translated, (
        f"docs/zh/{page}'s `# title` is mkdocs.yml's nav_translations of {nav_title_en!r}, {translated!r}: the page, "
        "the nav and the switcher name it alike")


def markdown_converter():
    """Python-Markdown with mkdocs.yml's extensions as configured, but snippets (which would read generated/)."""
    names, configs = [], {}
    for entry in mkdocs_config()["markdown_extensions"]:
        name, config = next(iter(entry.items())) if isinstance(entry, dict) else (entry, {})
        if name != "pymdownx.snippets":
            names.append(name)
            configs[name] = config or {}
    return markdown.Markdown(extensions=names, extension_configs=configs)


def heading_ids(path):
    """[(level, id), …] of a page's headings, as its Markdown renders them (written { #id } or made from the text)."""
    return re.findall(r'<h([1-6])[^>]*\bid="([^"]+)"', markdown_converter().convert(page_text(path)))


@pytest.mark.parametrize("page", PAGES)
def test_a_chinese_pages_headings_have_the_english_pages_ids(page):
    english, chinese = heading_ids(DOCS / page), heading_ids(ZH_DOCS / page)
    assert english, f"docs/{page} has headings"
    assert chinese == english, (
        f"docs/zh/{page}'s headings have the English page's levels and ids, in order (a link to #section works in "
        f"both languages, and the switcher keeps the reader's place): English {english}, Chinese {chinese}")


# ---------------------------------------------------------------- the same math

MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.S)
CODE = re.compile(r"^(```|~~~).*?^\1|`[^`\n]+`", re.S | re.M)


def formulas(text):
    """The multiset of a Markdown text's formulas ($…$ and $$…$$), white space taken out; code is not math, and
    the words of a \\text{…} are words, which a translation translates (\\underbrace{…}_{\\text{权重}})."""
    return Counter(re.sub(r"\\text\{[^{}]*\}", r"\\text{}", re.sub(r"\s+", "", inline or display))
                   for display, inline in MATH.findall(CODE.sub("", text)))


def test_every_chinese_words_section_keeps_the_english_sections_formulas():
    """The build checks that a section's holes are the same names; its math is the same formulas, each as often:
    a translation rewords the sentence around $QK^\\mathsf{T}$, never the formula."""
    differ = []
    for path in english_words_files():
        english, chinese = parse(ROOT / path, path), parse(ROOT / translated_path(path, LANG), path)
        for name, text in english.items():
            ours, theirs = formulas(text), formulas(chinese.get(name, ""))
            if ours != theirs:
                differ.append(f"{path} {name}: only English {sorted((ours - theirs).elements())}, "
                              f"only Chinese {sorted((theirs - ours).elements())}")
    assert not differ, f"a Chinese words section has the English section's formulas: {differ[:10]}"


@pytest.mark.parametrize("page", PAGES)
def test_every_chinese_page_keeps_the_english_pages_formulas(page):
    ours, theirs = formulas(page_text(DOCS / page)), formulas(page_text(ZH_DOCS / page))
    assert ours == theirs, (f"docs/zh/{page} has docs/{page}'s formulas, each as often: only English "
                            f"{sorted((ours - theirs).elements())}, only Chinese {sorted((theirs - ours).elements())}")


# ---------------------------------------------------------------- the glossary


def glossary():
    """[(英文, 中文, [不用, …], 说明), …]: the rows of docs/zh/glossary.md's table."""
    rows = []
    for line in GLOSSARY.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 4 and cells[0] != "英文" and not set(cells[0]) <= set("-: "):
            english, chinese, avoided, note = cells
            rows.append((english, chinese, [word.strip() for word in avoided.split("、") if word.strip()], note))
    return rows


def chinese_sources():
    """{name: text} of everything the Chinese edition says: its pages and words files (the glossary itself, which
    names the renderings not to use, aside), and mkdocs.yml's zh settings (nav titles, description, chrome)."""
    files = [path for path in sorted(ZH_DOCS.rglob("*.md")) if path != GLOSSARY] + sorted(ZH_WORDS.rglob("*.md"))
    sources = {path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8") for path in files}
    sources["mkdocs.yml (zh)"] = repr(language_config(LANG))
    return sources


# Where a word the glossary avoids is meant in another sense than the term it translates, each with the reason:
# (file, avoided word) -> why.
OTHER_SENSES = {}  # (file, word): why a word the glossary avoids means something else there


def avoided_uses(text, avoided, terms):
    """The places where `avoided` stands as a word of its own: not inside a longer glossary term that contains it
    (the glossary's rows decide: 键值 inside 键值头 would be that term), nor inside a longer Latin word."""
    covered = set()
    for term in terms:
        if avoided in term and term != avoided:
            for found in re.finditer(re.escape(term), text):
                covered.update(range(found.start(), found.end()))
    latin = r"(?<![A-Za-z])" if avoided[0].isascii() else ""
    latin_end = r"(?![A-Za-z])" if avoided[-1].isascii() else ""
    return [found.start() for found in re.finditer(latin + re.escape(avoided) + latin_end, text)
            if found.start() not in covered]


def test_no_chinese_page_uses_a_rendering_the_glossary_avoids():
    rows = glossary()
    assert len(rows) > 40, "docs/zh/glossary.md's table is read (英文 | 中文 | 不用 | 说明)"
    terms = [chinese for _, chinese, _, _ in rows]
    found = []
    for name, text in chinese_sources().items():
        for english, chinese, avoided, _ in rows:
            for word in avoided:
                if (name, word) in OTHER_SENSES:
                    continue
                for start in avoided_uses(text, word, terms):
                    found.append(f"{name}: {word!r} for {english!r} (the glossary's {chinese!r}): "
                                 f"…{text[max(0, start - 12):start + len(word) + 12]}…")
    assert not found, f"a term is rendered as docs/zh/glossary.md says, never as its 不用 column: {found[:10]}"


def test_the_avoided_words_that_are_excepted_are_still_there():
    """An exception for a word in another sense goes once the word does."""
    sources = chinese_sources()
    stale = [key for key in OTHER_SENSES if key[1] not in sources.get(key[0], "")]
    assert not stale, f"OTHER_SENSES excepts a word its file no longer has: {stale}"


def test_a_word_inside_a_longer_glossary_term_is_that_term():
    assert avoided_uses("键值头和键值", "键值", ["键值头"]) == [4], "键值 inside 键值头 is the term 键值头"
    assert avoided_uses("KV 缓存与 KVs 缓存", "KV 缓存", []) == [0]
    assert avoided_uses("AKV 缓存", "KV 缓存", []) == [], "a Latin word is matched whole"


def han_part(term):
    """A glossary term without its parenthesised aside and its markup: 旋转位置编码（RoPE） -> 旋转位置编码,
    **为什么重要：** -> 为什么重要."""
    return re.sub(r"[（(].*?[）)]|\*\*|[：:]$", "", term).strip().rstrip("：:")


def han_terms(chinese):
    """The terms of a glossary cell: 有缩放 / 无缩放 -> 有缩放, 无缩放."""
    return [han_part(term) for term in re.split(r"\s*/\s*", chinese) if han_part(term)]


def test_jiebas_user_dictionary_holds_every_glossary_term():
    """Material's search segments Chinese with jieba and words/zh/jieba.txt (mkdocs.yml): every glossary term of
    two or more Chinese characters is one word there, so searching 注意力权重 finds it as a whole. (A single
    character is a word in jieba's own dictionary; a Latin term, softmax, is kept whole by jieba anyway.)"""
    words = {line.split()[0] for line in JIEBA.read_text(encoding="utf-8").splitlines() if line.strip()}
    terms = [term for _, chinese, _, _ in glossary() for term in han_terms(chinese)]
    # (a jieba word holds no space: a page name with a formula, 为什么要除以 √dₖ, is words jieba segments itself)
    wanted = [term for term in terms if len(re.findall(r"[\u4e00-\u9fff]", term)) >= 2 and " " not in term]
    assert len(wanted) > 30
    missing = [term for term in wanted if term not in words]
    assert not missing, f"words/zh/jieba.txt holds every glossary term of two or more characters; missing: {missing}"
