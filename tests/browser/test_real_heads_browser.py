"""The real-heads page in Chromium: a thumbnail opens its head in the viewer; a grid's thumbnails become
buttons only when it nears the viewport or is entered; without JavaScript the grids and the named heads'
heatmaps are still there.
"""
import json
from pathlib import Path

from playwright.sync_api import expect

from figures_src.engine.text import num as fmt
from figures_src.pages.real_heads import committed

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "site"
VIEWER = "#fig-real-heads-viewer"
PHONE = {"width": 412, "height": 823}


def example(example_id):
    return json.loads((SITE / "examples" / f"{example_id}.json").read_text())


def open_viewer(page, site_url):
    """The page, scrolled to the viewer until it is interactive (heatmaps become so near the viewport), and to
    the first grid until its thumbnails are buttons (they become so near the viewport too)."""
    page.goto(site_url + "real-heads/")
    page.locator(VIEWER).scroll_into_view_if_needed()
    expect(page.locator(f"{VIEWER}.aih-on")).to_have_count(1)
    page.locator("#fig-real-heads-grid-coreference").scroll_into_view_if_needed()
    expect(page.locator("#fig-real-heads-grid-coreference .aih-thumb")).to_have_count(72)
    page.evaluate("scrollTo(0, 0)")


def load_on_a_phone(page, site_url):
    """The page on a phone-sized screen, once real-heads.js and its imports have loaded and run."""
    page.set_viewport_size(PHONE)
    page.goto(site_url + "real-heads/", wait_until="networkidle")
    page.wait_for_function("""() => ["real-heads/real-heads.js", "heatmap/heatmap.js"].every((name) =>
      performance.getEntriesByType("resource").some((r) => r.name.endsWith(`/widgets/${name}`)))""")
    page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    page.wait_for_timeout(500)


def test_a_grid_far_below_the_first_screen_gets_its_buttons_when_scrolled_to(page, site_url):
    load_on_a_phone(page, site_url)
    grid = page.locator("#fig-real-heads-grid-coreference")
    assert grid.evaluate("g => g.getBoundingClientRect().top") > 2 * PHONE["height"]  # beyond the margin
    # at load, no grid is made: 216 thumbnails stay plain squares of an image
    expect(page.locator("figure[id^='fig-real-heads-grid-'] .aih-thumb, figure[id^='fig-real-heads-grid-'] [role=button]")).to_have_count(0)
    expect(grid.locator("svg").first).to_have_attribute("role", "img")
    assert grid.locator(".aih-figure__graphic [tabindex]").count() == 0  # only the graphic itself, which scrolls
    grid.scroll_into_view_if_needed()
    thumbs = grid.locator("rect.aih-thumb[role=button]")
    expect(thumbs).to_have_count(72)
    expect(grid.locator("svg").first).to_have_attribute("role", "group")
    expect(grid.locator(".aih-figure__graphic [tabindex='0']")).to_have_count(1)  # the grid's one tab stop, as ever
    expect(page.locator("#real-heads-grid-coreference-l0-h0")).to_have_attribute("tabindex", "0")
    shown = committed.picks()["coreference"]  # the head the viewer opens on
    expect(page.locator(f"#real-heads-grid-coreference-l{shown.layer}-h{shown.head}")).to_have_attribute("aria-pressed", "true")
    assert grid.locator("[aria-pressed=true]").count() == 1
    # the grids in the closed tabs wait for theirs
    expect(page.locator("#fig-real-heads-grid-long .aih-thumb")).to_have_count(0)
    page.locator(".tabbed-set").first.locator(".tabbed-labels label", has_text="long").click()  # the grids' tabs
    expect(page.locator("#fig-real-heads-grid-long rect.aih-thumb[role=button]")).to_have_count(72)
    assert page.locator("#fig-real-heads-grid-long [aria-pressed=true]").count() == 0  # not the sentence shown


def test_the_focus_entering_a_grid_makes_its_buttons_wherever_it_is(page, site_url):
    load_on_a_phone(page, site_url)
    grid = page.locator("#fig-real-heads-grid-coreference")
    expect(grid.locator(".aih-thumb")).to_have_count(0)
    grid.locator("summary").first.evaluate("s => s.focus({ preventScroll: true })")
    expect(grid.locator("rect.aih-thumb[role=button]")).to_have_count(72)
    assert grid.evaluate("g => g.getBoundingClientRect().top") > 2 * PHONE["height"]  # still far below: not by scrolling


