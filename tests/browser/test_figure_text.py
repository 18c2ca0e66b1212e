"""Figure text on a phone: at a 390 px wide viewport every glyph run in every figure's SVG (a <text>, or a
<tspan> of a mathtext label, a subscript included) is drawn at least 11 CSS px tall.

The size is measured as the browser draws it: the element's computed font-size in SVG user units times the
scale of its screen transform (the SVG shrunk to the column, any rotation). Every figure is measured: with
JavaScript off (where the heatmaps stay SVG) and on (where some figures are shown beside the interactive
grids), each content tab opened in turn so that no figure hides behind a closed one.
"""
from pathlib import Path

import pytest

SITE = Path(__file__).resolve().parents[2] / "site"
PAGES = sorted(
    p.parent.relative_to(SITE).as_posix() + "/" if p.parent != SITE else ""
    for p in SITE.rglob("index.html")
    if "assets" not in p.parts and "embed" not in p.parts
) if SITE.is_dir() else []
PHONE = {"width": 390, "height": 844}
SMALLEST = 11  # CSS px

# Every glyph run of every figure SVG laid out on the page: [figure id, text, drawn size in CSS px].
MEASURE = """() => {
  const runs = [];
  for (const svg of document.querySelectorAll("figure svg.aih-svg")) {
    if (!svg.getClientRects().length) continue;  // not laid out: a closed tab, or replaced by its grid
    const figure = svg.closest("figure").id;
    for (const element of svg.querySelectorAll("text, tspan")) {
      const own = [...element.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.data).join("").trim();
      if (!own) continue;
      const m = element.getScreenCTM();
      runs.push([figure, own, parseFloat(getComputedStyle(element).fontSize) * Math.hypot(m.a, m.b)]);
    }
  }
  return runs;
}"""


def measure_every_tab(page):
    """The glyph runs of the figures shown now and behind each content tab."""
    runs = {tuple(r[:2]) + (round(r[2], 2),) for r in page.evaluate(MEASURE)}
    labels = page.locator(".tabbed-labels > label")
    for k in range(labels.count()):
        labels.nth(k).click()
        runs |= {tuple(r[:2]) + (round(r[2], 2),) for r in page.evaluate(MEASURE)}
    return runs


@pytest.mark.parametrize("javascript", [False, True], ids=["static", "interactive"])
@pytest.mark.parametrize("path", PAGES or pytest.fail("site/ is not built: run `make site`", pytrace=False))
def test_at_phone_width_every_figure_letter_is_at_least_11_px(browser, site_url, path, javascript):
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, java_script_enabled=javascript)
    try:
        page = context.new_page()
        page.goto(site_url + path, wait_until="networkidle")
        runs = measure_every_tab(page)
        small = sorted((size, figure, text) for figure, text, size in runs if size < SMALLEST)
        assert not small, f"{path}: {len(small)} glyph runs under {SMALLEST} px, smallest first: {small[:12]}"
    finally:
        context.close()


def test_the_measure_sees_every_figure_and_what_a_phone_shrinks(browser, site_url):
    """The measurement is real: every figure of the Scaling page is measured, and the same SVG drawn at a
    quarter of its width measures a quarter of its size."""
    context = browser.new_context(viewport=PHONE, is_mobile=True)
    try:
        page = context.new_page()
        page.goto(site_url + "scaling/", wait_until="networkidle")
        runs = page.evaluate(MEASURE)
        figures = {r[0] for r in runs}
        assert figures == set(page.eval_on_selector_all("figure svg.aih-svg", "s => s.map(x => x.closest('figure').id)"))
        first = max(r[2] for r in runs if r[0] == "fig-scaling-variance")
        page.eval_on_selector("#fig-scaling-variance svg", "s => { s.style.minWidth = '0'; s.style.width = (s.getBoundingClientRect().width / 4) + 'px'; }")
        shrunk = max(r[2] for r in page.evaluate(MEASURE) if r[0] == "fig-scaling-variance")
        assert shrunk == pytest.approx(first / 4, rel=0.02)
    finally:
        context.close()
