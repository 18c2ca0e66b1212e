// The Problems page: Check, Hint, Solution and New variant for each <div class="aih-problem" data-src=…>
// of figures_src/problems_render.py, rebuilt from problems/<set>.json (every number comes from the build).
// Nothing is sent anywhere; localStorage keeps which variant each set shows.
import { formatNumber } from "./attention-math.js";

const ROOT = new URL("../", import.meta.url); // this file is <site>/javascripts/problems.js
let live = null; // AbortController of the current page

// The page's number, as figures_src/problems_sets.fmt: 4 decimals at most, no trailing zeros.
export const fmt = (x) =>
  x === null ? "−∞" : x === true ? "1" : x === false ? "0" : formatNumber(x, 4).replace(/\.?0+$/, "");

// One typed entry against its answer -> "right" | "wrong" | "empty" | "bad" (not a number).
export function judge(text, want, tolerance) {
  const t = text.trim().replace(/^[−–]/, "-");
  if (!t) return "empty";
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return "bad";
  return Math.abs(t - want) <= tolerance + 1e-9 ? "right" : "wrong";
}

const store = (key, value) => {
  try {
    return value === undefined ? localStorage[key] : (localStorage[key] = value);
  } catch {} // storage off: the page just forgets
};

// h("p", {class: "x"}, "text", child): strings become text nodes, never markup.
function h(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  e.append(...kids);
  return e;
}

// A table with row and column labels; cell(i, j, rowLabel, colLabel) fills each body cell.
const table = (m, cls, cell, caption = m.label) =>
  h("div", { class: "aih-problem-scroll" }, h("table", { class: cls },
    ...(caption ? [h("caption", {}, caption)] : []),
    h("thead", {}, h("tr", {}, h("td"), ...m.cols.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...m.rows.map((r, i) =>
      h("tr", {}, h("th", { scope: "row" }, r), ...m.cols.map((c, j) => h("td", {}, cell(i, j, r, c))))))));

const matrix = (m) => table(m, "aih-problem-matrix", (i, j) => fmt(m.values[i][j]));

const grid = (p, k) =>
  h("fieldset", { class: "aih-problem-part" },
    h("legend", {}, p.label + " ", h("span", { class: "aih-problem-tolerance" }, `(${p.tolerance ? "±" + fmt(p.tolerance) : "exact"})`)),
    table(p, "aih-problem-grid", (i, j, r, c) => h("input", {
      type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false",
      "data-part": k, "data-row": i, "data-col": j,
      "aria-label": `${p.label}, row ${i + 1} (${r}), column ${j + 1} (${c})`,
    }), null));

class Problem {
  constructor(root, data, signal) {
    this.root = root;
    this.data = data;
    this.key = `aih-problems:${data.set}`;
    this.index = Math.min(Number(store(this.key)) || 0, data.variants.length - 1);
    this.$ = (s) => root.querySelector(s);
    this.$(".aih-problem__actions").hidden = false;
    this.$(".aih-problem__all-hints").hidden = true; // one at a time now
    this.$('[data-action="check"]').type = "submit"; // so Enter in a cell checks
    const on = (type, fn) => root.addEventListener(type, fn, { signal });
    on("submit", (e) => (e.preventDefault(), this.check()));
    on("click", (e) => {
      const action = e.target.closest("[data-action]")?.dataset.action;
      if (action && action !== "check") this[action]();
    });
    on("input", (e) => (e.target.removeAttribute("aria-invalid"), (e.target.parentNode.className = "")));
    this.show();
  }

  say(text) {
    this.$(".aih-problem__status").textContent = text;
  }

  show() {
    const v = (this.v = this.data.variants[this.index]);
    this.$(".aih-problem__number").textContent = this.index + 1;
    this.$(".aih-problem__id").textContent = v.id;
    this.$(".aih-problem__prompt").textContent = v.prompt;
    this.$(".aih-problem__inputs").replaceChildren(...v.inputs.map(matrix));
    this.root.querySelectorAll(".aih-problem-part").forEach((f) => f.remove());
    this.$("form").prepend(...v.parts.map(grid));
    this.$(".aih-problem__steps").replaceChildren(
      ...v.solution.flatMap((s) => [h("p", {}, s.text), ...(s.matrix ? [matrix(s.matrix)] : [])]));
    this.$(".aih-problem__solution").open = false;
    Object.assign(this.$(".aih-problem__hints"), { hidden: true }).replaceChildren();
    this.say("");
  }

  check() {
    const n = { right: 0, wrong: 0, empty: 0, bad: 0 };
    const off = [];
    const inputs = this.root.querySelectorAll(".aih-problem-grid input");
    for (const input of inputs) {
      const { part, row, col } = input.dataset;
      const p = this.v.parts[part];
      const state = judge(input.value, p.values[row][col], p.tolerance);
      const bad = ++n[state] && (state === "wrong" || state === "bad");
      input.parentNode.className = state === "empty" ? "" : `aih-${state}`;
      if (bad) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
      if (bad) off.push(`${this.v.parts[1] ? p.label + " " : ""}row ${+row + 1} column ${+col + 1}`);
    }
    const all = inputs.length;
    this.say((n.right === all ? `All ${all} entries are right.` : `${n.right} of ${all} right.`)
      + (n.wrong ? ` ${n.wrong} wrong.` : "")
      + (n.bad ? ` ${n.bad} not a number: type a decimal such as 0.25 or −1.5.` : "")
      + (off.length ? ` Look again at ${off.join("; ")}.` : "")
      + (n.empty ? ` ${n.empty} still empty.` : ""));
  }

  hint() {
    const list = this.$(".aih-problem__hints");
    const { hints } = this.v;
    const n = list.children.length;
    list.hidden = false;
    if (n < hints.length) list.append(h("li", {}, hints[n])); // the list is aria-live: it is read out
    else this.say("No more hints: open the solution.");
  }

  solution() {
    const details = this.$(".aih-problem__solution");
    details.open = true;
    details.querySelector("summary").focus();
  }

  next() {
    this.index = (this.index + 1) % this.data.variants.length;
    store(this.key, String(this.index));
    this.show();
    this.say(`Variant ${this.index + 1} of ${this.data.variants.length}: new inputs, empty answers.`);
  }
}

function setup() {
  live?.abort(); // the previous page's listeners and fetches
  live = new AbortController();
  const { signal } = live;
  for (const root of document.querySelectorAll(".aih-problem[data-src]")) {
    fetch(new URL(root.dataset.src, ROOT), { signal })
      .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${r.status} for ${r.url}`))))
      .then((data) => signal.aborted || new Problem(root, data, signal))
      .catch((e) => signal.aborted || (root.querySelector(".aih-problem__status").textContent =
        `The problem's data did not load (${e.message}); the hints and solution below still work.`));
  }
}

globalThis.document$?.subscribe(setup);
