// Each <figure class="aih-heatmap" data-example data-quantity [data-head]> gets overrides/main.html's
// <template id="aih-heatmap">, filled from examples/<id>.json with text nodes. Other example or head: set
// data-example / data-head, call enhance(figure); or <button data-aih-target="<figure id>" data-aih-head="3">.
import * as A from "./attention-math.js";

const MODES = { scores: "raw score", scaled_scores: "scaled score", weights: "weight" };
const fmt = A.formatNumber;
const vec = (v) => `[${v.map((x) => fmt(x)).join(", ")}]`;
const live = new Map(); // figure or document -> AbortController of its listeners
const loaded = new Map(); // url -> example

function h(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  e.append(...kids);
  return e;
}
const same = (a, b) => a.every((r, i) => r.every((x, j) => x === b[i][j]));
const maskName = (m, c) =>
  same(m, c) ? "causal" : m.every((r) => same([r], m.slice(-1))) ? "padding" : same(m, c.map((r) => r.map((x, j) => x && m.at(-1)[j]))) ? "padding + causal" : "published";

class Heatmap {
  constructor(f, ex, signal) {
    const { Q, K } = ex.steps;
    const pub = ex.inputs.mask;
    const lead = Array.isArray(Q[0][0]) && Q.length; // heads or sequences on a leading axis
    const n = (lead ? Q[0] : Q).length;
    const m = (lead ? K[0] : K).length;
    const causal = A.causalMask(n, m);
    const pick = (a) => (lead ? a[this.st.lead] : a);
    const first = pub ? (lead ? pub : [pub]).map((x) => maskName(x, causal)).find((x) => x !== "causal") || "causal" : "none";
    const panel = document.getElementById("aih-heatmap").content.firstElementChild.cloneNode(true);
    const slot = (this.slot = {});
    for (const e of panel.querySelectorAll("[data-slot]")) (slot[e.dataset.slot] ||= []).push(e);
    Object.assign(this, { ex, n, m, pick, first, causal, pub, modes: panel.querySelectorAll("[data-mode]") });
    this.st = { mode: f.dataset.quantity, mult: 1, mask: first, lead: +f.dataset.head || 0, cell: [0, 0], row: null };

    const on = (el, type, fn) => el.addEventListener(type, fn, { signal });
    const select = ([el], key, options) => {
      el.append(...options.map(([v, t]) => h("option", { value: v }, t)));
      el.value = this.st[key];
      on(el, "change", () => this.set({ [key]: key === "lead" ? +el.value : el.value }));
    };
    select(slot.mask, "mask", [...new Set(["none", "causal", first])].map((k) => [k, k]));
    if (lead) {
      slot["lead-label"][0].hidden = false;
      this.put("lead-name", ex.n_heads ? "Head" : "Sequence");
      select(slot.lead, "lead", [...Array(lead).keys()].map((l) => [l, ex.n_heads ? `head ${l}` : ex.batch_tokens[l].join(" ")]));
    }
    const span = (role, attrs, ...kids) => h("span", { role, ...attrs }, ...kids);
    this.heads = [span("columnheader", { class: "aih-corner" }, "q \\ k"), ...Array.from({ length: m }, () => span("columnheader")), span("columnheader", {}, "entropy")];
    this.rows = [h("div", { role: "row" }, ...this.heads)];
    this.cells = [];
    for (let i = 0; i < n; i++) {
      this.cells.push(Array.from({ length: m }, (_, j) => span("gridcell", { tabindex: -1, "data-i": i, "data-j": j })));
      const ent = span("gridcell", { class: "aih-ent" }, h("span", { class: "aih-track" }, h("span", { class: "aih-bar" })), h("span"));
      this.rows.push(h("div", { role: "row" }, span("rowheader"), ...this.cells[i], ent));
    }
    this.cells[0][0].tabIndex = 0;
    const grid = (this.grid = slot.grid[0]);
    const width = Math.max(5, ...[ex.tokens, ex.key_tokens, ex.batch_tokens].flat(2).map((t) => t?.length || 0));
    grid.append(...this.rows);
    grid.style.setProperty("--aih-cols", `${Math.min(15, width + 1)}ch repeat(${m}, minmax(2.7em, 1fr)) minmax(4.5em, 1.4fr)`);
    f.querySelector(".aih-figure__graphic").before(panel);
    f.classList.add("aih-on");

    on(this.modes[0].parentNode, "click", (e) => e.target.dataset.mode && this.set({ mode: e.target.dataset.mode }));
    on(slot.slider[0], "input", (e) => this.set({ mult: 10 ** e.target.value }));
    const cell = (type, fn) =>
      on(grid, type, (e) => {
        const c = e.target.closest("[data-j]");
        if (c) fn(+c.dataset.i, +c.dataset.j, e);
      });
    cell("pointerover", (i, j) => this.point(i, j));
    cell("focusin", (i, j) => this.point(i, j));
    cell("click", (i, j) => this.focus(i, j, true));
    cell("keydown", (i, j, e) => {
      const to = {
        ArrowUp: [i - 1, j], ArrowDown: [i + 1, j], ArrowLeft: [i, j - 1], ArrowRight: [i, j + 1],
        Home: [e.ctrlKey ? 0 : i, 0], End: [e.ctrlKey ? n - 1 : i, m - 1], PageUp: [0, j], PageDown: [n - 1, j],
      }[e.key];
      if (e.key === "Enter" || e.key === " ") this.set({ row: i });
      else if (to) this.focus(...to);
      else return;
      e.preventDefault();
    });
    this.set({});
  }

