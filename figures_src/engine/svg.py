"""Turn matplotlib's SVG into a fragment that can sit inline in a page next to other figures.

- no XML prolog, DOCTYPE, comments or <metadata>;
- no <style> element (matplotlib's `*{...}` rule would restyle the whole page): its two declarations
  become presentation attributes on the root <svg>, which only its own children inherit;
- every id prefixed with `<name>-` (and every reference to it), so two figures never collide;
- matplotlib's black (text, axes, ticks) becomes `currentColor`, so the page's colour scheme applies;
- width, height and viewBox kept; a <title> and <desc> added for assistive technology;
- slim, since every element counts in the page's DOM: matplotlib's own ids (`patch_1`, `text_17`) dropped
  unless something refers to them, a group that only wraps one element folded into it (the element takes
  the group's id), groups without attributes unwrapped, and path data on one line, to 2 decimals (a hundredth
  of a point, far below a pixel; matplotlib writes 6); a curve (a path of more than CURVE_POINTS points: a
  line plot, a band) to 1 decimal, a tenth of a point, still under a tenth of a pixel on any screen; the
  places of text, markers and images (x, y, width, height, transform) to 2 decimals too, and a text's turn by
  0 degrees left out.
"""
import re
from html import escape

from .errors import BuildError
from .style import svg_font_family

_ID = re.compile(r'\bid="([^"]+)"')
_BLACK = re.compile(r"#000000\b")


def clean_svg(svg, name, title, description):
    svg = re.sub(r"<\?xml[^>]*\?>\s*", "", svg)
    svg = re.sub(r"<!DOCTYPE[^>]*>\s*", "", svg)
    svg = re.sub(r"<!--.*?-->\s*", "", svg, flags=re.S)
    svg = re.sub(r"\s*<metadata>.*?</metadata>", "", svg, flags=re.S)
    style = re.search(r"\s*<defs>\s*<style[^>]*>(.*?)</style>\s*</defs>", svg, flags=re.S)
    if style is None or style.group(1).strip() != "*{stroke-linejoin: round; stroke-linecap: butt}":
        raise BuildError(f"figure {name}: matplotlib's SVG <style> block changed; update figures_src/engine/svg.py")
    svg = svg[: style.start()] + svg[style.end():]
    if "<style" in svg:
        raise BuildError(f"figure {name}: the SVG still has a <style> element that would leak into the page")

    svg = _prefix_ids(svg, name)
    svg = _slim(svg, name)
    svg = _BLACK.sub("currentColor", svg)
    family = svg_font_family()
    svg = svg.replace(f"; font-family: {family}", "")  # said once, on the root: every text inherits it

    root = re.search(r"<svg\b[^>]*>", svg)
    if root is None:
        raise BuildError(f"figure {name}: matplotlib wrote no <svg> element")
    tag = root.group(0)
    for attribute in ("width", "height", "viewBox"):
        if f' {attribute}="' not in tag:
            raise BuildError(f"figure {name}: the SVG lacks its {attribute} attribute")
    tag = re.sub(r'\s+version="1\.1"', "", tag)
    tag = tag[:-1] + (
        f' id="{name}-svg" class="aih-svg" role="img" aria-labelledby="{name}-title {name}-desc"'
        f' fill="currentColor" font-family="{family}" stroke-linejoin="round" stroke-linecap="butt">'
    )
    accessible = f'<title id="{name}-title">{escape(title)}</title><desc id="{name}-desc">{escape(description)}</desc>'
    svg = svg[: root.start()] + tag + "\n" + accessible + svg[root.end():]
    return svg.strip() + "\n"


