// The Problems page: Check, Hint, Solution and New variant for each <div class="aih-problem" data-src=…>
// (its static markup: figures_src/pages/problems/html.py), from problems/<set>.json. localStorage keeps the
// variant each set shows, nothing the reader typed.
import { formatNumber } from "../../javascripts/attention-math.js";
import { PROBLEM_DIGITS, PROBLEM_WIDE_CHARS, SUBSCRIPTED } from "../../javascripts/contract-problems.js";
import { fetchChecked, fill, h, loadNearViewport, strings } from "../../javascripts/dom.js";

const S = await strings("problems"); // the words this script writes (words/scripts/problems.md)
// items joined by the table's `<kind>/more` ("{{ head }}; {{ item }}"): a language has its own separators
const joined = (items, kind) => items.reduce((head, item) => fill(S[`${kind}/more`], { head, item }));

// a problem's number, as figures_src/pages/problems/sets.py's fmt (text.py's num, trimmed): at most 4 decimals, no
// trailing zeros, the whole part grouped in threes by commas (7,680); null (a JSON −∞) is −∞, a mask's booleans 1 and 0
const grouped = (text) => text.replace(/^(\D*)(\d+)/, (_, sign, whole) => sign + whole.replace(/\B(?=(\d{3})+$)/g, ","));
export const fmt = (x) => (x === null ? "−∞" : grouped(formatNumber(+x, PROBLEM_DIGITS).replace(/\.?0+$/, "")));

// a reader's entry -> "right" | "wrong" | "empty" | "bad" (not a number); a true minus or a dash counts as minus, and
// the whole part may be grouped in threes by commas or thin spaces (7,680 or 7 680, as fmt prints it; 0,25 is not)
const GROUPED = /^[-+]?[1-9]\d{0,2}([,\u2009\u202f ]\d{3})+(\.\d*)?$/;
export function judge(text, want, tolerance) {
  let entry = text.trim().replace(/^[−–]/, "-");
  if (!entry) return "empty";
  if (GROUPED.test(entry)) entry = entry.replace(/[,\u2009\u202f ]/g, "");
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(entry)) return "bad";
  return Math.abs(entry - want) <= tolerance + 1e-9 ? "right" : "wrong";
}

// The first of a part's slips (common wrong answers, computed by the build) that explains the reader's entries:
// each typed entry matches the slip within the part's tolerance and at least one is wrong. `entries` are
// {row, col, text, verdict} as judged against the right answer; nothing here computes a number.
export function matchSlip(entries, slips, tolerance) {
  const typed = entries.filter((entry) => entry.verdict !== "empty");
  if (!typed.some((entry) => entry.verdict === "wrong") || typed.some((entry) => entry.verdict === "bad")) return null;
  return slips.find((slip) => typed.every(({ row, col, text }) => judge(text, slip.values[row][col], tolerance) === "right")) ?? null;
}

// The variant a stored value names: only the digits of an index below `count` (what nextVariant stores);
// anything else (2.5, -1, -Infinity, an edited or foreign value) means the first variant.
export function storedVariant(stored, count) {
  const index = /^\d{1,9}$/.test(stored ?? "") ? Number(stored) : 0;
  return index < count ? index : 0;
}

// A browser with storage turned off throws: then the page forgets.
function recall(key) {
  try {
    return localStorage[key];
  } catch {}
}

function remember(key, value) {
  try {
    localStorage[key] = value;
  } catch {}
}

// Plain text with its subscripts set as <sub>: "W_Q" -> W<sub>Q</sub>, as figures_src/engine/text.py's typeset
// (whose pattern, SUBSCRIPTED, the contract brings)
export const typeset = (text) =>
  text.split(SUBSCRIPTED).map((piece, k) => (k % 3 === 2 ? h("sub", {}, piece) : piece)).filter((piece) => piece !== "");

// The tables of html.py: a header row of column labels, then per row its label and
// cellContent(i, j, rowLabel, columnLabel) in each cell.
const table = (matrix, className, cellContent, caption) =>
  h("div", { class: "aih-problem-scroll" },
    h("table", { class: className },
      ...(caption ? [h("caption", {}, ...typeset(caption))] : []),
      h("thead", {}, h("tr", {}, h("td"), ...matrix.cols.map((label) => h("th", { scope: "col" }, ...typeset(label))))),
      h("tbody", {}, ...matrix.rows.map((rowLabel, i) =>
        h("tr", {}, h("th", { scope: "row" }, rowLabel),
          ...matrix.cols.map((columnLabel, j) => h("td", {}, cellContent(i, j, rowLabel, columnLabel))))))));