def test_a_thumbnail_opens_its_head_in_the_viewer(page, site_url):
    open_viewer(page, site_url)
    page.locator(".tabbed-set").first.locator(".tabbed-labels label", has_text="long").click()  # the grids' tabs: the sentence selector
    table = page.locator(f"{VIEWER} details.aih-data")
    expect(table).not_to_have_attribute("hidden", "")  # the first head's numbers, right for the first head
    thumb = page.locator("#real-heads-grid-long-l0-h2")
    expect(thumb).to_be_visible()
    expect(thumb).to_have_attribute("role", "button")
    expect(thumb).to_have_attribute("aria-label", "layer 1, head 3 on the long sentence")
    # buttons may not sit inside an img: the grid's svg is a group once its thumbnails are buttons
    expect(page.locator("#fig-real-heads-grid-long svg")).to_have_attribute("role", "group")
    thumb.click()
    expect(page.locator("#real-heads-viewer-status")).to_have_text("Showing layer 1, head 3 on the long sentence.")
    expect(page.locator(VIEWER)).to_have_attribute("data-example", "real-heads-long-layer0")
    expect(thumb).to_have_attribute("aria-pressed", "true")
    expect(table).to_have_attribute("hidden", "")  # no longer the head shown

    ex = example("real-heads-long-layer0")
    rows = page.locator(f"{VIEWER} .aih-grid [role=row]:not(:first-child)")
    expect(rows).to_have_count(len(ex["tokens"]))
    shown = page.eval_on_selector_all(
        f"{VIEWER} .aih-grid [role=row]:not(:first-child)",
        "rows => rows.map(r => [...r.querySelectorAll('[data-j]')].map(c => c.textContent))",
    )
    assert shown == [[fmt(w) for w in row] for row in ex["steps"]["weights"][2]]


