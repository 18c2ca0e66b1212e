"""axe-core in the page, and the heatmap demo's changed states (a hovered cell, a followed row, a mask, 10× scale)
in both schemes, on the English and the Chinese demo. Every page of both editions, as it loads and then in what
changed once every widget is set up, is checked in test_every_page.py.
"""
from pathlib import Path

import pytest
from conftest import scroll_through

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
SCHEMES = ["default", "slate"]


# The rules that read colours. Switching the scheme (data-md-color-scheme) swaps the palette's custom properties and
# nothing else (test_the_schemes_differ_in_colours_alone), so in the second scheme only these can find anything new.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


def axe_violations(page, rules=None, *, changed=False):
    """Run axe-core in the page (evaluated over DevTools, so the page's CSP does not stop it): all rules, or these;
    over the whole page, or (changed=True) over what changed since `watch_changes`: the whole page if <html>,
    <head> or <body> did, and no run at all if nothing did.

    Left out: Material's <nav class="md-code__nav">, which its script adds unlabelled to every code block
    (landmark-unique, a best-practice rule, on pages with two code blocks) and no template can label.
    """
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    only = {"runOnly": {"type": "rule", "values": rules}} if rules else {}
    results = page.evaluate("""([only, changed]) => {
      const include = changed ? window.__aihChanged() : document;
      if (!include.length && include !== document) return {violations: []};  // nothing changed: nothing new to find
      return axe.run({include, exclude: [['.md-code__nav']]}, {resultTypes: ['violations'], ...only});
    }""", [only, changed])
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — " + "; ".join(n["target"][0] if isinstance(n["target"][0], str) else str(n["target"]) for n in v["nodes"][:5])
        for v in results["violations"]
    ]


def without_transitions(page):
    """No colour transitions: axe must see the scheme's final colours, not a blend half way. And every block laid
    out: one that content-visibility skips (site.css) stands at a placeholder height, so a table taller than that
    reads as a scrolled region until it has been on screen once."""
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; animation: none !important;"
                               " content-visibility: visible !important }")


def colours_as_loaded_in_both_schemes(page, moment):
    """axe's colour rules in both schemes over the page as it loaded, read from the top with nothing scrolled, forced
    or laid out on its behalf: as Lighthouse's axe finds it. Colour transitions are turned off, and nothing else:
    blocks below the first screen stay skipped (content-visibility, site.css), at their placeholder sizes.

    Why a pass of its own: `without_transitions` also lays out every skipped block, so the other passes never see
    what a skipped block does to its neighbours. On a phone, Home's list of pages overran its placeholder onto the
    footer, and axe (in Lighthouse) read its last link on the footer's dark background: contrast 2.34."""
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; animation: none !important }")
    for scheme in SCHEMES:
        page.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
        assert axe_violations(page, COLOUR_RULES) == [], f"{moment}, in the {scheme} scheme, blocks below the first screen still skipped"
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'default')")


def axe_in_both_schemes(page, moment, *, changed=False):
    """No violation in the light scheme (every rule), nor in the dark one (the rules that read colours), switched
    on the one page as the reader's toggle switches them; ends in the light scheme. With changed=True, over what
    changed since `watch_changes` (the page as a whole was checked before)."""
    for scheme, rules in (("default", None), ("slate", COLOUR_RULES)):
        page.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
        assert axe_violations(page, rules, changed=changed) == [], f"{moment}, in the {scheme} scheme"
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'default')")


# From now on, every element that changes: its attributes, its children or its text. window.__aihChanged() gives
# the outermost of them still in the page, or the whole document when <html>, <head> or <body> itself changed (a
# class or a style there can reach every element, and a node added to <body> stands outside the landmarks).
# What this misses, and why it does not matter here: a change that is CSS state alone (a :checked, a typed value)
# and no mutation (every class our scripts set is read through a descendant selector, and html.aih-landed counts
# as <html> changing); an unchanged element whose aria-labelledby or label points into a changed one (axe checks
# the reference from the element that holds it: the widgets name their own controls inside their own subtree).
WATCH_CHANGES = """() => {
  const changed = new Set();
  let everything = false;
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.attributeName === "data-md-color-scheme") continue;  // axe_in_both_schemes's own switch
      const element = record.target.nodeType === Node.ELEMENT_NODE ? record.target : record.target.parentElement;
      if (!element) continue;  // a text node already removed: its removal is recorded on its parent
      if (element === document.documentElement || element === document.body || element.closest("head")) {
        everything = true;
      } else {
        changed.add(element);
      }
    }
  }).observe(document.documentElement, {subtree: true, childList: true, attributes: true, characterData: true});
  const outermost = (element) => {
    for (let above = element.parentElement; above; above = above.parentElement) if (changed.has(above)) return false;
    return true;
  };
  window.__aihChanged = () => everything ? document : [...changed].filter((element) => element.isConnected && outermost(element));
}"""