const matrixTable = (matrix) => table(matrix, "aih-problem-matrix", (i, j) => fmt(matrix.values[i][j]), matrix.label);

// an answer grid whose answers print longer than PROBLEM_WIDE_CHARS gets wider boxes, as html.py's grid_class
export const gridClass = (part) =>
  part.values.flat().some((x) => fmt(x).length > PROBLEM_WIDE_CHARS) ? "aih-problem-grid aih-problem-grid--wide" : "aih-problem-grid";

// one text input per entry of the part the reader computes
const answerGrid = (part, partIndex) =>
  h("fieldset", { class: "aih-problem-part" },
    h("legend", {}, ...typeset(`${part.label} `),
      h("span", { class: "aih-problem-tolerance" }, `(${part.tolerance ? "±" + fmt(part.tolerance) : S.exact})`)),
    table(part, gridClass(part), (i, j, rowLabel, columnLabel) => h("input", {
      type: "text", inputmode: "decimal", autocomplete: "off", spellcheck: "false",
      "data-part": partIndex, "data-row": i, "data-col": j,
      "aria-label": fill(S.entry, { part: part.label, row: i + 1, row_label: rowLabel, column: j + 1, column_label: columnLabel }),
    })));

class Problem {
  constructor(root, data) {
    this.root = root;
    this.variants = data.variants;
    this.storageKey = `aih-problems:${data.set}`;
    this.variantIndex = storedVariant(recall(this.storageKey), this.variants.length);
    const actions = { hint: () => this.showNextHint(), solution: () => this.openSolution(), next: () => this.nextVariant() };
    const on = (type, handler) => root.addEventListener(type, handler);
    on("submit", (event) => { // Check, or Enter in a cell
      event.preventDefault();
      this.check();
    });
    on("click", (event) => actions[event.target.closest("button[type=button]")?.dataset.action]?.());
    on("input", (event) => {
      event.target.ariaInvalid = null;
      event.target.parentNode.className = "";
    });
    this.part("solution").addEventListener("toggle", () => this.showSteps());
    this.redraw(); // before the static hints give way: if this throws, they stay, as the status line says
    root.classList.add("aih-on"); // CSS shows the buttons, hides the static hints
  }

  get variant() {
    return this.variants[this.variantIndex];
  }

  part(name) {
    return this.root.querySelector(`.aih-problem__${name}`);
  }

  say(text) {
    this.part("status").replaceChildren(...typeset(text));
  }

  // The variant shown: its inputs, empty answers, its solution closed (its steps written when it opens), no
  // hints yet.
  redraw() {
    const { variant } = this;
    this.part("number").textContent = this.variantIndex + 1;
    this.part("id").textContent = variant.id;
    this.part("prompt").replaceChildren(...typeset(variant.prompt));
    this.part("inputs").replaceChildren(...variant.inputs.map(matrixTable));
    this.part("parts").replaceChildren(...variant.parts.map(answerGrid));
    this.part("steps").replaceChildren();
    this.part("solution").open = false;
    this.part("hints").replaceChildren();
    this.say("");
  }

  check() {
    const counts = { right: 0, wrong: 0, empty: 0, bad: 0 };
    const byPart = this.variant.parts.map(() => []); // each part's entries as judged
    const inputs = this.root.querySelectorAll(".aih-problem-grid input");
    for (const input of inputs) {
      const { part, row, col } = input.dataset;
      const { values, tolerance } = this.variant.parts[part];
      const verdict = judge(input.value, values[row][col], tolerance);
      const invalid = verdict === "wrong" || verdict === "bad";
      counts[verdict]++;
      input.parentNode.className = verdict === "empty" ? "" : `aih-${verdict}`;
      input.ariaInvalid = invalid || null;
      byPart[part].push({ row, col, text: input.value, verdict, label: input.ariaLabel });
    }
    // A part whose entries match a common slip gets that slip named; the others, the labels to look at again.
    const slips = [];
    const toLookAt = [];
    this.variant.parts.forEach(({ label, slips: known = [], tolerance }, k) => {
      const slip = matchSlip(byPart[k], known, tolerance);
      if (slip) slips.push(this.variant.parts.length > 1 ? fill(S.slip, { part: label, slip: slip.message }) : slip.message);
      else toLookAt.push(...byPart[k].filter(({ verdict }) => verdict === "wrong" || verdict === "bad").map((entry) => entry.label));
    });
    const allRight = counts.right === inputs.length;
    this.say(joined([
      allRight ? fill(S["all-right"], { count: counts.right }) : fill(S["some-right"], { right: counts.right, count: inputs.length }),
      counts.wrong && fill(S.wrong, { count: counts.wrong }),
      counts.bad && fill(S.bad, { count: counts.bad }),
      ...slips,
      toLookAt.length && fill(S["look-again"], { entries: joined(toLookAt, "look-again") }),
      counts.empty && fill(S.empty, { count: counts.empty }),
    ].filter(Boolean), "sentences"));
  }

