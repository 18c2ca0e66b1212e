// What the interactive heatmap accepts before it touches the page (docs/widgets/heatmap/heatmap.js's
// exampleProblem, async: its words load only for a problem): a good example of each layout passes; generated bad ones (missing keys, wrong shapes, non-finite
// numbers, too large) are refused with words naming the culprit. The browser side: tests/browser/test_heatmap_fallback.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import { scoreLimit } from "../../docs/javascripts/attention-math.js";
import { MAX_TOKENS } from "../../docs/javascripts/contract.js";
import { exampleProblem } from "../../docs/widgets/heatmap/heatmap.js";

const matrix = (rows, columns, seed = 1) =>
  Array.from({ length: rows }, (_, i) => Array.from({ length: columns }, (_, j) => Math.sin(seed * (i + 1) + j)));
const rowsOfOnes = (rows, columns) => Array.from({ length: rows }, () => Array(columns).fill(1 / columns));

function single(n = 4, d = 3) {
  return {
    tokens: Array.from({ length: n }, (_, i) => `t${i}`), d_k: d, scale: 1 / Math.sqrt(d),
    inputs: { mask: Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => j <= i)) },
    steps: { Q: matrix(n, d, 1), K: matrix(n, d, 2), V: matrix(n, d, 3), scores: matrix(n, n, 4),
      weights: rowsOfOnes(n, n), entropy: Array(n).fill(Math.log(n)) },
    outputs: { out: matrix(n, d, 5) },
  };
}

function multiHead(heads = 2, n = 3, d = 2) {
  const each = (make) => Array.from({ length: heads }, (_, h) => make(h));
  return {
    tokens: ["a", "b", "c"].slice(0, n), n_heads: heads, d_k: d, scale: 0.5, inputs: {}, outputs: {},
    steps: { Q: each((h) => matrix(n, d, h + 1)), K: each((h) => matrix(n, d, h + 2)), V: each((h) => matrix(n, d, h + 3)),
      weights: each(() => rowsOfOnes(n, n)), entropy: each(() => Array(n).fill(Math.log(n))), heads: each((h) => matrix(n, d, h)) },
  };
}

function batch() {
  const example = multiHead(2, 3, 2);
  delete example.n_heads;
  delete example.steps.heads;
  example.batch_tokens = [["a", "b", "c"], ["d", "e", "<pad>"]];
  example.outputs.out = [matrix(3, 2), matrix(3, 2)];
  example.inputs.mask = [rowsOfOnes(3, 3).map((row) => row.map(() => true)), [[true, true, false], [true, true, false], [true, true, false]]];
  return example;
}

test("good examples of each layout pass: one grid, heads, a padded batch; a head in range passes", async () => {
  assert.equal(await exampleProblem(single()), "");
  assert.equal(await exampleProblem(multiHead()), "");
  assert.equal(await exampleProblem(multiHead(), "1"), "");
  assert.equal(await exampleProblem(batch()), "");
  assert.equal(await exampleProblem(single(MAX_TOKENS, 2)), "");
});

// [what is broken, how to break a good example, the words that must name it]
const BROKEN = [
  ["not an object", () => ({ replaced: null }), /steps/],
  ["an array", () => ({ replaced: [] }), /steps/],
  ["no tokens", (e) => delete e.tokens, /tokens do not match/],
  ["no scale", (e) => delete e.scale, /scale/],
  ["scale null", (e) => (e.scale = null), /scale/],
  ["no outputs", (e) => delete e.outputs, /^out is not 4 rows/],
  ["no steps", (e) => delete e.steps, /steps/],
  ["no entropy", (e) => delete e.steps.entropy, /entropy/],
  ["V shorter than K", (e) => e.steps.V.pop(), /^V is not 4 rows/],
  ["a ragged K", (e) => e.steps.K[2].pop(), /^K row 2 is not 3 finite numbers/],
  ["more keys than queries", (e) => e.steps.K.push([0, 0, 0]), /queries, keys and tokens/],
  ["a null weight (−∞ in JSON)", (e) => (e.steps.weights[1][2] = null), /^weights row 1/],
  ["a string score", (e) => (e.steps.scores[0][0] = "0.5"), /^scores row 0/],
  ["NaN in Q (a hand-made object)", (e) => (e.steps.Q[3][1] = NaN), /^Q row 3/],
  ["Infinity in out", (e) => (e.outputs.out[0][0] = Infinity), /^out row 0/],
  ["a mask of numbers", (e) => (e.inputs.mask[1][0] = 1), /^mask row 1 is not 4 booleans/],
  ["a mask too short", (e) => e.inputs.mask.pop(), /^mask is not 4 rows/],
  ["too few tokens", (e) => e.tokens.pop(), /tokens do not match/],
  ["no queries", (e) => { for (const k of ["Q", "K", "V", "weights", "entropy"]) e.steps[k] = []; }, /do not match/],
];

