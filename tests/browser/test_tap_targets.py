"""No two tap targets overlap on a phone, on any page: not as the page loads, with the blocks below the first screen
still skipped by content-visibility (as Lighthouse's phone run measures them: its target-size audit), and not once
every block is laid out.

A skipped block is laid out at its placeholder size (site.css's contain-intrinsic-size), and what the browser
lays out inside it when asked for a box runs past that placeholder onto the blocks after it. A link or summary
in that overrun lands on the next block's: on a phone multi-head's second head's "The numbers as a table" stood on
the summary of the collapsed block after the next heading (Lighthouse's accessibility 96). So site.css skips no
block that holds a tap target, and a figure skips only its graphic, which holds none.
"""
import pytest

from conftest import PAGES, in_edition, new_tab
from test_figure_text import PHONE

READ = [path for path in PAGES if not in_edition(path).startswith("embed/")]  # embeds are read in a frame, not on a phone

# Every tap target a reader sees, with the box of each line it stands on (a link that wraps is one box per line),
# its place on the page, and whether it is still skipped; then every two that overlap by more than half a pixel
# both ways (not one inside the other: a link in a summary). Not what sits off screen (the closed navigation
# drawer) or is hidden (a closed <details>' content, the theme's skip link until it is focused).
OVERLAPPING = """() => {
  const boxes = [];
  for (const target of document.querySelectorAll("a[href], button, summary, label[for], [role=button], [role=tab]")) {
    if (!target.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    for (const line of target.getClientRects()) {
      if (line.width < 1 || line.height < 1 || line.right <= 0 || line.left >= innerWidth) continue;
      boxes.push({ target, left: line.left, top: line.top + scrollY, right: line.right, bottom: line.bottom + scrollY });
    }
  }
  const name = (box) => {
    const words = box.target.textContent.trim().replace(/\\s+/g, " ").slice(0, 48);
    const skipped = box.target.checkVisibility({ contentVisibilityAuto: true }) ? "" : ", skipped";
    return `${box.target.tagName.toLowerCase()} "${words}" (${Math.round(box.left)}, ${Math.round(box.top)}${skipped})`;
  };
  const found = [];
  boxes.forEach((a, i) => boxes.slice(i + 1).forEach((b) => {
    if (a.target.contains(b.target) || b.target.contains(a.target)) return;
    const across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const down = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (across > 0.5 && down > 0.5) found.push(`${name(a)} and ${name(b)}`);
  }));
  return found;
}"""

RULE = ("no two tap targets (links, buttons, summaries, tabs) may overlap on a phone, also while a block below the "
        "first screen is skipped by content-visibility: a skipped block stands at its placeholder size and what it "
        "holds runs past it onto the next block, so site.css must skip no block that holds a tap target")


@pytest.fixture(scope="module")
def phone(browser):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    yield context
    context.close()


@pytest.mark.parametrize("path", READ or [""])
def test_no_two_tap_targets_overlap_on_a_phone(phone, site_url, path):
    page = new_tab(phone, site_url)
    try:
        page.goto(site_url + path, wait_until="networkidle")
        assert not page.evaluate("document.documentElement.classList.contains('aih-landed')"), "read from the top"
        overlapping = page.evaluate(OVERLAPPING)
        assert not overlapping, f"{path or 'home'} as it loads: {RULE}; overlapping: {overlapping[:6]}"
        page.add_style_tag(content=".md-typeset * { content-visibility: visible !important; }")
        overlapping = page.evaluate(OVERLAPPING)
        assert not overlapping, f"{path or 'home'}, every block laid out: {RULE}; overlapping: {overlapping[:6]}"
    finally:
        page.close()