  showNextHint() {
    const hints = this.part("hints");
    const next = this.variant.hints[hints.children.length];
    if (next) hints.append(h("li", {}, ...typeset(next))); // an aria-live list: read out
    else this.say(S["no-more-hints"]);
  }

  // The open solution's steps, written from the variant's data the first time it opens.
  showSteps() {
    const steps = this.part("steps");
    if (!this.part("solution").open || steps.firstElementChild?.localName === "p") return;
    steps.replaceChildren(...this.variant.solution.flatMap((step) =>
      [h("p", {}, ...typeset(step.text)), ...(step.matrix ? [matrixTable(step.matrix)] : [])]));
  }

  openSolution() {
    const solution = this.part("solution");
    solution.open = true;
    this.showSteps();
    solution.querySelector("summary").focus();
  }

  nextVariant() {
    this.variantIndex = (this.variantIndex + 1) % this.variants.length;
    remember(this.storageKey, this.variantIndex);
    this.redraw();
    this.say(fill(S.variant, { number: this.variantIndex + 1, count: this.variants.length }));
  }
}

// The conceptual questions (<div class="aih-quiz" data-src=…>, figures_src/pages/problems/html.py): one form
// per question. Check judges the picked choice against problems/concepts.json and, when it is right, opens
// the explanation.
export function verdict(picked, answer) {
  if (picked === null) return ["", S.pick];
  return Number(picked) === answer ? ["right", S.right] : ["wrong", S["not-this-one"]];
}

function setUpQuiz(root, data) {
  const answers = new Map(data.questions.map((question) => [question.id, question.answer]));
  const on = (type, handler) => root.addEventListener(type, handler);
  on("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const [result, text] = verdict(form.querySelector("input:checked")?.value ?? null, answers.get(form.id));
    form.dataset.verdict = result;
    form.querySelector(".aih-quiz__status").textContent = text;
    if (result === "right") form.querySelector("details").open = true;
  });
  on("change", (event) => (event.target.form.dataset.verdict = "")); // a new pick clears the old verdict
  root.classList.add("aih-on"); // CSS shows the Check buttons
}

// A set after the first keeps its variant's inputs and answer grid in a <noscript class="aih-near"> each
// (figures_src/pages/problems/html.py) until the set is drawn as it nears the viewport (redraw replaces them); a
// reader who arrives in the middle of the page gets them all as the page is parsed (overrides/main.html). Here: a set whose data did
// not load, and a page printed, get them as they are. (With scripting on, a <noscript> holds its markup as text.)
const unwrap = (waiting) => waiting.replaceWith(document.createRange().createContextualFragment(waiting.textContent));
const unwrapAll = (root = document) => root.querySelectorAll("noscript.aih-near").forEach(unwrap);
globalThis.addEventListener?.("beforeprint", () => unwrapAll());

// Once the page is there (document$, the theme's signal), each problem's and quiz's data is fetched when it comes
// within a screen of the viewport, not all on load.
globalThis.document$?.subscribe(() => {
  loadNearViewport(document.querySelectorAll(".aih-problem[data-src], .aih-quiz[data-src]"), (root) => {
    const quiz = root.matches(".aih-quiz");
    fetchChecked(root.dataset.src)
      .then((data) => (quiz ? setUpQuiz(root, data) : new Problem(root, data)))
      .catch((error) => {
        if (quiz) return;
        unwrapAll(root); // the static variant, as without JavaScript
        root.querySelector(".aih-problem__status").textContent = fill(S["not-loaded"], { error: error.message });
      });
  });
});