def test_the_keyboard_opens_a_thumbnail_too(page, site_url):
    open_viewer(page, site_url)
    first = page.locator("#real-heads-grid-coreference-l0-h0")
    expect(first).to_have_attribute("tabindex", "0")  # the grid's one tab stop
    expect(page.locator("#fig-real-heads-grid-coreference .aih-figure__graphic [tabindex='0']")).to_have_count(1)
    first.focus()
    for key in ["ArrowDown"] * 4 + ["ArrowRight"] * 5:
        page.keyboard.press(key)
    expect(page.locator("#real-heads-grid-coreference-l4-h5")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#real-heads-viewer-status")).to_have_text("Showing layer 5, head 6 on the coreference sentence.")
    expect(page.locator(VIEWER)).to_have_attribute("data-head", "5")


def test_without_javascript_the_grids_and_the_named_heads_are_shown(browser, site_url):
    context = browser.new_context(java_script_enabled=False)
    try:
        static = context.new_page()
        static.goto(site_url + "real-heads/")
        grid = static.locator("#fig-real-heads-grid-coreference svg")
        box = grid.bounding_box()
        assert box and box["width"] > 300, box
        # one image for all 72 heads, drawn one square per weight, under 72 addressable thumbnails; without
        # JavaScript its <noscript> shows it at once
        image = static.locator("#fig-real-heads-grid-coreference svg foreignObject img")
        expect(image).to_have_count(1)
        image.scroll_into_view_if_needed()
        assert image.evaluate("i => i.decode().then(() => i.naturalWidth)") > 0
        assert image.evaluate("i => getComputedStyle(i).imageRendering") == "pixelated"
        ids = static.eval_on_selector_all("#fig-real-heads-grid-coreference rect[id]",
                                          r"rects => rects.map(r => r.id).filter(i => /-l\d+-h\d+$/.test(i))")
        assert ids == [f"real-heads-grid-coreference-l{k}-h{h}" for k in range(6) for h in range(12)]
        outer = image.bounding_box()
        first = static.locator(f"#{ids[0]}").bounding_box()
        last = static.locator(f"#{ids[-1]}").bounding_box()
        assert abs(first["x"] - outer["x"]) < 1 and abs(first["y"] - outer["y"]) < 1, (first, outer)
        assert abs(last["x"] + last["width"] - outer["x"] - outer["width"]) < 1, (last, outer)
        assert abs(last["y"] + last["height"] - outer["y"] - outer["height"]) < 1, (last, outer)
        assert grid.get_attribute("role") == "img"  # nothing focusable inside without JS
        # the source listings link their files
        for source in ("encoder", "analysis"):
            link = static.locator("details.aih-source a", has_text=f"models/minilm/{source}.py")
            response = static.request.get(link.evaluate("a => a.href"))
            assert response.ok and response.text() == (ROOT / "models" / "minilm" / f"{source}.py").read_text()
        for name in ("viewer", "previous", "next", "sink", "coreference", "agreement"):
            figure = static.locator(f"#fig-real-heads-{name} svg")
            box = figure.bounding_box()
            assert box and box["width"] > 200 and box["height"] > 200, (name, box)
    finally:
        context.close()


def test_the_viewers_head_menu_keeps_the_label_and_the_marked_thumbnail(page, site_url):
    open_viewer(page, site_url)
    first = committed.picks()["coreference"]  # the head the viewer opens on
    other = (first.head + 1) % 12
    page.locator(f"{VIEWER} [data-slot='lead']").select_option(str(other))
    status = page.locator("#real-heads-viewer-status")
    expect(status).to_have_text(f"Showing layer {first.layer + 1}, head {other + 1} on the coreference sentence.")
    expect(page.locator(f"#real-heads-grid-coreference-l{first.layer}-h{other}")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(f"#real-heads-grid-coreference-l{first.layer}-h{first.head}")).to_have_attribute("aria-pressed", "false")


def test_a_grids_image_loads_when_the_grid_nears_the_viewport(page, site_url):
    fetched = []
    page.on("request", lambda request: fetched.append(request.url))
    page.goto(site_url + "real-heads/")
    page.wait_for_load_state("networkidle")
    assert not [url for url in fetched if url.endswith(".thumbnails.png")], "a grid's image was fetched at load"
    grid = page.locator("#fig-real-heads-grid-coreference")
    grid.scroll_into_view_if_needed()
    image = grid.locator("svg foreignObject img")
    expect(image).to_have_count(1)
    assert image.evaluate("i => i.decode().then(() => i.naturalWidth)") > 0
    # under its 72 buttons, corner to corner
    outer = image.bounding_box()
    first = page.locator("#real-heads-grid-coreference-l0-h0").bounding_box()
    last = page.locator("#real-heads-grid-coreference-l5-h11").bounding_box()
    assert abs(first["x"] - outer["x"]) < 1 and abs(first["y"] - outer["y"]) < 1, (first, outer)
    assert abs(last["x"] + last["width"] - outer["x"] - outer["width"]) < 1, (last, outer)
    assert abs(last["y"] + last["height"] - outer["y"] - outer["height"]) < 1, (last, outer)
    # a grid in a closed tab waits until its tab is chosen
    assert not [url for url in fetched if url.endswith("real-heads-grid-long.thumbnails.png")]
    page.locator(".tabbed-set").first.locator(".tabbed-labels label", has_text="long").click()  # the grids' tabs
    expect(page.locator("#fig-real-heads-grid-long svg foreignObject img")).to_have_count(1)
    assert page.locator("#fig-real-heads-grid-long svg foreignObject img").evaluate(
        "i => i.decode().then(() => i.naturalWidth)") > 0


def test_a_source_listing_shows_its_file_when_opened(page, site_url):
    page.goto(site_url + "real-heads/")
    listing = page.locator("details.aih-source", has_text="models/minilm/encoder.py")
    expect(listing.locator("code")).to_have_count(0)  # not in the page until opened
    listing.locator("summary").click()
    code = listing.locator(".highlight code")
    expect(code).to_have_count(1)
    assert code.text_content() == (ROOT / "models" / "minilm" / "encoder.py").read_text()
    expect(code.locator("span.k").first).to_be_visible()  # highlighted like the page's other code
