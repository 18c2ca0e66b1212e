// Can the interactive heatmap draw this worked example's JSON? Pure, no DOM: heatmap.js asks before it
// touches the page, and keeps the static figure (with a note) when the answer is a problem. The steps it draws
// from, DRAWN_STEPS, and MAX_TOKENS, above which the grid is too slow and too small to read, are the build's
// (figures_src/engine/embed.py, via contract.js).
import { DRAWN_STEPS, MAX_TOKENS } from "./contract.js";

const isNumber = (x) => Number.isFinite(x); // false for null (a JSON −∞), strings, NaN
const isBoolean = (x) => typeof x === "boolean";

// what is wrong with `value` as `rows` lists of `columns` entries that pass `isEntry`, or "" when nothing
function tableProblem(value, rows, columns, isEntry = isNumber) {
  if (!Array.isArray(value) || value.length !== rows) return ` is not ${rows} rows`;
  const bad = value.findIndex((row) => !Array.isArray(row) || row.length !== columns || !row.every(isEntry));
  return bad < 0 ? "" : ` row ${bad} is not ${columns} ${isEntry === isNumber ? "finite numbers" : "booleans"}`;
}

// What the widget cannot draw in `example` (the parsed JSON), in a few words, or "" when it can draw it.
// head: the figure's data-head (a string, or undefined).
export function exampleProblem(example, head) {
  const { steps, outputs, inputs, n_heads: heads, batch_tokens: batch, leading_axis: axis } = example || {};
  if (!steps || !DRAWN_STEPS.every((name) => Array.isArray(steps[name]))) {
    return `steps ${DRAWN_STEPS.slice(0, -1).join(", ")} and ${DRAWN_STEPS.at(-1)} are not all there`;
  }
  if (!isNumber(example.scale) || !(example.d_k > 0)) return "scale or d_k is not a number";
  // heads, sequences or another axis that names itself (a training run's steps) first: Q is a list of matrices
  const leadCount = Array.isArray(steps.Q[0]?.[0]) ? steps.Q.length : 0;
  if (axis !== undefined && !(typeof axis?.name === "string" && axis.name && Array.isArray(axis.labels) &&
    axis.labels.length === leadCount && axis.labels.every((label) => typeof label === "string" && label))) {
    return `leading_axis is not a name and ${leadCount} labels`;
  }
  const leadLabel = (lead) => (axis ? `${axis.name} ${axis.labels[lead]}` : `${heads ? "head" : "sequence"} ${lead}`);
  if (head !== undefined && !(/^\d+$/.test(head) && head < Math.max(leadCount, 1))) return `there is no head ${head}`;
  if (leadCount && !heads && batch?.length !== leadCount && !axis) {
    return "its leading axis is neither heads, a batch nor named by leading_axis";
  }
  for (let lead = 0; lead < (leadCount || 1); lead++) {
    const pick = (array) => (leadCount ? array?.[lead] : array);
    const [Q, K, V] = [pick(steps.Q), pick(steps.K), pick(steps.V)];
    const count = Q?.length;
    if (count > MAX_TOKENS || K?.length > MAX_TOKENS) {
      return `${count} × ${K.length} is above the ${MAX_TOKENS} × ${MAX_TOKENS} it draws`;
    }
    const tokens = leadCount && !heads && !axis ? batch[lead] : example.tokens;
    if (!count || K?.length !== count || !Array.isArray(tokens) || tokens.length !== count) {
      return "its queries, keys and tokens do not match";
    }
    const width = Q[0]?.length;
    const valueWidth = V?.[0]?.length;
    const checks = {
      Q: tableProblem(Q, count, width),
      K: tableProblem(K, count, width),
      V: tableProblem(V, count, valueWidth),
      weights: tableProblem(pick(steps.weights), count, count),
      entropy: tableProblem([pick(steps.entropy)], 1, count),
      scores: steps.scores && tableProblem(pick(steps.scores), count, count),
      heads: steps.heads && tableProblem(pick(steps.heads), count, valueWidth),
      out: !heads && tableProblem(pick(outputs?.out), count, valueWidth),
      mask: inputs?.mask && tableProblem(pick(inputs.mask), count, count, isBoolean),
    };
    const name = Object.keys(checks).find((key) => checks[key]);
    if (name) return `${name}${leadCount ? ` (${leadLabel(lead)})` : ""}${checks[name]}`;
  }
  return "";
}
