"""The site's pages in Chromium, as a reader moves through them: the colour scheme's toggle and what it
remembers, arriving at a section, Back and reload keeping the reader's place, reading from the top while the
page loads what comes near. What holds on every page (everything it references loads, it fits a phone) is in
test_every_page.py.
"""
import re

import pytest
from conftest import PAGES, WATCH_SHIFTS, in_edition, wait_for_the_page


def _theme_metas(page):
    """The color-scheme and theme-color meta tags, and the header's background as #rrggbb."""
    header = page.evaluate("getComputedStyle(document.querySelector('.md-header')).backgroundColor")
    rgb = "#" + "".join(f"{int(part):02x}" for part in header[header.index("(") + 1:-1].split(",")[:3])
    metas = page.evaluate("""() => Object.fromEntries(["color-scheme", "theme-color"].map((name) =>
        [name, [...document.querySelectorAll(`meta[name=${name}]`)].map((meta) => meta.content)]))""")
    return metas, rgb


def test_the_scheme_toggle_switches_and_is_remembered(page, site_url):
    """Our toggle (overrides/partials/javascripts/palette.html), in place of the theme's: a click switches the
    scheme, the browser's colour scheme and theme colour follow, the toggle offers the way back, the next page
    opens in the scheme chosen, and the keyboard switches it too (Enter, as under the theme)."""
    from playwright.sync_api import expect

    page.emulate_media(color_scheme="light")
    page.goto(site_url, wait_until="networkidle")
    assert page.evaluate("document.body.dataset.mdColorScheme") == "default"
    metas, header = _theme_metas(page)
    assert metas == {"color-scheme": ["light"], "theme-color": [header]}

    page.locator('label[title="Switch to the dark scheme"]').click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "slate")
    expect(page.locator('label[title="Switch to the light scheme"]')).to_be_visible()
    expect(page.locator('label[title="Switch to the dark scheme"]')).to_be_hidden()
    expect(page.locator("body")).not_to_have_attribute("data-md-color-switching", "")
    metas, header = _theme_metas(page)
    assert metas == {"color-scheme": ["dark"], "theme-color": [header]}

    page.goto(site_url + "scores/", wait_until="networkidle")
    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    expect(page.locator('label[title="Switch to the light scheme"]')).to_be_visible()

    page.locator("input[name=__palette]:checked").focus()
    page.keyboard.press("Enter")
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")
    expect(page.locator('label[title="Switch to the dark scheme"]')).to_be_visible()
    assert page.evaluate("document.activeElement.id") == "__palette_0"
    page.goto(site_url + "softmax/", wait_until="networkidle")
    assert page.evaluate("document.body.dataset.mdColorScheme") == "default"


def test_a_dark_system_gets_the_dark_scheme_before_the_themes_script_runs(page, site_url):
    """With nothing stored, the scheme follows the system's from the first paint: the inline script picks it
    while the page is parsed (the theme's toggle did it from its bundle, after a first paint in light). With no
    script file run, the page is dark, its one color-scheme meta tag says so, and the changes
    overrides/main.html makes early (the classes js and js-focus-visible) are made."""
    from playwright.sync_api import expect

    page.emulate_media(color_scheme="dark")
    # Every script file (the theme's bundle and ours) arrives empty: only the inline scripts run.
    page.route("**/*.js", lambda route: route.fulfill(body="", content_type="text/javascript"))
    page.goto(site_url + "masks/", wait_until="load")
    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    expect(page.locator('label[title="Switch to the light scheme"]')).to_be_visible()
    metas, header = _theme_metas(page)
    assert metas == {"color-scheme": ["dark"], "theme-color": [header]}
    assert page.evaluate("document.documentElement.className") == "js js-focus-visible"


# How the figures' graphics and the paragraphs without a link after the second section heading are skipped off
# screen (site.css: a block holding a tap target is not).
SKIPPING = """[...new Set([...document.querySelectorAll(
  ".md-typeset .aih-figure__graphic, .md-typeset > h2 ~ h2 ~ p:not(:has(a[href], button))")]
  .map((block) => getComputedStyle(block).contentVisibility))]"""


@pytest.mark.parametrize("path", ["softmax/#recap", "masks/#recap", "scores/#recap", "problems/#multi-head",
                                  "cite/#print-it"])
