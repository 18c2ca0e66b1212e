"""The font the Chinese figures are laid out with: Noto Sans SC, from the pinned npm package @fontsource/noto-sans-sc
(package.json; SIL Open Font Licence 1.1), whose simplified-Chinese file covers every Chinese character the words
files use.

The site publishes no font. Inline figures keep their text as text (engine/style.py: `svg.fonttype: none`), which
the reader's browser sets in its own Chinese font; the downloads draw their glyphs as outlines (engine/downloads.py),
so they stay standalone. matplotlib needs the font only to measure and place the text, and to draw the downloads'
outlines: so the whole file is used, and nothing is subset (a subset would serve only a file the site ships).

The package ships WOFF, which matplotlib's FreeType cannot read; fontTools turns it into a TrueType file once, named
by the WOFF's digest, under .cache/fonts/ (git-ignored), with its family named as the package names it ("Noto Sans
SC": the file's own name table says "Noto Sans SC Thin" for every weight) and no new timestamp, so the same
package gives the same file. A figure that reads it records it as an input (engine/inputs.py).
"""
import hashlib
import os
from pathlib import Path

from .errors import BuildError
from .site import LANGUAGE_VARIABLE
from .words import Words

NOTEBOOK_WORDS = Words("words/notebooks.md")  # the notebooks' words: chinese_notebook's note

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "@fontsource/noto-sans-sc"
FILES = ROOT / "node_modules" / PACKAGE / "files"
WEIGHTS = {400: "Regular", 700: "Bold"}  # what the figures draw: text, and a bold title or label
FAMILY = "Noto Sans SC"
CACHE = ROOT / ".cache" / "fonts"


def chinese_font():
    """The TrueType files of FAMILY, regular and bold (made from the package's WOFF the first time), registered
    with matplotlib. -> the regular one's path."""
    from matplotlib import font_manager  # noqa: PLC0415

    registered = {(font.name, font.weight) for font in font_manager.fontManager.ttflist}
    paths = []
    for weight, style in WEIGHTS.items():
        source = FILES / f"noto-sans-sc-chinese-simplified-{weight}-normal.woff"
        try:
            data = source.read_bytes()
        except FileNotFoundError:
            raise BuildError(f"{source.relative_to(ROOT)} is missing: the Chinese figures are laid out in {FAMILY}, "
                             f"from the npm package {PACKAGE}; run `npm ci` (make site does)") from None
        path = CACHE / f"noto-sans-sc-{weight}-{hashlib.sha256(data).hexdigest()[:16]}.ttf"
        if not path.is_file():
            _convert(source, path, style)
        if (FAMILY, weight) not in registered:
            font_manager.fontManager.addfont(str(path))
        paths.append(path)
    return paths[0]


def _convert(source, target, style):
    from fontTools.ttLib import TTFont  # noqa: PLC0415

    font = TTFont(str(source), recalcTimestamp=False)
    font.flavor = None
    names = font["name"]
    for record in list(names.names):
        if record.nameID in (1, 16):
            names.setName(FAMILY, record.nameID, record.platformID, record.platEncID, record.langID)
        elif record.nameID in (2, 17):
            names.setName(style, record.nameID, record.platformID, record.platEncID, record.langID)
        elif record.nameID == 4:
            names.setName(f"{FAMILY} {style}", record.nameID, record.platformID, record.platEncID, record.langID)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.tmp{os.getpid()}")
    try:
        font.save(str(temporary))
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


# Chinese fonts a reader's computer may have, in order: Noto's and Adobe's (Linux), PingFang (macOS), Microsoft
# YaHei and SimHei (Windows), WenQuanYi (older Linux).
SYSTEM_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei",
                   "SimHei", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei")


def chinese_notebook():
    """What a Chinese notebook runs after its imports: the site's words in Chinese for this kernel (the heatmap
    helper's axis words), and matplotlib's font for them, whose family it returns: Noto Sans SC from the
    repository's node_modules where `npm ci` put it (the build's kernel), else the first of SYSTEM_FAMILIES this
    computer has. Without any, the figures' Chinese words would show as boxes: it says so, in Chinese, and how
    to fix it, and returns None."""
    os.environ[LANGUAGE_VARIABLE] = "zh"
    import matplotlib as mpl  # noqa: PLC0415
    from matplotlib import font_manager  # noqa: PLC0415

    try:
        chinese_font()
        family = FAMILY
    except BuildError:
        installed = {font.name for font in font_manager.fontManager.ttflist}
        family = next((name for name in SYSTEM_FAMILIES if name in installed), None)
    if family is None:
        print(NOTEBOOK_WORDS.in_language("zh").line("no-chinese-font", families="、".join(SYSTEM_FAMILIES)))
        return None
    mpl.rcParams["font.family"] = [family, "DejaVu Sans", "sans-serif"]
    return family
