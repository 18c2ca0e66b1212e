// The real-heads page: each thumbnail <rect id="real-heads-grid-<sentence>-l<layer>-h<head>"> (a square over its
// grid's image) becomes a button that opens its head in the viewer heatmap; its <svg> becomes a group, since
// an img may hold no buttons. A grid's 72 buttons are made when it comes within a screen of the viewport, or
// when the pointer or the focus first enters it, whichever is first: not all 216 in one task at load.
import { ARROWS, fill, loadNearViewport } from "../../javascripts/dom.js";
import { enhance } from "../heatmap/heatmap.js";


const THUMBNAIL_ID = /^real-heads-grid-([a-z]+)-l(\d+)-h(\d+)$/;
const VIEWER_EXAMPLE = /^real-heads-([a-z]+)-layer(\d+)$/;

const thumbnailId = ({ sentence, layer, head }) => `real-heads-grid-${sentence}-l${layer}-h${head}`;

class HeadGrids {
  constructor(viewer) {
    this.viewer = viewer;
    // the viewer's own head menu changes the head shown too
    viewer.addEventListener("change", (event) => {
      if (event.target.matches("[data-slot='lead']")) this.label({ ...this.shownHead(), head: event.target.value });
    });
    // a grid within a screen of the viewport (heatmap.js's margin), or one the pointer or the focus enters
    const grids = document.querySelectorAll("figure[id^='fig-real-heads-grid-']");
    loadNearViewport(grids, (grid) => this.make(grid));
    for (const grid of grids) {
      grid.addEventListener("pointerover", () => this.make(grid));
      grid.addEventListener("focusin", () => this.make(grid));
    }
  }

  // A grid's thumbnails become buttons, once (a grid seen or entered again keeps them); the one of the head
  // shown is marked.
  make(grid) {
    if (grid.querySelector(".aih-thumb")) return;
    grid.querySelector("svg").setAttribute("role", "group");
    for (const element of grid.querySelectorAll("[id]")) {
      const [, sentence, layer, head] = THUMBNAIL_ID.exec(element.id) || [];
      if (sentence) this.makeButton({ element, sentence, layer, head });
    }
    this.markOpen(this.shownHead());
  }

  // the head in the viewer, from the data-example and data-head that enhance() reads
  shownHead() {
    const [, sentence, layer] = VIEWER_EXAMPLE.exec(this.viewer.dataset.example);
    return { sentence, layer, head: this.viewer.dataset.head };
  }

  // the thumbnails of the grids made so far
  markOpen(shown) {
    for (const element of document.querySelectorAll(".aih-thumb")) {
      const open = element.id === thumbnailId(shown);
      element.classList.toggle("aih-thumb--open", open);
      element.setAttribute("aria-pressed", open);
    }
  }

  // The status line and the marked thumbnail follow the head shown; the viewer's data table (its first
  // head's numbers) goes.
  label(shown) {
    // the build's words, in the page's language: the status line's sentence and the thumbnail's name
    const status = document.getElementById("real-heads-viewer-status");
    status.textContent = fill(status.dataset.showing,
      { thumbnail: document.getElementById(thumbnailId(shown)).dataset.label });
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
    element.classList.add("aih-thumb");
    element.setAttribute("role", "button");
    element.setAttribute("aria-label", element.dataset.label); // the head's name, the build's (real_heads/grid.py)
    // one tab stop per grid, its first head (layer "0", head "0": the id's digits); the arrows move within it
    element.tabIndex = layer + head === "00" ? 0 : -1;
    element.addEventListener("click", () => this.open(thumbnail));
    element.addEventListener("keydown", (event) => {
      const move = ARROWS[event.key]; // [layer, head]
      const next = move && document.getElementById(
        thumbnailId({ sentence, layer: Number(layer) + move[0], head: Number(head) + move[1] }));
      if (event.key === "Enter" || event.key === " ") this.open(thumbnail);
      else if (next) {
        element.tabIndex = -1;
        next.tabIndex = 0;
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