def test_a_reader_who_arrives_at_a_section_is_not_moved_from_it(browser, site_url, path):
    """An address that ends in #a-section, on a phone: the page does not move under the reader once the browser
    has scrolled there. Off-screen blocks skipped at a placeholder size would take their own after that scroll
    and move the page by up to 0.4 of the screen (layout shift); for this reader nothing is skipped."""
    context = browser.new_context(viewport={"width": 412, "height": 823})
    try:
        page = context.new_page()
        page.add_init_script(WATCH_SHIFTS)
        page.goto(site_url + path, wait_until="networkidle")
        target = page.locator("#" + path.split("#")[1])
        at_load = target.bounding_box()["y"]
        page.wait_for_timeout(1000)
        assert page.evaluate("document.documentElement.classList.contains('aih-landed')")
        assert page.evaluate(SKIPPING) == ["visible"]
        shifts = page.evaluate("window.__aihShifts")
        assert sum(value for value, _ in shifts) < 0.05, shifts
        assert abs(target.bounding_box()["y"] - at_load) < 2 and 0 <= at_load < 823
    finally:
        context.close()


@pytest.mark.parametrize("width", [412, 1350])
def test_a_link_to_a_section_of_another_page_lands_on_it(browser, site_url, width):
    """From the scaling page to a figure of the softmax page by its link: the figure is where a load of that
    address puts it, and nothing off screen is skipped (html.aih-landed). Then on to the top of the next page,
    where blocks are skipped again; then Back to the figure, where they are not."""
    landed = "document.documentElement.classList.contains('aih-landed')"
    context = browser.new_context(viewport={"width": width, "height": 823})
    try:
        page = context.new_page()
        page.goto(site_url + "softmax/#fig-softmax-entropy", wait_until="networkidle")
        page.wait_for_timeout(1500)
        full_load = page.locator("#fig-softmax-entropy").bounding_box()["y"]

        page.goto(site_url + "scaling/", wait_until="networkidle")
        assert not page.evaluate(landed)
        page.locator('article a[href$="softmax/#fig-softmax-entropy"] >> visible=true').first.click()
        wait_for_the_page(page, "softmax/")
        page.wait_for_timeout(1500)
        assert page.evaluate(landed) and page.evaluate(SKIPPING) == ["visible"]
        assert abs(page.locator("#fig-softmax-entropy").bounding_box()["y"] - full_load) < 2, full_load

        page.locator(".md-footer__link--next").click()
        wait_for_the_page(page, "demo/")
        assert not page.evaluate(landed) and page.evaluate(SKIPPING) == ["auto"]
        page.go_back()
        wait_for_the_page(page, "softmax/")
        assert page.evaluate(landed)
    finally:
        context.close()


# The first block of the article below the header, as [its index, its top]: where the reader is reading.
READING = """() => [...document.querySelectorAll("article.md-content__inner > *")]
  .map((block, index) => [index, Math.round(block.getBoundingClientRect().top)]).find(([, top]) => top > 60)"""
TOP_OF_BLOCK = """(index) => Math.round(document.querySelectorAll("article.md-content__inner > *")[index].getBoundingClientRect().top)"""
# A link to another page, fixed where the reader is: clicking it scrolls nothing.
LINK_HERE = """() => {
  const link = Object.assign(document.createElement("a"), { href: new URL("../qkv/", location.href).href, textContent: "On" });
  link.style.cssText = "position: fixed; top: 300px; left: 20px; z-index: 9";
  document.body.append(link);
}"""


def read_down_to(page, depth):
    """Read the page from the top, a turn of the mouse wheel at a time, to `depth` of its height (the heatmaps on
    the way become interactive, and taller); then where the reader is reading (READING)."""
    while page.evaluate(f"scrollY < document.documentElement.scrollHeight * {depth}"):
        page.mouse.wheel(0, 400)
        page.wait_for_timeout(100)
    page.wait_for_timeout(1500)
    return page.evaluate(READING)


def drag_down_to(page, depth):
    """Jump to `depth` of the page's height in one go, as a reader dragging the scrollbar does (the blocks on the
    way are never laid out); then where the reader is reading (READING)."""
    page.evaluate(f"scrollTo(0, document.documentElement.scrollHeight * {depth})")
    page.wait_for_timeout(1500)
    return page.evaluate(READING)