def watch_changes(page):
    """Note every element that changes from now on, for axe_in_both_schemes(…, changed=True)."""
    page.evaluate(WATCH_CHANGES)


def open_in_scheme(page, site_url, path, scheme, *, enhance=True):
    page.goto(site_url + path, wait_until="networkidle")
    without_transitions(page)
    page.evaluate("(s) => document.body.setAttribute('data-md-color-scheme', s)", scheme)
    if enhance:
        scroll_through(page)


def test_axe_core_is_installed():
    assert AXE.exists(), "run `npm ci` (make test does) to install axe-core"


# Every element as the non-colour rules of axe see it: its tag, its ARIA, whether and where it is drawn.
NON_COLOUR = """() => [...document.querySelectorAll("body *")].map((element) => {
  const style = getComputedStyle(element), box = element.getBoundingClientRect();
  const aria = [...element.attributes].filter((a) => a.name === "role" || a.name.startsWith("aria-"))
    .map((a) => a.name + "=" + a.value).join(" ");
  return [element.tagName, aria, style.display, style.visibility, style.fontSize, style.fontWeight,
          ...[box.x, box.y, box.width, box.height].map(Math.round)].join("|");
})"""


# The pages with each kind of widget, in both languages: a Chinese page has other words in the same markup.
WIDGET_PAGES = [prefix + path for prefix in ("", "zh/") for path in ("demo/", "problems/", "real-heads/")]


@pytest.mark.parametrize("path", WIDGET_PAGES)
def test_the_schemes_differ_in_colours_alone(page, site_url, path):
    """Why the dark scheme needs only axe's colour rules: on pages with each kind of widget, set up, switching the
    scheme changes no element's tag, ARIA, display, visibility, font size or weight, place or size."""
    open_in_scheme(page, site_url, path, "default")
    light = None
    for _ in range(20):  # until the scroll back to the top has settled (the theme's header and sidebars follow it)
        light, previous = page.evaluate(NON_COLOUR), light
        if light == previous:
            break
        page.wait_for_timeout(200)
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
    page.wait_for_timeout(100)  # a widget that redraws for the scheme has done so
    dark = page.evaluate(NON_COLOUR)
    assert len(light) > 300 and dark == light, [(a, b) for a, b in zip(light, dark) if a != b][:5]


@pytest.mark.parametrize("prefix", ["", "zh/"])
def test_no_axe_violations_in_the_demos_changed_states(page, site_url, prefix):
    open_in_scheme(page, site_url, prefix + "demo/", "default")
    figure = page.locator("figure.aih-on").first
    figure.locator("[data-slot=mask]").select_option("causal")
    figure.locator("[data-slot=slider]").fill("1")
    figure.locator(".aih-grid [data-i='3'][data-j='1']").click()
    figure.locator(".aih-grid [data-i='1'][data-j='4']").hover()
    axe_in_both_schemes(page, "a mask, a followed row, a hovered cell")
    figure.locator(".aih-modes button[value='weights']").click()
    figure.locator("[data-slot=slider]").fill("-1")
    axe_in_both_schemes(page, "the weights at a tenth of the scale")


def test_the_second_pass_sees_what_changed_and_all_of_the_page_when_body_changed(page, site_url):
    """axe over what changed (test_every_page's pass once the widgets are set up) finds a fault put into a widget
    after the watch began, leaves alone what did not change, and checks the whole page when <body> changed."""
    page.goto(site_url + "embed/ex-scores/", wait_until="networkidle")
    page.locator("figure.aih-on").wait_for()  # the heatmap drawn: nothing changes on its own after this
    without_transitions(page)
    page.evaluate("document.querySelector('.aih-embed-credit').append(document.createElement('button'))")  # no name
    watch_changes(page)
    assert axe_violations(page, changed=True) == []  # the nameless button is older than the watch
    page.evaluate("document.querySelector('figure').append(document.createElement('img'))")
    assert [v.split(" ")[0] for v in axe_violations(page, changed=True)] == ["image-alt"]
    page.evaluate("document.querySelector('figure img').remove(); document.body.dataset.changed = ''")
    assert [v.split(" ")[0] for v in axe_violations(page, changed=True)] == ["button-name"]
