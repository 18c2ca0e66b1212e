// Real heads: a thumbnail <g id="real-heads-grid-<sentence>-l<layer>-h<head>"> (a square over its grid's image)
// becomes a button opening that head in the viewer; its <svg> a group (an img holds no buttons).
import { enhance } from "./heatmap.js";

const MOVES = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
const thumbId = (s, l, h) => `real-heads-grid-${s}-l${l}-h${h}`;

document$.subscribe(() => {
  const viewer = document.getElementById("fig-real-heads-viewer");
  if (!viewer) return;
  const thumbs = [...document.querySelectorAll("figure[id^='fig-real-heads-grid-'] g[id]")]
    .map((g) => [g, /^real-heads-grid-([a-z]+)-l(\d+)-h(\d+)$/.exec(g.id)])
    .filter(([, m]) => m);
  const mark = (t) => {
    for (const [g] of thumbs) {
      const open = g.id === thumbId(t.s, t.l, t.h);
      g.classList.toggle("aih-thumb--open", open);
      g.setAttribute("aria-pressed", open);
    }
  };
  // The status line and the marked thumbnail follow t; the viewer's table (its first head's) goes.
  const label = (t) => {
    document.getElementById("real-heads-viewer-status").textContent =
      `Showing layer ${t.l}, head ${t.h} on the ${t.s} sentence.`;
    viewer.querySelector("details.aih-data")?.setAttribute("hidden", "");
    mark(t);
  };
  const shown = () => {
    const [, s, l] = /^real-heads-([a-z]+)-layer(\d+)$/.exec(viewer.dataset.example);
    return { s, l, h: viewer.dataset.head };
  };
  viewer.addEventListener("change", (e) => {
    if (e.target.matches("[data-slot='lead']")) label({ ...shown(), h: e.target.value });
  });

  for (const [g, [, s, l, h]] of thumbs) {
    g.closest("svg").setAttribute("role", "group");
    g.classList.add("aih-thumb");
    g.setAttribute("role", "button");
    g.setAttribute("tabindex", +l || +h ? -1 : 0); // one tab stop per grid; arrows move
    g.setAttribute("aria-label", `Layer ${l}, head ${h}, ${s} sentence`);
    const show = () => {
      Object.assign(viewer.dataset, { example: `real-heads-${s}-layer${l}`, head: h });
      label({ s, l, h });
      enhance(viewer);
      viewer.scrollIntoView({ behavior: "smooth", block: "nearest" });
    };
    g.addEventListener("click", show);
    g.addEventListener("keydown", (e) => {
      const move = MOVES[e.key];
      const next = move && document.getElementById(thumbId(s, +l + move[0], +h + move[1]));
      if (e.key === "Enter" || e.key === " ") show();
      else if (next) {
        g.setAttribute("tabindex", -1);
        next.setAttribute("tabindex", 0);
        next.focus();
      } else return;
      e.preventDefault();
    });
  }
  mark(shown());
});