def leave_by_a_link_here(page):
    """To qkv/ through LINK_HERE."""
    page.evaluate(LINK_HERE)
    page.get_by_role("link", name="On", exact=True).click()
    wait_for_the_page(page, "qkv/")


def assert_back_to(page, reading):
    """The block the reader was reading is where it was (within a readout's change of height)."""
    block, top = reading
    assert abs(page.evaluate(TOP_OF_BLOCK, block) - top) <= 30, (reading, page.evaluate(READING))


# An init script: the browser refuses this site any storage, as it does when the reader blocks site data (reading
# window.localStorage or window.sessionStorage throws).
BLOCK_STORAGE = """
for (const name of ["localStorage", "sessionStorage"]) {
  Object.defineProperty(window, name, { get() {
    throw new DOMException(`Failed to read the '${name}' property from 'Window': Access is denied for this document.`, "SecurityError");
  } });
}
"""


def _toggle_works(page):
    """The page follows a dark preference, offers the way back to light, and a click switches it."""
    from playwright.sync_api import expect

    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    expect(page.locator('label[title="Switch to the light scheme"]')).to_be_visible()
    page.locator('label[title="Switch to the light scheme"]').click()
    expect(page.locator("body")).to_have_attribute("data-md-color-scheme", "default")
    expect(page.locator('label[title="Switch to the dark scheme"]')).to_be_visible()
    expect(page.locator("body")).not_to_have_attribute("data-md-color-switching", "")


def test_with_storage_blocked_the_scheme_follows_the_system_and_the_toggle_works(browser, site_url):
    """With site data blocked, reading localStorage throws: the toggle's script stopped there, the page stayed
    light under a dark system, and both toggle labels were hidden."""
    context = browser.new_context(color_scheme="dark")
    context.add_init_script(BLOCK_STORAGE)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(site_url + "softmax/", wait_until="networkidle")
        assert page.evaluate("() => { try { localStorage; return 'readable' } catch { return 'blocked' } }") == "blocked"
        _toggle_works(page)
        assert [error for error in errors if "localStorage" in error or "sessionStorage" in error] == []
    finally:
        context.close()


MALFORMED_SCHEMES = ["}{", "5", "[]", '{"index":"x"}', '{"index":7}', '{"index":-1}', '{"index":"1"}', "null"]


def test_a_malformed_stored_scheme_is_no_choice(browser, site_url):
    """A stored __palette the toggle's script cannot use (not JSON, not an object, no valid index) made it throw,
    on every page until the storage was cleared. It counts as no choice: the page follows the system, and a click
    stores a good one. Each malformed value in turn, on one page (a load costs Chromium about a CPU second)."""
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(site_url + "softmax/", wait_until="networkidle")
        for stored in MALFORMED_SCHEMES:
            page.evaluate("(value) => localStorage.setItem(__md_scope.pathname + '.__palette', value)", stored)
            page.reload(wait_until="networkidle")
            _toggle_works(page)
            assert errors == [], stored
            page.reload(wait_until="networkidle")
            assert page.evaluate("document.body.dataset.mdColorScheme") == "default", stored  # the click's choice, stored
    finally:
        context.close()


@pytest.mark.parametrize("width", [412, 1350])
@pytest.mark.parametrize("path, how, depth", [("learning/", "read", 0.45), ("real-heads/", "read", 0.75),
                                              ("learning/", "drag", 0.6), ("masks/", "drag", 0.6),
                                              ("cost/", "drag", 0.6), ("problems/", "drag", 0.6)])
def test_back_and_reload_bring_the_reader_back_to_where_they_were(browser, site_url, path, how, depth, width):
    """Part way down a page, a link to another page, Back, then a reload each show the reader the same block at
    the same place.
    - read from the top: the heatmaps on the way became interactive, and taller. Back scrolled to the offset
      saved, on a copy of the page whose heatmaps are static again: on a phone that put the reader
      3,400 px (learning) and 4,100 px (real heads) further down. A reload put them up to 3,700 px off on real
      heads, where the static page is too short to reach the offset. place.js holds each heatmap at the height
      it was drawn at until it is drawn again; a readout may change height with the pair shown, hence a little
      slack.
    - the scrollbar dragged: the blocks jumped past were never laid out and kept their placeholder height
      (site.css); after Back or a reload they come back at their own (html.aih-landed), and the saved offset
      missed the reader's place (masks: 450 px off). place.js keeps the block at the top of the screen and its
      place, and goes by it, on every page: it was in heatmap.js, and on pages without a heatmap the reader came
      back 380-700 px off (cost, problems)."""
    context = browser.new_context(viewport={"width": width, "height": 823})
    try:
        page = context.new_page()
        page.goto(site_url + path, wait_until="networkidle")
        if how == "read":
            reading = read_down_to(page, depth)
            assert page.locator("figure.aih-on").count() >= 1
        else:
            reading = drag_down_to(page, depth)

        leave_by_a_link_here(page)
        page.go_back()
        wait_for_the_page(page, path)
        page.wait_for_timeout(1500)
        assert_back_to(page, reading)

        page.reload(wait_until="networkidle")
        page.wait_for_timeout(1500)
        assert_back_to(page, reading)
    finally:
        context.close()


