// Real heads page: each thumbnail of a grid (an SVG <g id="real-heads-grid-<sentence>-l<layer>-h<head>">)
// becomes a button that opens its head in the viewer, the interactive heatmap #fig-real-heads-viewer.
// Without JavaScript the grids, the viewer's first head and the named heads stay as static figures.
import { enhance } from "./heatmap.js";

const THUMB = /^real-heads-grid-([a-z]+)-l(\d+)-h(\d+)$/;

// "real-heads-grid-long-l0-h2" -> { sentence: "long", layer: 0, head: 2 }, or null for any other id
export function parseThumbnail(id) {
  const m = THUMB.exec(id);
  return m && { sentence: m[1], layer: +m[2], head: +m[3] };
}

export const exampleId = ({ sentence, layer }) => `real-heads-${sentence}-layer${layer}`;

function setup() {
  const viewer = document.getElementById("fig-real-heads-viewer");
  if (!viewer) return;
  const status = document.getElementById("real-heads-viewer-status");
  const thumbs = [...document.querySelectorAll("figure[id^='fig-real-heads-grid-'] svg g[id]")]
    .map((g) => [g, parseThumbnail(g.id)])
    .filter(([, t]) => t);

  const mark = (open) => {
    for (const [g, t] of thumbs) {
      const on = exampleId(t) === open.example && t.head === open.head;
      g.classList.toggle("aih-thumb--open", on);
      g.setAttribute("aria-pressed", on);
    }
  };

  const label = (t) => {
    status.textContent = `Showing layer ${t.layer}, head ${t.head} on the ${t.sentence} sentence.`;
    viewer.querySelector("details.aih-data")?.setAttribute("hidden", ""); // its table is the first head's
    mark({ example: exampleId(t), head: t.head });
  };

  const show = (t) => {
    viewer.dataset.example = exampleId(t);
    viewer.dataset.head = t.head;
    label(t);
    enhance(viewer);
    viewer.scrollIntoView({ behavior: "smooth", block: "nearest" });
  };

  // The viewer's own head menu switches heads within the layer: keep the line and the marked thumbnail true.
  const current = () => {
    const [, sentence, layer] = /^real-heads-([a-z]+)-layer(\d+)$/.exec(viewer.dataset.example);
    return { sentence, layer: +layer };
  };
  viewer.addEventListener("change", (e) => {
    if (e.target.matches("[data-slot='lead']")) label({ ...current(), head: +e.target.value });
  });

  // One tab stop per grid (roving tabindex): the arrow keys move between its thumbnails.
  const at = new Map(thumbs.map(([g, t]) => [`${t.sentence} ${t.layer} ${t.head}`, g]));
  const MOVES = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
  for (const [g, t] of thumbs) {
    g.classList.add("aih-thumb");
    g.setAttribute("role", "button");
    g.setAttribute("tabindex", t.layer === 0 && t.head === 0 ? "0" : "-1");
    g.setAttribute("aria-label", `Open layer ${t.layer}, head ${t.head} (${t.sentence} sentence) in the viewer`);
    g.addEventListener("click", () => show(t));
    g.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        show(t);
      } else if (MOVES[e.key]) {
        const [dl, dh] = MOVES[e.key];
        const next = at.get(`${t.sentence} ${t.layer + dl} ${t.head + dh}`);
        if (!next) return;
        e.preventDefault();
        g.setAttribute("tabindex", "-1");
        next.setAttribute("tabindex", "0");
        next.focus();
      }
    });
  }
  mark({ example: viewer.dataset.example, head: +viewer.dataset.head });
}

document$.subscribe(setup);
