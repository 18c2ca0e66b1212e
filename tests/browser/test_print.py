"""The print edition on paper: every table fits the A4 column whole (print.css), none cut by a scroll box."""

# A4 (210 mm) less print.css's @page margins (14 mm each side), at CSS's 96 px per inch.
A4_COLUMN = round((210 - 2 * 14) / 25.4 * 96)

TOO_WIDE = """() => [...document.querySelectorAll('.md-typeset table')].flatMap((table) => {
  const column = table.closest('.md-typeset').getBoundingClientRect().width;
  const width = table.getBoundingClientRect().width;
  const scroller = table.closest('.aih-table-scroll, .md-typeset__scrollwrap');
  const hidden = scroller ? scroller.scrollWidth - scroller.clientWidth : 0;
  if (width <= column + 1 && hidden <= 1) return [];
  const page = table.closest('.aih-print-page');
  return [[page ? page.id : '?', (table.querySelector('caption, th') || table).textContent.trim().slice(0, 50),
           Math.round(width), Math.round(column)]];
})"""


def test_every_table_of_the_print_edition_fits_an_a4_column(browser, site_url):
    context = browser.new_context(viewport={"width": A4_COLUMN, "height": 1000})
    try:
        page = context.new_page()
        page.goto(site_url + "print/")
        page.emulate_media(media="print")
        too_wide = page.evaluate(TOO_WIDE)
    finally:
        context.close()
    assert not too_wide, f"tables wider than the {A4_COLUMN} px A4 column (page, head, width, column): {too_wide}"


COPY_TARGETS = """() => [...document.querySelectorAll('button[data-clipboard-target]')].map((button) => {
  const target = document.querySelector(button.dataset.clipboardTarget);
  const own = button.closest('pre').querySelector(':scope > code');
  return [button.dataset.clipboardTarget, target === own];
})"""


def test_each_copy_button_of_the_print_edition_copies_its_own_block(page, site_url):
    page.goto(site_url + "print/")
    page.wait_for_selector("button[data-clipboard-target]", state="attached")  # Material's copy button
    targets = page.evaluate(COPY_TARGETS)
    assert len(targets) > 5, "print/ shows the site's code blocks, each with Material's copy button"
    wrong = [target for target, own in targets if not own]
    assert not wrong, f"a copy button must copy the block it sits on; these name another block's code: {wrong[:5]}"
