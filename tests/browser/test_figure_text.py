"""Figure text on a phone: at a 390 px wide viewport every glyph run in every figure's SVG (a <text>, or a
<tspan> of a mathtext label, a subscript included) is drawn at least 11 CSS px tall.

The size is measured as the browser draws it: the element's computed font-size in SVG user units times the
scale of its screen transform (the SVG shrunk to the column, any rotation). Every figure is measured: with
JavaScript off (where the heatmaps stay SVG) and on (where some figures are shown beside the interactive
grids), each content tab opened in turn so that no figure hides behind a closed one. test_every_page.py measures
every page, both ways; here, that the measure is real.
"""
import pytest

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
    """The glyph runs of the figures shown now and behind each content tab (of the tab sets shown: one in a
    collapsed block waits until it is opened)."""
    runs = {tuple(r[:2]) + (round(r[2], 2),) for r in page.evaluate(MEASURE)}
    labels = page.locator(".tabbed-labels > label")
    for k in range(labels.count()):
        if not labels.nth(k).is_visible():
            continue
        labels.nth(k).click()
        runs |= {tuple(r[:2]) + (round(r[2], 2),) for r in page.evaluate(MEASURE)}
    return runs


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
