// Each <figure class="aih-heatmap" data-example data-quantity [data-head]> gets a copy of overrides/main.html's
// <template id="aih-heatmap">, filled from examples/<id>.json with text nodes. Adjacent figures of one example
// become one. To show another example or head: set data-example / data-head and call enhance(figure).
import * as A from "./attention-math.js";

const NAMES = { scores: "raw score", scaled_scores: "scaled score", weights: "weight" };
const fmt = A.formatNumber;
const vec = (v) => `[${v.map((x) => fmt(x)).join(", ")}]`;
const live = new Map(); // figure -> AbortController of its listeners
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
    const first = pub ? (lead ? pub : [pub]).map((x) => maskName(x, causal)).find((x) => x !== "causal") || "causal" : "none";
    const panel = document.getElementById("aih-heatmap").content.firstElementChild.cloneNode(true);
    const slot = {};
    for (const e of panel.querySelectorAll("[data-slot]")) (slot[e.dataset.slot] ||= []).push(e);
    const on = (el, type, fn) => el.addEventListener(type, fn, { signal });
    const pick = (a) => (lead ? a[this.st.lead] : a);
    const st = { mode: f.dataset.quantity, mult: 1, mask: first, lead: +f.dataset.head || 0, cell: [0, 0], row: null };
    const select = (key, options) => {
      const el = slot[key][0];
      el.append(...options.map((v, k) => h("option", { value: key === "lead" ? k : v }, v)));
      el.value = st[key];
      on(el, "change", () => this.set({ [key]: key === "lead" ? +el.value : el.value }));
    };
    select("mask", [...new Set(["none", "causal", first])]);
    if (lead) {
      slot.leads[0].hidden = false;
      slot.lead[0].before(ex.n_heads ? "Head " : "Sequence ");
      select("lead", [...Array(lead).keys()].map((l) => (ex.n_heads ? `head ${l}` : ex.batch_tokens[l].join(" "))));
    }
    const span = (role, attrs, ...kids) => h("span", { role, ...attrs }, ...kids);
    const heads = [span("columnheader", {}, "q \\ k"), ...Array.from({ length: m }, () => span("columnheader")), span("columnheader", {}, "entropy")];
    const rows = [h("div", { role: "row" }, ...heads)];
    for (let i = 0; i < n; i++) {
      const cells = Array.from({ length: m }, (_, j) => span("gridcell", { tabindex: i || j ? -1 : 0, "data-i": i, "data-j": j }));
      rows.push(h("div", { role: "row" }, span("rowheader"), ...cells, span("gridcell", {}, h("span", {}, h("span")), h("span"))));
    }
    const grid = slot.grid[0];
    const width = Math.max(5, ...[ex.tokens, ex.key_tokens, ex.batch_tokens].flat(2).map((t) => t?.length || 0));
    grid.append(...rows);
    grid.style.setProperty("--aih-cols", `${Math.min(16, width + 2)}ch repeat(${m}, minmax(2.7em, 1fr)) minmax(4.5em, 1.4fr)`);
    Object.assign(this, { ex, st, n, m, pick, first, causal, pub, slot, grid, heads, rows, modes: slot.mode });
    f.querySelector(".aih-figure__graphic").before(panel);
    f.classList.add("aih-on");

    on(slot.modes[0], "click", (e) => e.target.value && this.set({ mode: e.target.value }));
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

  put(values) {
    for (const k in values) for (const e of this.slot[k]) e.textContent = values[k];
  }

  tokens() {
    const { batch_tokens: b, tokens: t, key_tokens: k } = this.ex;
    return b ? [b[this.st.lead], b[this.st.lead]] : [t, k || t];
  }

  set(change) {
    const { ex, st, pick, n, m, slot } = this;
    const s = ex.steps;
    Object.assign(st, change);
    const mask = (this.mask = st.mask === "none" ? null : st.mask === "causal" ? this.causal : pick(this.pub));
    // from the library's own Q Kᵀ when published (JSON writes −∞ as null): the same products as attention/
    const raw = s.scores ? pick(s.scores).map((row) => row.map((x) => x ?? -Infinity)) : A.scores(pick(s.Q), pick(s.K));
    const r = (this.r = A.attendScores(raw, pick(s.V), ex.scale * st.mult, mask));
    if (st.mult === 1 && st.mask === this.first) {
      // nothing changed: the example's own numbers, as the static figure prints them
      r.weights = pick(s.weights);
      r.entropy = pick(s.entropy);
      r.out = ex.n_heads ? s.heads?.[st.lead] || r.out : pick(ex.outputs.out);
    }
    const [qt, kt] = this.tokens();
    const vals = r[st.mode];
    const weights = st.mode === "weights";
    const limit = weights ? 1 : A.scoreLimit(vals);
    const name = NAMES[st.mode];
    for (const b of this.modes) b.setAttribute("aria-pressed", b.value === st.mode);
    slot.slider[0].setAttribute("aria-valuetext", `${fmt(st.mult)} times 1 over root d_k`);
    this.grid.setAttribute("aria-label", `${name}s: queries down, keys across`);
    kt.forEach((t, j) => (this.heads[j + 1].textContent = t));
    for (let i = 0; i < n; i++) {
      const [head, ...cells] = this.rows[i + 1].children;
      const H = fmt(r.entropy[i]);
      head.textContent = qt[i];
      for (let j = 0; j < m; j++) {
        const c = cells[j];
        const masked = mask && !mask[i][j] && st.mode !== "scores";
        const rgb = A.cellColour(vals[i][j], st.mode, limit);
        c.textContent = masked && weights ? "0" : fmt(vals[i][j]);
        c.style.backgroundColor = A.css(rgb);
        c.style.color = A.textColour(rgb);
        c.classList.toggle("aih-masked", !!masked);
        c.setAttribute("aria-label", `${qt[i]} to ${kt[j]}, ${name} ${c.textContent}`);
      }
      cells[m].firstChild.firstChild.style.width = `${(100 * r.entropy[i]) / Math.log(m) || 0}%`; // log m: flat
      cells[m].lastChild.textContent = H;
      cells[m].setAttribute("aria-label", `entropy of ${qt[i]}: ${H} nats`);
    }
    slot.gradient[0].style.background = `linear-gradient(to right,${A.SCALES[weights ? "sequential" : "diverging"].map(A.css)})`;
    slot.hatched[0].hidden = !mask?.flat().includes(false);
    this.put({ scale: `×${fmt(st.mult)} → ${fmt(ex.scale * st.mult)}`, lo: fmt(weights ? 0 : -limit), hi: fmt(limit), quantity: name });
    this.point(...st.cell);
    // follow the output: row i of out is row i of the weights times the value vectors
    const i = st.row;
    this.rows.forEach((row, t) => row.classList.toggle("aih-picked", i !== null && t === i + 1));
    slot.hint[0].hidden = i !== null;
    slot.sum[0].hidden = i === null;
    if (i === null) return;
    this.put({ row: i, rowtoken: qt[i], out: vec(r.out[i]) });
    slot.lines[0].replaceChildren(...pick(s.V).map((v, j) => h("p", {}, `${fmt(r.weights[i][j])} × ${vec(v)} (${kt[j]})`)));
  }

  // the readout: one query-key pair, from the dot product to its weight, and its row's entropy
  point(i, j) {
    const { st, r, ex, pick, m, slot } = this;
    const [qt, kt] = this.tokens();
    const q = pick(ex.steps.Q)[i];
    const k = pick(ex.steps.K)[j];
    const s = r.scaled_scores[i];
    const on = s.map((_, c) => c).filter((c) => s[c] > -Infinity);
    const big = (x) => (x < 1e4 ? fmt(x) : x.toPrecision(3));
    st.cell = [i, j];
    for (const c of this.grid.querySelectorAll("[data-j]")) c.classList.toggle("aih-hl", c.dataset.i == i || c.dataset.j == j);
    this.heads.forEach((c, t) => c.classList.toggle("aih-hl", t === j + 1));
    this.rows.forEach((row, t) => row.firstChild.classList.toggle("aih-hl", t === i + 1));
    this.put({
      qt: qt[i], kt: kt[j], i, j, ij: `${i},${j}`, q: vec(q), k: vec(k), score: fmt(r.scores[i][j]),
      s: s[j] > -Infinity ? fmt(s[j]) : `${fmt(r.scores[i][j] * ex.scale * st.mult)}, masked: −∞`,
      products: q.map((x, c) => (x * k[c] < 0 ? `(${fmt(x * k[c])})` : fmt(x * k[c]))).join(" + "),
      factor: (Math.abs(ex.scale ** 2 * ex.d_k - 1) < 1e-12 ? `1/√${ex.d_k}` : fmt(ex.scale)) + (st.mult === 1 ? "" : ` × ${fmt(st.mult)}`),
      num: big(Math.exp(s[j])), den: big(on.reduce((t, c) => t + Math.exp(s[c]), 0)), w: fmt(r.weights[i][j]),
      H: fmt(r.entropy[i]), m, Hmax: fmt(Math.log(m)),
    });
    slot.terms[0].replaceChildren(...on.flatMap((c, t) => [t ? " + e" : "e", h("sup", {}, fmt(s[c]))]));
    slot.weight[0].hidden = s[j] === -Infinity;
    slot.masked[0].hidden = s[j] > -Infinity;
  }

  focus(i, j, select) {
    const c = this.rows[Math.max(0, Math.min(this.n - 1, i)) + 1].children[Math.max(0, Math.min(this.m - 1, j)) + 1];
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
  if (!["Q", "K", "V", "weights", "entropy"].every((k) => ex.steps?.[k])) throw new Error(`${url}: steps need Q, K, V, weights, entropy`);
  if (ctl.signal.aborted) return;
  new Heatmap(figure, ex, ctl.signal);
  for (const f of merged) f.classList.add("aih-merged");
}

document$.subscribe(() => {
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