# Scroll by 200 px, and resolve once the page has been told (its scroll listeners have run).
SCROLL_ON = """() => new Promise((done) => {
  addEventListener("scroll", () => setTimeout(done), { once: true });
  scrollBy(0, 200);
})"""


@pytest.mark.parametrize("how, depth", [("read", 0.45), ("drag", 0.6)])
@pytest.mark.parametrize("leave", ["link", "reload"])
def test_leaving_straight_after_a_scroll_still_brings_the_reader_back(browser, site_url, how, depth, leave):
    """place.js saves the reader's place 150 ms after the last scroll; a link followed, or a reload, sooner than
    that saves it at once (a click, pagehide), so Back or the reload finds the place the reader left, not the
    one before their last scroll."""
    context = browser.new_context(viewport={"width": 1350, "height": 823})
    try:
        page = context.new_page()
        page.goto(site_url + "learning/", wait_until="networkidle")
        (read_down_to if how == "read" else drag_down_to)(page, depth)
        page.evaluate(SCROLL_ON)
        reading = page.evaluate(READING)
        if leave == "link":
            leave_by_a_link_here(page)
            page.go_back()
            wait_for_the_page(page, "learning/")
        else:
            page.reload(wait_until="networkidle")
        page.wait_for_timeout(1500)
        assert page.evaluate("document.documentElement.classList.contains('aih-landed')")
        assert_back_to(page, reading)
    finally:
        context.close()