for (const [what, breakIt, words] of BROKEN) {
  test(`refused: ${what}`, async () => {
    const example = single();
    const result = breakIt(example); // { replaced: something else } or whatever the breaking expression gave
    const problem = await exampleProblem(Object.hasOwn(Object(result), "replaced") ? result.replaced : example);
    assert.match(problem, words);
  });
}

test("refused: a head that is not one of the example's, a lead axis of nothing, a bad head or sequence", async () => {
  assert.match(await exampleProblem(multiHead(), "2"), /no head 2/);
  assert.match(await exampleProblem(multiHead(), "-1"), /no head -1/);
  assert.match(await exampleProblem(single(), "1"), /no head 1/);
  const unnamed = multiHead();
  delete unnamed.n_heads;
  assert.match(await exampleProblem(unnamed), /neither heads, a batch nor named by leading_axis/);
  const checkpoints = multiHead();
  delete checkpoints.n_heads;
  delete checkpoints.steps.heads;
  checkpoints.checkpoints = checkpoints.steps.Q.map((_, index) => 10 * index); // a training run's steps
  checkpoints.outputs.out = [matrix(3, 2), matrix(3, 2)];
  assert.match(await exampleProblem(checkpoints), /neither heads, a batch nor named by leading_axis/, "checkpoints alone do not name the axis");
  checkpoints.leading_axis = { name: "step", labels: ["0", "10"] };
  assert.equal(await exampleProblem(checkpoints), "");
  checkpoints.steps.weights[1][0][0] = null;
  assert.match(await exampleProblem(checkpoints), /^weights \(step 10\) row 0/, "the culprit named by its own label");
  const badHead = multiHead();
  badHead.steps.weights[1][0][0] = null;
  assert.match(await exampleProblem(badHead), /^weights \(head 1\) row 0/);
  const badSequence = batch();
  badSequence.batch_tokens[1].pop();
  assert.match(await exampleProblem(badSequence), /tokens do not match/);
});

test(`above ${MAX_TOKENS} × ${MAX_TOKENS} the figure stays static, quickly, even at 1000 × 1000`, async () => {
  assert.match(await exampleProblem(single(MAX_TOKENS + 1, 2)), new RegExp(`65 × 65 is above the ${MAX_TOKENS} × ${MAX_TOKENS}`));
  const huge = single(1000, 2);
  const start = performance.now();
  assert.match(await exampleProblem(huge), /1000 × 1000/);
  assert.ok(performance.now() - start < 1000);
});

test("scoreLimit reads a 1000 × 1000 table without spreading it into one call", () => {
  const table = matrix(1000, 1000);
  table[999][999] = -7;
  table[0][0] = -Infinity;
  assert.equal(scoreLimit(table), 7);
  assert.equal(scoreLimit([[-Infinity, -Infinity]]), 1);
});

test("refused: a leading_axis without a name, or with a label per entry missing", async () => {
  const named = async (axis) => {
    const example = multiHead();
    delete example.n_heads;
    delete example.steps.heads;
    example.outputs.out = [matrix(3, 2), matrix(3, 2)];
    example.leading_axis = axis;
    return await exampleProblem(example);
  };
  assert.equal(await named({ name: "step", labels: ["0", "10"] }), "");
  for (const axis of [{ labels: ["0", "10"] }, { name: "", labels: ["0", "10"] }, { name: "step", labels: ["0"] },
    { name: "step", labels: [0, 10] }, "step", null]) {
    assert.match(await named(axis), /^leading_axis is not a name and 2 labels/, JSON.stringify(axis));
  }
});