def _prefix_ids(svg, name):
    """Prefix each id with `<name>-` unless it already starts so; rewrite `#id` references to match."""
    renamed = {}
    for old in _ID.findall(svg):
        if old in renamed:
            raise BuildError(f"figure {name}: id {old!r} appears twice in the SVG")
        renamed[old] = old if old.startswith(f"{name}-") else f"{name}-{old}"

    def reference(match):
        old = match.group(2)
        if old not in renamed:
            raise BuildError(f"figure {name}: the SVG refers to #{old}, which it does not define")
        return f"{match.group(1)}{renamed[old]}{match.group(3)}"

    svg = _ID.sub(lambda m: f'id="{renamed[m.group(1)]}"', svg)
    svg = re.sub(r"(url\(#)([^)]+)(\))", reference, svg)
    svg = re.sub(r'((?:xlink:)?href="#)([^"]+)(")', reference, svg)
    return svg


_AUTO_ID = r"[A-Za-z][A-Za-z0-9.]*_\d+"  # matplotlib's names for what it draws: patch_1, line2d_3, matplotlib.axis_2
_LEAF = r"<(?:path|use|rect|image|circle|ellipse|line|polyline|polygon)\b(?![^>]*\bid=)[^>]*/>|<text\b(?![^>]*\bid=)[^>]*>[^<]*</text>"


def _slim(svg, name):
    """Fewer elements, same picture: see the module's docstring. The ids a page or test uses (cells, values,
    thumbnails, anything referred to by url(#…) or href) stay."""
    referenced = set(re.findall(r'(?:url\(#|href="#)([^)"]+)', svg))
    auto = re.compile(rf'\s+id="({re.escape(name)}-{_AUTO_ID})"')
    svg = auto.sub(lambda m: m.group(0) if m.group(1) in referenced else "", svg)
    svg = re.sub(r'\bd="([^"]*)"', lambda m: 'd="' + _path_data(m.group(1)) + '"', svg)
    # where text, a marker or an image sits, to 2 decimals as paths; a turn by 0 degrees (a horizontal tick
    # label's) turns nothing
    svg = _PLACE.sub(lambda m: f'{m.group(1)}="{_NUMBER.sub(lambda n: _round(n.group(0)), m.group(2))}"', svg)
    svg = re.sub(r'\s+transform="rotate\(-?0 [^)"]*\)"', "", svg)
    svg = re.sub(r"<g\s*/>", "", svg)
    # a group holding one element, with no attribute but its id: the element carries the id itself
    single = re.compile(rf'<g( id="[^"]+")?>\s*({_LEAF})\s*</g>')
    while True:
        folded = single.sub(lambda m: re.sub(r"^(<[a-z]+)", rf"\1{m.group(1) or ''}", m.group(2)), svg)
        if folded == svg:
            break
        svg = folded
    return _unwrap_plain_groups(svg)


_PLACE = re.compile(r'\b(x|y|width|height|transform)="([^"]*)"')
_NUMBER = re.compile(r"-?\d+\.\d+")
CURVE_POINTS = 20


def _path_data(data):
    words = data.split()
    decimals = 1 if len(words) > 3 * CURVE_POINTS else 2  # a command letter and two coordinates a point
    return " ".join(_round(word, decimals) for word in words)


def _round(word, decimals=2):
    """A path command letter as it is; a coordinate to `decimals` decimals, without trailing zeros or a
    negative zero."""
    try:
        value = float(word)
    except ValueError:
        return word
    text = f"{value:.{decimals}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _unwrap_plain_groups(svg):
    """Drop every <g> with no attributes, with its matching </g>: it changes nothing drawn."""
    out, stack, last = [], [], 0
    for match in re.finditer(r"<g\b[^>]*?(/?)>|</g>", svg):
        tag = match.group(0)
        if tag.startswith("</"):
            plain = stack.pop()
        elif match.group(1):  # <g .../> draws nothing
            plain = True
        else:
            plain = tag == "<g>"
            stack.append(plain)
        out.append(svg[last:match.start()])
        if not plain:
            out.append(tag)
        last = match.end()
    out.append(svg[last:])
    return re.sub(r"\n\s*\n", "\n", "".join(out))