  put(name, text) {
    for (const e of this.slot[name]) e.textContent = text;
  }

  tokens() {
    const { batch_tokens: b, tokens: t, key_tokens: k } = this.ex;
    return b ? [b[this.st.lead], b[this.st.lead]] : [t, k || t];
  }

  // the example's own numbers where the reader changed nothing
  set(change) {
    const { ex, st, pick, n, m } = this;
    const s = ex.steps;
    Object.assign(st, change);
    const mask = (this.mask = st.mask === "none" ? null : st.mask === "causal" ? this.causal : pick(this.pub));
    const r = (this.r = A.attend(pick(s.Q), pick(s.K), pick(s.V), ex.scale * st.mult, mask));
    if (st.mult === 1 && st.mask === this.first) {
      const json = (M) => pick(M).map((row) => row.map((x) => x ?? -Infinity)); // JSON writes −∞ as null
      if (s.scores) r.scores = json(s.scores);
      if (s.scaled_scores) r.scaled_scores = A.scaleScores(json(s.scaled_scores), 1, mask);
      r.weights = pick(s.weights);
      r.entropy = pick(s.entropy);
      r.out = ex.n_heads ? s.heads?.[st.lead] || r.out : pick(ex.outputs.out);
    }
    const [qt, kt] = this.tokens();
    const vals = r[st.mode];
    const weights = st.mode === "weights";
    const limit = weights ? 1 : A.scoreLimit(vals);
    const { slider, gradient, hatched, hint, sum, lines } = this.slot;
    for (const b of this.modes) b.setAttribute("aria-pressed", b.dataset.mode === st.mode);
    this.put("scale", `×${fmt(st.mult)} → ${fmt(ex.scale * st.mult)}`);
    slider[0].setAttribute("aria-valuetext", `${fmt(st.mult)} times 1 over root d_k`);
    this.grid.setAttribute("aria-label", `${MODES[st.mode]}s: queries down, keys across`);
    kt.forEach((t, j) => (this.heads[j + 1].textContent = t));
    for (let i = 0; i < n; i++) {
      const [head, ...cells] = this.rows[i + 1].children;
      head.textContent = qt[i];
      for (let j = 0; j < m; j++) {
        const c = cells[j];
        const masked = mask && !mask[i][j] && st.mode !== "scores";
        const rgb = A.cellColour(vals[i][j], st.mode, limit);
        c.textContent = masked && weights ? "0" : fmt(vals[i][j]);
        c.style.backgroundColor = A.css(rgb);
        c.style.color = A.textColour(rgb);
        c.classList.toggle("aih-masked", !!masked);
        c.setAttribute("aria-label", `${qt[i]} to ${kt[j]}, ${MODES[st.mode]} ${c.textContent}`);
      }
      const H = fmt(r.entropy[i]);
      cells[m].firstChild.firstChild.style.width = `${(100 * r.entropy[i]) / Math.log(m) || 0}%`;
      cells[m].lastChild.textContent = H;
      cells[m].setAttribute("aria-label", `entropy of ${qt[i]}: ${H} nats`);
    }
    gradient[0].style.background = `linear-gradient(to right,${A.SCALES[weights ? "sequential" : "diverging"].map(A.css)})`;
    this.put("lo", fmt(weights ? 0 : -limit));
    this.put("hi", fmt(limit));
    this.put("quantity", MODES[st.mode]);
    hatched[0].hidden = !mask?.flat().includes(false);
    this.point(...st.cell);
    // follow the output of row i
    const i = st.row;
    this.rows.forEach((row, t) => row.classList.toggle("aih-picked", i !== null && t === i + 1));
    hint[0].hidden = i !== null;
    sum[0].hidden = i === null;
    if (i === null) return;
    this.put("row", i);
    this.put("rowtoken", qt[i]);
    lines[0].replaceChildren(...pick(s.V).map((v, j) => h("p", {}, `${fmt(r.weights[i][j])} × ${vec(v)} (${kt[j]})`)));
    this.put("out", vec(r.out[i]));
  }

