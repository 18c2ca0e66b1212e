// The one script every page view loads. It brings in a widget's module only on a page that shows that widget,
// so a page pays for its own widgets and no one else's. It looks once the page is there (document$, the theme's
// signal, which replays the page to a late subscriber: a widget's module sets itself up through it too).
// place.js, on every page: Back, Forward and a reload bring the reader back to their place.
import "./place.js";
import { fetchChecked, loadNearViewport } from "./dom.js";

// {a widget's selector: its name}: the widget's folder is widgets/<name>/ and its module there <name>.js
const WIDGETS = {
  "figure.aih-heatmap[data-example][data-quantity]": "heatmap",
  ".aih-problem[data-src]": "problems",
  "figure[id^='fig-real-heads-grid-']": "real-heads",
  "#aih-yours": "your-sentence",
  "#aih-write": "watch-it-write",
  "#aih-smollm": "smollm",
};

// A <details> whose body waits in a <noscript class="aih-lazy"> (finish/details.py) gets it when first
// opened (with scripting on, a <noscript> holds its body as text). A source listing
// (figures_src/engine/sources.py) gets its linked file, highlighted, when first opened.
const parse = (markup) => document.createRange().createContextualFragment(markup);
const unwrap = (waiting) => waiting?.replaceWith(...parse(waiting.textContent).childNodes); // none: unwrapped already
document.addEventListener("toggle", async ({ target }) => {
  const waiting = target.open && target.querySelector?.("noscript.aih-lazy");
  if (waiting) unwrap(waiting);
  if (target.open && target.matches?.(".aih-source:not(.aih-loaded)")) {
    target.classList.add("aih-loaded");
    target.append(parse(await fetchChecked(`${target.querySelector("a").href}.highlight`, "text")));
  }
}, true);
// Printed from the browser, a page shows every table and listing (docs/stylesheets/print.css opens them).
addEventListener("beforeprint", () => document.querySelectorAll("noscript.aih-lazy").forEach(unwrap));

document$.subscribe(() => {
  // one in an SVG's <foreignObject> (a real-heads grid's image, real_heads/grid.py) gets its body when the
  // figure comes into view
  loadNearViewport(document.querySelectorAll("foreignObject"), (box) => unwrap(box.querySelector("noscript")), "0px");
  // (a module runs once however often it is imported)
  for (const [selector, name] of Object.entries(WIDGETS)) {
    if (document.querySelector(selector)) import(`../widgets/${name}/${name}.js`);
  }
});
