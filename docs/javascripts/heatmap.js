// Each <figure class="aih-heatmap" data-example data-quantity [data-head]> gets overrides/main.html's
// <template id="aih-heatmap"> filled in from examples/<id>.json; neighbouring figures of one example become one.
import * as A from "./attention-math.js";
import { fetchJSON, h } from "./dom.js";

const NAMES = { scores: "raw score", scaled_scores: "scaled score", weights: "weight" };
const fmt = A.formatNumber;
const vec = A.formatVector;
const live = new Map(); // figure -> AbortController of its listeners
const loaded = new Map(); // path -> its JSON

function heatmap(figure, ex, signal) {
  const { steps: s, inputs: { mask: pub } } = ex;
  const lead = Array.isArray(s.Q[0][0]) && s.Q.length; // heads or sequences on a leading axis
  const first = pub ? A.classifyMasks(lead ? pub : [pub]) : "none";
  const st = { mode: figure.dataset.quantity, mult: 1, mask: first, lead: figure.dataset.head || 0, cell: [0, 0], row: null };
  const pick = (a) => (lead ? a[st.lead] : a);
  const n = pick(s.Q).length;
  const m = pick(s.K).length;
  const causal = A.causalMask(n, m);
  const panel = document.getElementById("aih-heatmap").content.firstElementChild.cloneNode(true);
  const $ = (name) => panel.querySelector(`[data-slot=${name}]`);
  const put = (values) => {
    for (const k in values) for (const e of panel.querySelectorAll(`[data-slot=${k}]`)) e.textContent = values[k];
  };
  const on = (el, type, fn) => el.addEventListener(type, fn, { signal });
  if (first !== "none" && first !== "causal") $("mask").add(new Option(first)); // the template has those two
  if (lead) {
    panel.classList.add("aih-leads");
    put({ leadname: ex.n_heads ? "Head" : "Sequence" });
    $("lead").append(...[...Array(lead).keys()].map((l) => new Option(ex.n_heads ? `head ${l}` : ex.batch_tokens[l].join(" "), l)));
  }
  $("mask").value = st.mask;
  $("lead").value = st.lead;

  // to the template's header row: a header per key; then a row per query
  const grid = $("grid");
  const span = (role, attrs) => h("span", { role, ...attrs });
  grid.firstChild.lastChild.before(...Array.from({ length: m }, () => span("columnheader")));
  for (let i = 0; i < n; i++) {
    const cells = Array.from({ length: m }, (_, j) => span("gridcell", { tabindex: i || j ? -1 : 0, "data-i": i, "data-j": j }));
    grid.append(h("div", { role: "row" }, span("rowheader"), ...cells, span("gridcell")));
  }
  grid.style.setProperty("--aih-keys", m);
  const rows = [...grid.children];
  figure.querySelector(".aih-figure__graphic").before(panel);
  figure.classList.add("aih-on");

  let r, tokens; // what redraw() drew last: the numbers, the tokens of queries and keys alike
  function redraw(change) {
    Object.assign(st, change);
    tokens = ex.batch_tokens?.[st.lead] || ex.tokens;
    const mask = st.mask === "none" ? null : st.mask === "causal" ? causal : pick(pub);
    r = A.attendScores(s.scores ? pick(s.scores) : A.scores(pick(s.Q), pick(s.K)), pick(s.V), ex.scale * st.mult, mask);
    if (st.mult === 1 && st.mask === first) {
      // nothing changed: the example's own numbers, as the static figure prints them
      r.weights = pick(s.weights);
      r.entropy = pick(s.entropy);
      r.out = ex.n_heads ? s.heads?.[st.lead] || r.out : pick(ex.outputs.out);
    }
    const vals = r[st.mode];
    const weights = st.mode === "weights";
    const limit = weights ? 1 : A.scoreLimit(vals);
    const name = NAMES[st.mode];
    for (const b of $("modes").children) b.setAttribute("aria-pressed", b.value === st.mode);
    $("slider").setAttribute("aria-valuetext", `${fmt(st.mult)} times 1 over root d_k`);
    grid.setAttribute("aria-label", `${name}s: queries down, keys across`);
    tokens.forEach((t, j) => (rows[0].children[j + 1].textContent = t));
    for (let i = 0; i < n; i++) {
      const [head, ...cells] = rows[i + 1].children;
      const H = fmt(r.entropy[i]);
      head.textContent = tokens[i];
      for (let j = 0; j < m; j++) {
        const c = cells[j];
        const masked = mask && !mask[i][j] && st.mode !== "scores";
        const rgb = A.cellColour(vals[i][j], st.mode, limit);
        c.textContent = masked && weights ? "0" : fmt(vals[i][j]);
        c.style.background = A.cssColour(rgb);
        c.style.color = A.textColour(rgb);
        c.classList.toggle("aih-masked", !!masked);
        c.setAttribute("aria-label", `${tokens[i]} to ${tokens[j]}, ${name} ${c.textContent}`);
      }
      cells[m].textContent = H;
      cells[m].style.setProperty("--aih-entropy", r.entropy[i] / Math.log(m) || 0); // its bar: 1 is flat
      cells[m].setAttribute("aria-label", `entropy of ${tokens[i]}: ${H} nats`);
    }
    $("gradient").style.background = `linear-gradient(to right,${A.SCALES[weights ? "sequential" : "diverging"].map(A.cssColour)})`;
    panel.classList.toggle("aih-masks", !!mask?.flat().includes(false));
    put({ scale: `×${fmt(st.mult)} → ${fmt(ex.scale * st.mult)}`, lo: fmt(weights ? 0 : -limit), hi: fmt(limit), quantity: name });
    point(...st.cell);

    // follow the output: row o of out is row o of the weights times the value vectors
    const o = st.row;
    rows.forEach((tr, y) => tr.classList.toggle("aih-picked", y - 1 === o));
    panel.classList.toggle("aih-row", o !== null);
    if (o === null) return;
    put({ row: o, rowtoken: tokens[o], out: vec(r.out[o]) });
    $("lines").replaceChildren(...pick(s.V).map((v, j) => h("p", {}, `${fmt(r.weights[o][j])} × ${vec(v)} (${tokens[j]})`)));
  }

  // the readout: one query-key pair, from the dot product to its weight, and its row's entropy
  function point(i, j) {
    st.cell = [i, j];
    const q = pick(s.Q)[i];
    const k = pick(s.K)[j];
    const row = r.scaled_scores[i];
    const allowed = row.filter((x) => x > -Infinity);
    rows.forEach((tr, y) => [...tr.children].forEach((c, x) => c.classList.toggle("aih-hl", y === i + 1 || x === j + 1)));
    put({
      qt: tokens[i], kt: tokens[j], i, j, ij: `${i},${j}`, q: vec(q), k: vec(k), score: fmt(r.scores[i][j]),
      s: row[j] > -Infinity ? fmt(row[j]) : `${fmt(r.scores[i][j] * ex.scale * st.mult)}, masked: −∞`,
      products: A.formatDotProductTerms(q, k),
      factor: `1/√${ex.d_k}` + (st.mult === 1 ? "" : ` × ${fmt(st.mult)}`),
      num: A.formatLargeNumber(Math.exp(row[j])), den: A.formatLargeNumber(allowed.reduce((t, x) => t + Math.exp(x), 0)), w: fmt(r.weights[i][j]),
      H: fmt(r.entropy[i]), m, Hmax: fmt(Math.log(m)),
    });
    $("terms").replaceChildren(...allowed.flatMap((x, c) => [c ? " + e" : "e", h("sup", {}, fmt(x))]));
    panel.classList.toggle("aih-pair-masked", row[j] === -Infinity);
  }

  const focus = (i, j) => {
    const c = grid.querySelector(`[data-i="${i}"][data-j="${j}"]`); // none off the grid's edge
    if (!c) return;
    grid.querySelector("[tabindex='0']").tabIndex = -1;
    c.tabIndex = 0;
    c.focus();
  };
  on($("modes"), "click", (e) => e.target.value && redraw({ mode: e.target.value }));
  on($("slider"), "input", (e) => redraw({ mult: 10 ** e.target.value }));
  on(panel, "change", (e) => e.target.matches("select") && redraw({ [e.target.dataset.slot]: e.target.value })); // mask, lead
  const cell = (type, fn) =>
    on(grid, type, (e) => {
      const c = e.target.closest("[data-j]");
      if (c) fn(+c.dataset.i, +c.dataset.j, e);
    });
  cell("pointerover", point);
  cell("focusin", point);
  cell("click", (i, j) => (focus(i, j), redraw({ row: i })));
  cell("keydown", (i, j, e) => {
    const to = {
      ArrowUp: [i - 1, j], ArrowDown: [i + 1, j], ArrowLeft: [i, j - 1], ArrowRight: [i, j + 1],
      Home: [e.ctrlKey ? 0 : i, 0], End: [e.ctrlKey ? n - 1 : i, m - 1], PageUp: [0, j], PageDown: [n - 1, j],
    }[e.key];
    if (e.key === "Enter" || e.key === " ") redraw({ row: i });
    else if (to) focus(...to);
    else return;
    e.preventDefault();
  });
  redraw({});
}

