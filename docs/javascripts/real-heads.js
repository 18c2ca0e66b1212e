// The real-heads page: each thumbnail <rect id="real-heads-grid-<sentence>-l<layer>-h<head>"> (a square over its
// grid's image) becomes a button that opens its head in the viewer heatmap; its <svg> becomes a group, since
// an img may hold no buttons.
import { setAttributes } from "./dom.js";
import { enhance } from "./heatmap.js";

const THUMBNAIL_ID = /^real-heads-grid-([a-z]+)-l(\d+)-h(\d+)$/;
const VIEWER_EXAMPLE = /^real-heads-([a-z]+)-layer(\d+)$/;
const ARROW_MOVES = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] }; // [layer, head]

const thumbnailId = ({ sentence, layer, head }) => `real-heads-grid-${sentence}-l${layer}-h${head}`;

class HeadGrids {
  constructor(viewer) {
    this.viewer = viewer;
    this.thumbnails = [...document.querySelectorAll("figure[id^='fig-real-heads-grid-'] [id]")]
      .map((element) => [element, THUMBNAIL_ID.exec(element.id)])
      .filter(([, match]) => match)
      .map(([element, [, sentence, layer, head]]) => ({ element, sentence, layer, head }));
    // the viewer's own head menu changes the head shown too
    viewer.addEventListener("change", (event) => {
      if (event.target.matches("[data-slot='lead']")) this.label({ ...this.shownHead(), head: event.target.value });
    });
    for (const thumbnail of this.thumbnails) this.makeButton(thumbnail);
    this.markOpen(this.shownHead());
  }

  // the head in the viewer, from the data-example and data-head that enhance() reads
  shownHead() {
    const [, sentence, layer] = VIEWER_EXAMPLE.exec(this.viewer.dataset.example);
    return { sentence, layer, head: this.viewer.dataset.head };
  }

  markOpen(shown) {
    for (const { element } of this.thumbnails) {
      const open = element.id === thumbnailId(shown);
      element.classList.toggle("aih-thumb--open", open);
      element.setAttribute("aria-pressed", open);
    }
  }

  // The status line and the marked thumbnail follow the head shown; the viewer's data table (its first
  // head's numbers) goes.
  label(shown) {
    document.getElementById("real-heads-viewer-status").textContent =
      `Showing layer ${Number(shown.layer) + 1}, head ${Number(shown.head) + 1} on the ${shown.sentence} sentence.`;
    this.viewer.querySelector("details.aih-data")?.setAttribute("hidden", "");
    this.markOpen(shown);
  }

  open(thumbnail) {
    const { sentence, layer, head } = thumbnail;
    Object.assign(this.viewer.dataset, { example: `real-heads-${sentence}-layer${layer}`, head });
    this.label(thumbnail);
    enhance(this.viewer);
    this.viewer.scrollIntoView({ behavior: "smooth", block: "nearest" });
  }

  makeButton(thumbnail) {
    const { element, sentence, layer, head } = thumbnail;
    element.closest("svg").setAttribute("role", "group");
    element.classList.add("aih-thumb");
    setAttributes(element, {
      role: "button",
      tabindex: Number(layer) || Number(head) ? -1 : 0, // one tab stop per grid; the arrows move within it
      "aria-label": `Layer ${Number(layer) + 1}, head ${Number(head) + 1}, ${sentence} sentence`,
    });
    element.addEventListener("click", () => this.open(thumbnail));
    element.addEventListener("keydown", (event) => {
      const move = ARROW_MOVES[event.key];
      const next = move && document.getElementById(
        thumbnailId({ sentence, layer: Number(layer) + move[0], head: Number(head) + move[1] }));
      if (event.key === "Enter" || event.key === " ") this.open(thumbnail);
      else if (next) {
        element.setAttribute("tabindex", -1);
        next.setAttribute("tabindex", 0);
        next.focus();
      } else return;
      event.preventDefault();
    });
  }
}

document$.subscribe(() => {
  const viewer = document.getElementById("fig-real-heads-viewer");
  if (viewer) new HeadGrids(viewer);
});
