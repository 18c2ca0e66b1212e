// The JavaScript half of tests/test_contract.py: reads {rule: [case, ...]} as JSON on stdin, writes {rule:
// [result, ...]} on stdout, each case run through the page's own function. Run with the contract loader
// (node --import ./tests/js/contract-loader.mjs tests/js/parity.mjs), as the unit tests are. JSON has no
// -Infinity, NaN or -0: those travel as the strings "-Infinity", "Infinity", "NaN" and "-0".
import { cellColour, formatCell, formatNumber, SCALES, textColour } from "../../docs/javascripts/attention-math.js";
import * as contract from "../../docs/javascripts/contract.js";
import * as problemsContract from "../../docs/javascripts/contract-problems.js";
import { exampleProblem } from "../../docs/widgets/heatmap/heatmap.js";

// problems.js's typeset builds <sub> elements: here they are written out as the build writes them, escaped
const escape = (text) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
globalThis.document = {
  createElement: (tag) => ({ tag, children: [], setAttribute() {}, append(...children) { this.children.push(...children); } }),
};
const { fmt, typeset } = await import("../../docs/widgets/problems/problems.js");
const html = (pieces) => pieces.map((piece) => (typeof piece === "string" ? escape(piece)
  : `<${piece.tag}>${escape(piece.children.join(""))}</${piece.tag}>`)).join("");

const SPECIAL = { "-Infinity": -Infinity, Infinity: Infinity, NaN: NaN, "-0": -0 };
const number = (x) => (typeof x === "string" && x in SPECIAL ? SPECIAL[x] : x);
const numbers = (value) => (Array.isArray(value) ? value.map(numbers) : value && typeof value === "object"
  ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, numbers(item)])) : number(value));
// a thrown error is a result too: {error: its message}; a rule may answer later (exampleProblem loads its words)
const attempt = async (run) => {
  try {
    return await run();
  } catch (error) {
    return { error: error.message };
  }
};

const RULES = {
  num: ([x, digits]) => formatNumber(number(x), digits),
  cell: (x) => formatCell(number(x)),
  fmt: (x) => fmt(x),
  typeset: (text) => html(typeset(text)),
  textColour: (rgb) => textColour(rgb),
  cellColour: ([x, quantity, limit]) => cellColour(number(x), quantity, limit),
  exampleProblem: ([example, head]) => exampleProblem(numbers(example), head ?? undefined),
};

let input = "";
for await (const chunk of process.stdin) input += chunk;
const cases = JSON.parse(input);
const results = Object.fromEntries(await Promise.all(Object.entries(cases).map(async ([rule, list]) =>
  [rule, await Promise.all(list.map((item) => attempt(() => RULES[rule](item))))])));
results.contract = { ...contract, ...problemsContract, SUBSCRIPTED: problemsContract.SUBSCRIPTED.source, SCALES };
process.stdout.write(JSON.stringify(results));