  // the readout for one query-key pair
  point(i, j) {
    const { st, r, ex, pick, m } = this;
    const [qt, kt] = this.tokens();
    const q = pick(ex.steps.Q)[i];
    const k = pick(ex.steps.K)[j];
    const s = r.scaled_scores[i];
    const on = s.map((_, c) => c).filter((c) => s[c] > -Infinity);
    const e = (x) => ["e", h("sup", {}, fmt(x))];
    const big = (x) => (x < 1e4 ? fmt(x) : x.toPrecision(3));
    const base = Math.abs(ex.scale * Math.sqrt(ex.d_k) - 1) < 1e-12 ? `1/√${ex.d_k}` : fmt(ex.scale);
    st.cell = [i, j];
    for (const c of this.cells.flat()) c.classList.toggle("aih-hl", c.dataset.i == i || c.dataset.j == j);
    this.heads.forEach((c, t) => c.classList.toggle("aih-hl", t === j + 1));
    this.rows.forEach((row, t) => row.firstChild.classList.toggle("aih-hl", t === i + 1));
    const values = {
      qt: qt[i], kt: kt[j], i, j, ij: `${i},${j}`, q: vec(q), k: vec(k), score: fmt(r.scores[i][j]), s: fmt(s[j]),
      products: q.map((x, c) => (x * k[c] < 0 ? `(${fmt(x * k[c])})` : fmt(x * k[c]))).join(" + "),
      factor: base + (st.mult === 1 ? "" : ` × ${fmt(st.mult)}`),
      num: big(Math.exp(s[j])), den: big(on.reduce((t, c) => t + Math.exp(s[c]), 0)), w: fmt(r.weights[i][j]),
      H: fmt(r.entropy[i]), m, Hmax: fmt(Math.log(m)),
    };
    for (const name in values) this.put(name, values[name]);
    this.slot.terms[0].replaceChildren(...on.flatMap((c, t) => [t ? " + " : "", ...e(s[c])]));
    this.slot.weight[0].hidden = s[j] === -Infinity;
    this.slot.masked[0].hidden = s[j] > -Infinity;
  }

  focus(i, j, select) {
    const c = this.cells[Math.max(0, Math.min(this.n - 1, i))][Math.max(0, Math.min(this.m - 1, j))];
    this.grid.querySelector("[tabindex='0']").tabIndex = -1;
    c.tabIndex = 0;
    c.focus();
    if (select) this.set({ row: +c.dataset.i });
  }
}

// (Re)make `figure` interactive; hide the `merged` figures once it is.
export async function enhance(figure, merged = []) {
  live.get(figure)?.abort();
  figure.querySelector(".aih-live")?.remove();
  const ctl = new AbortController();
  live.set(figure, ctl);
  const url = new URL(`../examples/${figure.dataset.example}.json`, import.meta.url).href; // we are <site>/javascripts/
  if (!loaded.has(url)) loaded.set(url, fetch(url).then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${url}: ${r.status}`)))));
  const ex = await loaded.get(url);
  if (ctl.signal.aborted) return;
  new Heatmap(figure, ex, ctl.signal);
  for (const f of merged) f.classList.add("aih-merged");
}

function setup() {
  for (const ctl of live.values()) ctl.abort();
  live.clear();
  const groups = [];
  for (const f of document.querySelectorAll("figure.aih-heatmap[data-example][data-quantity]")) {
    const g = groups.at(-1);
    if (g?.at(-1) === f.previousElementSibling && g[0].dataset.example === f.dataset.example) g.push(f);
    else groups.push([f]);
  }
  for (const [f, ...merged] of groups) enhance(f, merged);
  const { signal } = live.set(document, new AbortController()).get(document);
  for (const b of document.querySelectorAll("[data-aih-target]")) {
    const show = () => {
      const f = document.getElementById(b.dataset.aihTarget);
      Object.assign(f.dataset, { example: b.dataset.aihExample || f.dataset.example, head: b.dataset.aihHead || 0 });
      enhance(f);
    };
    b.addEventListener("click", show, { signal });
  }
}

document$.subscribe(setup);