// (Re)makes `figure` interactive, e.g. after a change of its data-example or data-head.
export async function enhance(figure, merged = []) {
  live.get(figure)?.abort();
  figure.querySelector(".aih-live")?.remove();
  const ctl = new AbortController();
  live.set(figure, ctl);
  const path = `examples/${figure.dataset.example}.json`;
  if (!loaded.has(path)) loaded.set(path, fetchJSON(path));
  const ex = await loaded.get(path);
  const need = ["Q", "K", "V", "weights", "entropy"];
  if (!need.every((k) => ex.steps?.[k])) throw new Error(`${path}: steps need ${need}`);
  if (ctl.signal.aborted) return;
  heatmap(figure, ex, ctl.signal);
  for (const f of merged) f.classList.add("aih-merged");
}

globalThis.document$?.subscribe(() => {
  for (const ctl of live.values()) ctl.abort(); // the previous page's listeners
  live.clear();
  const groups = [];
  for (const f of document.querySelectorAll("figure.aih-heatmap[data-example][data-quantity]")) {
    const g = groups.at(-1);
    if (g?.at(-1) === f.previousElementSibling && g[0].dataset.example === f.dataset.example) g.push(f);
    else groups.push([f]);
  }
  for (const [f, ...merged] of groups) enhance(f, merged);
});
