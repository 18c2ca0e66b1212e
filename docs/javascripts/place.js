// Back, Forward and a reload bring the reader back to their place, on every page (site.js imports this).
//
// Each page view is a full load (mkdocs.yml keeps the theme's instant navigation off). Going back to the scroll
// offset the reader left a page at is not enough: two things above that place may have a different height by
// then:
// - its heatmaps are static again: shorter than when the reader left, so that offset can be screens past the
//   reader's place. So the heights of a page's heatmaps where the reader last stopped are kept for the session
//   (per window width), and a page that comes back at that offset takes them again (each held, clipped, until
//   heatmap.js draws it again with the same example);
// - blocks the reader jumped past (the scrollbar dragged) were never laid out, and had their placeholder height
//   (site.css); they come back at their own (html.aih-landed). So the block at the top of the screen and its
//   place are kept too, and the page is put back by it.
// A page the browser keeps whole while the reader is away (its back/forward cache) comes back as it was left.
const DRAWN = ["aih-on", "aih-merged", "aih-held"].map((state) => `figure.aih-heatmap.${state}`).join();
// Read only when a place is saved or one is kept for the page: on a phone, reading the window's width makes the
// browser lay out the whole page there and then.
const placeKey = (path, width = innerWidth) => `aih-place ${path} ${width}`;
const blocks = () => [...(document.querySelector("article.md-content__inner")?.children ?? [])];
const shownIn = (figure) => `${figure.dataset.example} ${figure.dataset.head ?? ""}`; // its height depends on it
const session = (() => {
  try {
    return sessionStorage;
  } catch {
    return {}; // storage turned off: kept for this page's life only
  }
})();
let pending; // the timer of the save after the last scroll
// A held heatmap -> its readout's height in px as the reader left it: heatmap.js draws it again with its readout
// that tall (the readout keeps the tallest height it has had while the pointer moves), so nothing after it moves.
export const keptPins = new WeakMap();

function savePlace() {
  clearTimeout(pending);
  pending = null;
  const key = placeKey(location.pathname);
  const heights = [...document.querySelectorAll(DRAWN)].map((figure) => [figure.id,
    figure.matches(".aih-merged") ? 0 : figure.offsetHeight, shownIn(figure),
    figure.querySelector(".aih-readout")?.getBoundingClientRect().height ?? keptPins.get(figure)]);
  const all = blocks();
  const onTop = all.findIndex((block) => block.getBoundingClientRect().bottom > 0);
  try {
    session[key] = JSON.stringify([scrollY, heights, onTop, all[onTop]?.getBoundingClientRect().top]);
    history.scrollRestoration = "manual"; // this entry: comeBack() puts the reader back, not the browser
  } catch {} // storage full: this page forgets, and the browser restores the offset
}

// After a scroll, and after anything that changes a heatmap's height (heatmap.js: drawn, or pointed at).
export function rememberPlace() {
  clearTimeout(pending);
  pending = setTimeout(savePlace, 150);
}
globalThis.addEventListener?.("scroll", rememberPlace, { passive: true }); // (not in Node's unit tests)
// Leaving sooner than that (a link, Back, a reload) saves at once.
const saveNow = () => pending && savePlace();
globalThis.addEventListener?.("click", saveNow, true);
globalThis.addEventListener?.("pagehide", saveNow);

// After a reload, Back or Forward the browser would restore the place its own way, not always to where the reader
// was (Chromium restores by an element on screen, which may have been part of a heatmap, and after a Back it
// did so once this had run: masks came back 290-460 px off). A saved place turns that off for its history
// entry, and the place kept here is used, unless the reader has already pressed or tapped something. Holding a
// heatmap above the screen moves nothing the reader sees (the browser's scroll anchoring), so the offset is set
// once more; then the block that was at the top of the screen is put back at its place. Kept at another window
// width only (a phone turned), the heights do not apply: the block on top still does.
function comeBack() {
  const kept = Object.keys(session).filter((key) => key.startsWith(placeKey(location.pathname, ""))); // any width
  const arrival = performance.getEntriesByType("navigation")[0];
  const back = arrival?.type !== "navigate" && arrival?.name === location.href && !navigator.userActivation?.hasBeenActive;
  if (!kept.length || !back) return;
  const here = placeKey(location.pathname);
  const sameWidth = kept.includes(here);
  const place = keptPlace(session[sameWidth ? here : kept[0]], document.documentElement.scrollHeight, innerHeight);
  if (!place) return; // nothing usable kept for this page
  const [offset, heights, onTop, top] = place;
  for (const [id, height, shown, pin] of sameWidth ? heights : []) {
    const figure = document.getElementById(id);
    if (!figure?.matches("figure.aih-heatmap") || shownIn(figure) !== shown) continue;
    if (!height) figure.classList.add("aih-merged");
    else figure.classList.add("aih-held"), (figure.style.height = `${height}px`), keptPins.set(figure, pin);
  }
  scrollTo(0, offset);
  const block = blocks()[onTop];
  if (block && top != null) scrollBy(0, block.getBoundingClientRect().top - top);
}

// The place kept as text (savePlace's [scrollY, heights, onTop, its top]) -> [offset, heights, onTop, top], or
// null if it is not one. Storage is the reader's to edit and outlives a change of the site, so every field is
// checked, an entry that is not one is skipped, and every length is clamped to the page (pageHeight), a readout's
// to the screen (screenHeight): a kept height of 1e9 held a heatmap, and the page, that tall, and a readout's kept
// it so after the heatmap was drawn.
function keptPlace(text, pageHeight, screenHeight) {
  // a number clamped to [least, most], or `otherwise` when it is not one
  const within = (value, most = pageHeight, least = 0, otherwise) =>
    (Number.isFinite(value) ? Math.min(Math.max(value, least), most) : otherwise);
  const isEntry = (item) => Array.isArray(item) && typeof item[0] === "string" && typeof item[2] === "string" &&
    Number.isFinite(item[1]);
  try {
    const [offset, heights, onTop, top] = JSON.parse(text); // throws on what is not text of a list
    return Number.isFinite(offset) ? [
      within(offset),
      (Array.isArray(heights) ? heights : []).filter(isEntry)
        .map(([id, height, shown, pin]) => [id, within(height), shown, within(pin, screenHeight)]),
      Number.isInteger(onTop) ? onTop : -1,
      within(top, pageHeight, -pageHeight, null),
    ] : null;
  } catch {
    return null;
  }
}

// When the page is there (document$: the theme's signal, on DOMContentLoaded), before heatmap.js's own
// subscription (site.js imports this module first), so a heatmap is held before it is drawn.
globalThis.document$?.subscribe(comeBack);