def test_back_to_a_heatmap_draws_its_readout_as_tall_as_the_reader_left_it(browser, site_url):
    """The readout keeps the tallest height it has had while the pointer moves (see test_heatmap.py). On a phone,
    a last row's readout is a line taller than that of pair 1,1, the pair a heatmap is drawn again with after
    Back. The heatmap is held at the height it was left at, readout included, until it is drawn again; drawn
    with its first pair's readout, it came out a line shorter, and what followed it moved up (here 23 px)."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(site_url + "masks/", wait_until="networkidle")
        causal = "#fig-mask-causal-scores"
        following = f"() => Math.round(document.querySelector('{causal}').getBoundingClientRect().bottom)"  # what follows
        page.locator(causal).scroll_into_view_if_needed()
        page.wait_for_selector(f"{causal}.aih-on")
        page.mouse.wheel(0, 200)  # the figure's top under the header, the text after it on screen
        page.wait_for_timeout(500)
        first_pair = page.evaluate(following)
        last = page.locator(f"{causal} .aih-grid [data-i]").last.get_attribute("data-i")
        page.locator(f"{causal} .aih-grid [data-i='{last}'][data-j='{last}']").hover()
        left_at = page.evaluate(following)
        assert left_at > first_pair, f"the last row's readout should be taller here: {first_pair} -> {left_at}"
        page.wait_for_timeout(500)

        leave_by_a_link_here(page)
        page.go_back()
        wait_for_the_page(page, "masks/")
        page.wait_for_selector(f"{causal}.aih-on")
        page.wait_for_timeout(1000)
        assert page.evaluate(following) == left_at
    finally:
        context.close()


# Keep `value` as this page's place at this width, as place.js keeps it (savePlace).
KEEP_PLACE = "(value) => sessionStorage.setItem(`aih-place ${location.pathname} ${innerWidth}`, value)"


MALFORMED_PLACES = ["[]", "[1e308,null,99,1]", "{}", "5", '"text"', "[null,[],0,0]",
                    '[0,[null,[1,2],["x",5,"y"],[1e9,1,2,3]],"top",{}]', '[0,{"length":3},-5,"x"]']


def test_a_malformed_kept_place_breaks_nothing(page, site_url):
    """Only place.js's JSON.parse was guarded: a kept place of [] or [1e308,null,99,1] threw an uncaught
    TypeError on a reload (the `page` fixture fails the test on one; here each value is checked as it goes).
    Anything that is not a place is ignored, entry by entry."""
    page.goto(site_url + "softmax/", wait_until="networkidle")
    for kept in MALFORMED_PLACES:
        page.evaluate(KEEP_PLACE, kept)
        page.reload(wait_until="networkidle")
        page.wait_for_timeout(500)
        assert not page.problems.page_errors, (kept, page.problems.page_errors)
        assert page.evaluate("document.documentElement.scrollHeight") < 100_000, kept


def test_a_kept_height_is_clamped_to_the_page(page, site_url):
    """A kept height of 1e9 (for a heatmap, and for its readout) held the page at Chromium's largest height,
    33,554,432 px, and the readout kept the page that tall once the heatmap was drawn again."""
    from playwright.sync_api import expect

    page.goto(site_url + "softmax/", wait_until="networkidle")
    normal = page.evaluate("document.documentElement.scrollHeight")
    figure_id = page.evaluate("""() => {
      const figure = document.querySelector("figure.aih-heatmap[id][data-example]");
      const shown = `${figure.dataset.example} ${figure.dataset.head ?? ""}`;
      const top = figure.getBoundingClientRect().top + scrollY;
      sessionStorage.setItem(`aih-place ${location.pathname} ${innerWidth}`, JSON.stringify([top, [[figure.id, 1e9, shown, 1e9]], -1, null]));
      history.scrollRestoration = "manual"; // as place.js sets it when it saves a place
      return figure.id;
    }""")
    page.reload(wait_until="networkidle")
    expect(page.locator(f"#{figure_id}")).to_have_class(re.compile(r"\baih-on\b"))
    page.wait_for_timeout(500)
    assert page.evaluate("document.documentElement.scrollHeight") < 2 * normal
    readout = page.locator(f"#{figure_id} .aih-readout").evaluate("(readout) => readout.getBoundingClientRect().height")
    assert readout <= page.evaluate("innerHeight")


def test_back_to_a_page_without_heatmaps_holds_nothing(page, site_url):
    """place.js listens on every page, but it remembers and holds heatmaps only: the problems' blocks (also marked
    .aih-on when their script has set them up) keep their own height after Back."""
    page.goto(site_url + "softmax/", wait_until="networkidle")
    page.evaluate(LINK_HERE.replace("../qkv/", "../problems/"))
    page.get_by_role("link", name="On", exact=True).click()
    wait_for_the_page(page, "problems/")
    page.wait_for_function("() => document.querySelectorAll('.aih-problem.aih-on').length > 1")  # problems.js is there
    page.mouse.wheel(0, 2400)
    page.wait_for_timeout(1000)
    assert page.evaluate("scrollY") > 2000
    page.evaluate(LINK_HERE)
    page.locator("a", has_text="On").last.click()
    wait_for_the_page(page, "qkv/")
    page.go_back()
    wait_for_the_page(page, "problems/")
    page.wait_for_timeout(1000)
    page.wait_for_function("() => document.querySelectorAll('.aih-problem.aih-on').length > 1")
    assert page.evaluate("[...document.querySelectorAll('.aih-held, article [style*=height]')].map((e) => e.id)") == []


# The article pages a reader reads from the top, in both languages: not the embeds, nor the print edition (every
# page at once, for a printer).
READ_FROM_THE_TOP = [path for path in PAGES if not in_edition(path).startswith(("embed/", "print/"))]


@pytest.mark.parametrize("viewport", [{"width": 412, "height": 823}, {"width": 1350, "height": 940}],
                         ids=["phone", "desktop"])
def test_read_from_the_top_no_page_moves_as_it_loads(browser, site_url, viewport):
    """A block site.css skips that is in fact in view is painted at its placeholder size, then at its own, and
    what follows it moves: skipping every block after the first section heading moved cite's first screen by
    0.13. The rules stay below the first screen wherever it costs; a figure already in view moves a page by at
    most 0.008 on these two screens."""
    assert len(READ_FROM_THE_TOP) > 10, READ_FROM_THE_TOP
    moved = {}
    context = browser.new_context(viewport=viewport)
    try:
        page = context.new_page()
        page.add_init_script(WATCH_SHIFTS)
        for path in READ_FROM_THE_TOP:
            page.goto(site_url + path, wait_until="networkidle")
            page.wait_for_timeout(300)
            shifts = page.evaluate("window.__aihShifts")
            if sum(value for value, _ in shifts) >= 0.05:
                moved[path] = shifts
    finally:
        context.close()
    assert not moved, moved


def test_read_from_the_top_softmaxs_worked_tables_wait_until_they_come_near(browser, site_url):
    """Softmax's first section ends with a figure and two worked tables (176 elements with their math). After
    a figure the first screen has ended, so on a phone they are skipped at load, as everything after the second
    section heading is (Chromium lays out what is within 1.5 screens of the viewport: on a desktop they are
    that close); then laid out at their own size as the reader nears them."""
    skipped = """() => [...document.querySelectorAll(".md-typeset > .aih-matrix table")]
      .map((table) => !table.checkVisibility({ contentVisibilityAuto: true }))"""  # inside a skipped block
    context = browser.new_context(viewport={"width": 412, "height": 823})
    try:
        page = context.new_page()
        page.goto(site_url + "softmax/", wait_until="networkidle")
        assert page.evaluate(skipped) == [True, True]
        tables = page.locator(".md-typeset > .aih-matrix")
        tables.first.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        assert page.evaluate(skipped) == [False, False]  # the second is within 1.5 screens of the first
        assert tables.first.bounding_box()["height"] > 200  # its rows, not the 12rem placeholder (192 px)
    finally:
        context.close()


def test_read_from_the_top_the_table_under_masks_two_heatmaps_waits_until_it_comes_near(browser, site_url):
    """Masks' first section sets two heatmaps side by side (a .grid of figures), then a worked table of 97
    elements with its math, three screens down a phone. Two figures count as one for site.css: the table is
    skipped at load, and laid out at its own size as the reader nears it."""
    table = ".md-typeset > h2 ~ .grid:has(> .aih-figure) ~ .aih-matrix"
    skipped = f"() => !document.querySelector('{table} table').checkVisibility({{contentVisibilityAuto: true}})"
    context = browser.new_context(viewport={"width": 412, "height": 823})
    try:
        page = context.new_page()
        page.goto(site_url + "masks/", wait_until="networkidle")
        assert page.evaluate(skipped)
        page.locator(table).first.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        assert not page.evaluate(skipped)
        assert page.locator(table).first.bounding_box()["height"] > 250  # its rows, not the 12rem placeholder
    finally:
        context.close()


def test_the_themes_script_takes_no_table_out_of_the_page_at_load(page, site_url):
    """The theme's script wraps each table:not([class]) at DOMContentLoaded, taking it out of the page and putting
    it back: on learning (a dozen tables) a restyle of the whole article inside that task. finish/tables.py writes
    the wrapper at build time, so nothing is taken out, and each table still sits in the theme's wrapper."""
    page.add_init_script("""
        window.aihTablesTakenOut = 0;
        new MutationObserver((records) => {
          for (const record of records)
            for (const node of record.removedNodes) if (node.nodeName === "TABLE") window.aihTablesTakenOut++;
        }).observe(document, {childList: true, subtree: true});
    """)
    page.goto(site_url + "learning/", wait_until="networkidle")
    assert page.evaluate("aihTablesTakenOut") == 0
    wrapped = page.evaluate("""() => [...document.querySelectorAll("article table:not([class]), article table.aih-table")]
        .map((table) => table.matches(".md-typeset__scrollwrap > .md-typeset__table > table.aih-table"))""")
    assert len(wrapped) >= 5 and all(wrapped), wrapped  # ten at load today (the rest wait in a <noscript>)


def test_read_from_the_top_a_page_skips_what_is_off_screen_until_it_comes_near(page, site_url):
    page.goto(site_url + "softmax/", wait_until="networkidle")
    assert not page.evaluate("document.documentElement.classList.contains('aih-landed')")
    assert page.evaluate(SKIPPING) == ["auto"]
    page.reload(wait_until="networkidle")  # a reload restores the scroll position: the reader may be anywhere
    assert page.evaluate("document.documentElement.classList.contains('aih-landed')")
