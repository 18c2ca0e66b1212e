// The Problems page: Check, Hint, Solution and New variant for each <div class="aih-problem" data-src=…>
// (figures_src/problems_render.py), from problems/<set>.json. localStorage keeps each set's variant.
import { formatNumber } from "./attention-math.js";
import { fetchJSON, h } from "./dom.js";

let live = null; // AbortController of the current page

// as figures_src/problems_sets.fmt: at most 4 decimals, no trailing zeros
export const fmt = (x) =>
  x === null ? "−∞" : typeof x === "boolean" ? `${+x}` : formatNumber(x, 4).replace(/\.?0+$/, "");

// -> "right" | "wrong" | "empty" | "bad" (not a number)
export function judge(text, want, tolerance) {
  const t = text.trim().replace(/^[−–]/, "-");
  if (!t) return "empty";
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return "bad";
  return Math.abs(t - want) <= tolerance + 1e-9 ? "right" : "wrong";
}

const store = (key, value) => {
  try {
    return value === undefined ? localStorage[key] : (localStorage[key] = value);
  } catch {} // storage off: the page forgets
};

// the tables of problems_render.py; cell(i, j, rowLabel, colLabel) fills the body
const table = (m, cls, cell, caption) =>
  h("div", { class: "aih-problem-scroll" }, h("table", { class: cls }, ...(caption ? [h("caption", {}, caption)] : []),
    h("thead", {}, h("tr", {}, h("td"), ...m.cols.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, ...m.rows.map((r, i) =>
      h("tr", {}, h("th", { scope: "row" }, r), ...m.cols.map((c, j) => h("td", {}, cell(i, j, r, c))))))));

const matrix = (m) => table(m, "aih-problem-matrix", (i, j) => fmt(m.values[i][j]), m.label);

const grid = (p, k) =>
  h("fieldset", { class: "aih-problem-part" },
    h("legend", {}, `${p.label} `, h("span", { class: "aih-problem-tolerance" }, `(${p.tolerance ? "±" + fmt(p.tolerance) : "exact"})`)),
    table(p, "aih-problem-grid", (i, j, r, c) => h("input", {
      type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false", "data-part": k, "data-row": i, "data-col": j,
      "aria-label": `${p.label}, row ${i + 1} (${r}), column ${j + 1} (${c})`,
    })));

function problem(root, data, signal) {
  const $ = (s) => root.querySelector(`.aih-problem__${s}`);
  const say = (text) => ($("status").textContent = text);
  const key = `aih-problems:${data.set}`;
  const count = data.variants.length;
  let index = Math.min(+store(key) || 0, count - 1);
  let v;

  const show = () => {
    v = data.variants[index];
    $("number").textContent = index + 1;
    $("id").textContent = v.id;
    $("prompt").textContent = v.prompt;
    $("inputs").replaceChildren(...v.inputs.map(matrix));
    $("parts").replaceChildren(...v.parts.map(grid));
    $("steps").replaceChildren(...v.solution.flatMap((s) => [h("p", {}, s.text), ...(s.matrix ? [matrix(s.matrix)] : [])]));
    $("solution").open = false;
    $("hints").replaceChildren();
    say("");
  };

  const actions = {
    check() {
      const n = { right: 0, wrong: 0, empty: 0, bad: 0 };
      const off = []; // the names of the entries to look at again
      const inputs = root.querySelectorAll(".aih-problem-grid input");
      for (const input of inputs) {
        const { part, row, col } = input.dataset;
        const p = v.parts[part];
        const state = judge(input.value, p.values[row][col], p.tolerance);
        const bad = ++n[state] && (state === "wrong" || state === "bad");
        input.parentNode.className = state === "empty" ? "" : `aih-${state}`;
        input.ariaInvalid = bad || null;
        if (bad) off.push(input.ariaLabel);
      }
      say([
        n.right === inputs.length ? `All ${n.right} entries are right.` : `${n.right} of ${inputs.length} right.`,
        n.wrong && `${n.wrong} wrong.`,
        n.bad && `${n.bad} not a number: type a decimal such as 0.25 or −1.5.`,
        off.length && `Look again at ${off.join("; ")}.`,
        n.empty && `${n.empty} still empty.`,
      ].filter(Boolean).join(" "));
    },
    hint() {
      const next = v.hints[$("hints").children.length];
      if (next) $("hints").append(h("li", {}, next)); // an aria-live list: read out
      else say("No more hints: open the solution.");
    },
    solution() {
      $("solution").open = true;
      $("solution").querySelector("summary").focus();
    },
    next() {
      index = (index + 1) % count;
      store(key, index);
      show();
      say(`Variant ${index + 1} of ${count}: new inputs, empty answers.`);
    },
  };

  const on = (type, fn) => root.addEventListener(type, fn, { signal });
  on("submit", (e) => (e.preventDefault(), actions.check())); // Check, or Enter in a cell
  on("click", (e) => actions[e.target.closest("button[type=button]")?.dataset.action]?.());
  on("input", (e) => ((e.target.ariaInvalid = null), (e.target.parentNode.className = "")));
  root.classList.add("aih-on"); // CSS shows the buttons, hides the static hints
  show();
}

globalThis.document$?.subscribe(() => {
  live?.abort(); // the previous page's listeners and fetches
  live = new AbortController();
  const { signal } = live;
  for (const root of document.querySelectorAll(".aih-problem[data-src]")) {
    fetchJSON(root.dataset.src, signal)
      .then((data) => signal.aborted || problem(root, data, signal))
      .catch((e) => signal.aborted || (root.querySelector(".aih-problem__status").textContent =
        `The problem's data did not load (${e.message}); the hints and solution below still work.`));
  }
});
