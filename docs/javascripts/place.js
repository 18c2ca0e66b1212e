// Back, Forward and a reload bring the reader back to their place, on every page (site.js imports this).
//
// The page comes back at the scroll offset the reader left it at (Material's instant navigation scrolls there;
// a full load, the browser), but two things above that place may have a different height by then:
// - its heatmaps are static again: shorter than when the reader left, so that offset can be screens past the
//   reader's place. So the heights of a page's heatmaps where the reader last stopped are kept for the session
//   (per window width), and a page that comes back at that offset takes them again (each held, clipped, until
//   heatmap.js draws it again with the same example);
// - blocks the reader jumped past (the scrollbar dragged) were never laid out, and had their placeholder height
//   (site.css); they come back at their own (html.aih-landed). So the block at the top of the screen and its
//   place are kept too, and the page is put back by it.
const DRAWN = ["aih-on", "aih-merged", "aih-held"].map((state) => `figure.aih-heatmap.${state}`).join();
// The page shown, not the address: instant navigation changes the address first, then swaps the page in.
let shownPath = globalThis.location?.pathname;
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
let pending; // [path, timer]: the save after the last scroll, of the page scrolled
// The offset the theme saved with the history entry Back or Forward goes to, as it was then: the theme saves
// the offset 100 ms after a scroll into the entry current by then, which may already be this one.
let popped;
// A held heatmap -> its readout's height in px as the reader left it: heatmap.js draws it again with its readout
// that tall (the readout keeps the tallest height it has had while the pointer moves), so nothing after it moves.
export const keptPins = new WeakMap();

function savePlace(path) {
  clearTimeout(pending?.[1]);
  pending = null;
  const key = placeKey(path);
  const heights = [...document.querySelectorAll(DRAWN)].map((figure) => [figure.id,
    figure.matches(".aih-merged") ? 0 : figure.offsetHeight, shownIn(figure),
    figure.querySelector(".aih-readout")?.getBoundingClientRect().height ?? keptPins.get(figure)]);
  const all = blocks();
  const onTop = all.findIndex((block) => block.getBoundingClientRect().bottom > 0);
  try {
    session[key] = JSON.stringify([scrollY, heights, onTop, all[onTop]?.getBoundingClientRect().top]);
  } catch {} // storage full: this page forgets
}

// After a scroll, and after anything that changes a heatmap's height (heatmap.js: drawn, or pointed at).
export function rememberPlace() {
  if (location.pathname !== shownPath) return; // the address has changed: this page is being left
  clearTimeout(pending?.[1]);
  pending = [shownPath, setTimeout(savePlace, 150, shownPath)]; // after Material's 100 ms
}
globalThis.addEventListener?.("scroll", rememberPlace, { passive: true }); // (not in Node's unit tests)
// A click or Back sooner than that saves at once, while the page is still the one the reader leaves.
const saveNow = () => pending && savePlace(pending[0]);
globalThis.addEventListener?.("click", saveNow, true);
globalThis.addEventListener?.("popstate", (event) => {
  popped = event.state?.y;
  saveNow();
}, true);
// A click the theme has made a navigation (the address has changed by the time it reaches the window) is not a
// Back: forget the offset of the last one.
globalThis.addEventListener?.("click", () => location.pathname !== shownPath && (popped = undefined));

// swapped: instant navigation has just scrolled to the offset it saved with the history entry. Else a full
// load after a reload, Back or Forward, where the browser restores the place its own way, not always to where
// the reader was (Chromium restores by an element on screen, which may have been part of a heatmap): unless
// the reader has already pressed or tapped something, the offset kept here wins. Holding a heatmap above the
// screen moves nothing the reader sees (the browser's scroll anchoring), so the offset is set once more; then
// the block that was at the top of the screen is put back at its place.
function comeBack(swapped) {
  let offset, heights, onTop, top;
  const kept = placeKey(shownPath, ""); // at any width
  if (!Object.keys(session).some((key) => key.startsWith(kept))) return; // nothing kept for this page
  try {
    [offset, heights, onTop, top] = JSON.parse(session[placeKey(shownPath)]);
  } catch {
    return; // nothing kept for this page
  }
  const arrival = performance.getEntriesByType("navigation")[0];
  const back = swapped ? offset === (popped ?? history.state?.y)
    : arrival?.type !== "navigate" && arrival?.name === location.href && !navigator.userActivation?.hasBeenActive;
  if (!back) return;
  for (const [id, height, shown, pin] of heights) {
    const figure = document.getElementById(id);
    if (!figure?.matches("figure.aih-heatmap") || shownIn(figure) !== shown) continue;
    if (!height) figure.classList.add("aih-merged");
    else figure.classList.add("aih-held"), (figure.style.height = `${height}px`), keptPins.set(figure, pin);
  }
  scrollTo(0, offset);
  const block = blocks()[onTop];
  if (block && top != null) scrollBy(0, block.getBoundingClientRect().top - top);
}

// Material's instant navigation swaps pages without reloading this module: each new page comes through here,
// before heatmap.js's own subscription (site.js imports this module first), so a heatmap is held before it is
// drawn. The first page of the window is a full load; every later one was swapped in.
let swapped = false;
globalThis.document$?.subscribe(() => {
  clearTimeout(pending?.[1]); // a save still due for the page just left (its figures are gone)
  pending = null;
  shownPath = location.pathname;
  comeBack(swapped);
  swapped = true;
  popped = undefined;
});
