// Real heads page: each grid thumbnail <g id="real-heads-grid-<sentence>-l<layer>-h<head>"> opens its head in
// the viewer (#fig-real-heads-viewer, an interactive heatmap). Without JS the static figures stay.
import { enhance } from "./heatmap.js";

const MOVES = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };

document$.subscribe(() => {
  const viewer = document.getElementById("fig-real-heads-viewer");
  if (!viewer) return;
  const status = document.getElementById("real-heads-viewer-status");
  const thumbs = new Map(); // "sentence layer head" -> <g>
  for (const g of document.querySelectorAll("figure[id^='fig-real-heads-grid-'] g[id]")) {
    const m = /^real-heads-grid-([a-z]+)-l(\d+)-h(\d+)$/.exec(g.id);
    if (m) thumbs.set(`${m[1]} ${+m[2]} ${+m[3]}`, g);
  }
  const key = (t) => `${t.sentence} ${t.layer} ${t.head}`;

  const mark = (t) => {
    for (const [k, g] of thumbs) {
      g.classList.toggle("aih-thumb--open", k === key(t));
      g.setAttribute("aria-pressed", k === key(t));
    }
  };
  // The line above the viewer and the marked thumbnail follow t; the viewer's table (its first head's) goes.
  const label = (t) => {
    status.textContent = `Showing layer ${t.layer}, head ${t.head} on the ${t.sentence} sentence.`;
    viewer.querySelector("details.aih-data")?.setAttribute("hidden", "");
    mark(t);
  };
  const shown = () => {
    const [, sentence, layer] = /^real-heads-([a-z]+)-layer(\d+)$/.exec(viewer.dataset.example);
    return { sentence, layer: +layer, head: +viewer.dataset.head };
  };
  const show = (t) => {
    Object.assign(viewer.dataset, { example: `real-heads-${t.sentence}-layer${t.layer}`, head: t.head });
    label(t);
    enhance(viewer);
    viewer.scrollIntoView({ behavior: "smooth", block: "nearest" });
  };
  viewer.addEventListener("change", (e) => {
    if (e.target.matches("[data-slot='lead']")) label({ ...shown(), head: +e.target.value });
  });

  for (const [k, g] of thumbs) {
    const [sentence, layer, head] = k.split(" ");
    const t = { sentence, layer: +layer, head: +head };
    g.classList.add("aih-thumb");
    g.setAttribute("role", "button");
    g.setAttribute("tabindex", t.layer || t.head ? "-1" : "0"); // one tab stop per grid; arrows move
    g.setAttribute("aria-label", `Open layer ${layer}, head ${head} (${sentence} sentence) in the viewer`);
    g.addEventListener("click", () => show(t));
    g.addEventListener("keydown", (e) => {
      const move = MOVES[e.key];
      const next = move && thumbs.get(key({ sentence, layer: t.layer + move[0], head: t.head + move[1] }));
      if (e.key === "Enter" || e.key === " ") show(t);
      else if (next) {
        g.setAttribute("tabindex", "-1");
        next.setAttribute("tabindex", "0");
        next.focus();
      } else return;
      e.preventDefault();
    });
  }
  mark(shown());
});
