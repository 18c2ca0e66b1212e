// The pure functions behind the interactive heatmap, alone (node --test tests/js/).
// Agreement with attention/ and matplotlib is checked from Python: tests/browser/test_parity.py.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  attendScores,
  causalMask,
  cellColour,
  classifyMask,
  classifyMasks,
  entropy,
  exactDigits,
  isTie,
  formatNumber,
  formatSignificant,
  formatSum,
  formatVector,
  luminance,
  parseNumber,
  printed,
  ramp,
  SCALES,
  scaleScores,
  scoreLimit,
  scores,
  softmax,
  textColour,
  weightedSum,
  weightsByHand,
} from "../../docs/javascripts/attention-math.js";
import { BY_HAND_DIGITS } from "../../docs/javascripts/contract.js";

const close = (a, b, tol = 1e-12) => assert.ok(Math.abs(a - b) <= tol, `${a} != ${b}`);
const sum = (xs) => xs.reduce((a, b) => a + b, 0);

test("scores are the dot products of every query with every key", () => {
  assert.deepEqual(scores([[1, 2], [0, -1]], [[3, 4], [1, 0], [0, 0]]), [[11, 1, 0], [-4, 0, 0]]);
});

test("scaling multiplies every score and writes -Infinity where the mask forbids", () => {
  assert.deepEqual(scaleScores([[2, 4], [6, 8]], 0.5, null), [[1, 2], [3, 4]]);
  assert.deepEqual(scaleScores([[2, 4], [6, 8]], 0.5, causalMask(2, 2)), [[1, -Infinity], [3, 4]]);
});

test("causal mask lets query i see keys 0..i", () => {
  assert.deepEqual(causalMask(3, 3), [[true, false, false], [true, true, false], [true, true, true]]);
  assert.deepEqual(causalMask(2, 3), [[true, false, false], [true, true, false]]);
});

test("softmax rows are positive and sum to one", () => {
  const w = softmax([1, 2, 3]);
  close(sum(w), 1);
  close(w[2] / w[1], Math.E);
  assert.ok(w.every((x) => x > 0));
});

test("softmax is unchanged by adding a constant and does not overflow", () => {
  const a = softmax([1, 2, 3]);
  const b = softmax([1001, 1002, 1003]);
  a.forEach((x, j) => close(x, b[j]));
  assert.deepEqual(softmax([800, 0]).map((x) => Math.round(x)), [1, 0]);
});

test("masked scores get weight exactly 0 and the rest renormalise", () => {
  const w = softmax([0, -Infinity, 0]);
  assert.deepEqual(w, [0.5, 0, 0.5]);
  assert.deepEqual(softmax([-Infinity, -Infinity]), [0, 0]);
});

test("entropy is 0 for one-hot rows, log n for uniform rows, 0 for empty rows", () => {
  assert.equal(entropy([0, 1, 0]), 0);
  close(entropy([0.25, 0.25, 0.25, 0.25]), Math.log(4));
  assert.equal(entropy([0, 0]), 0);
  assert.ok(entropy([0.9, 0.05, 0.05]) < entropy([0.4, 0.3, 0.3]));
});

test("weighted sum mixes the value vectors", () => {
  assert.deepEqual(weightedSum([0.5, 0.5, 0], [[2, 0], [0, 4], [100, 100]]), [1, 2]);
});

test("a followed row's weights keep one precision at every scale (issue 54: 0.047, 0.1640, 0.00 before)", () => {
  const values = [[1.5, -2], [0.5, 3], [-1, 0.5]];
  // a flat row, a peaked one and a nearly one-hot one, as the scale slider makes them
  for (const scaled of [[0.1, 0.2, 0.15], [0.5, 2, -1], [1, 30, -20]]) {
    const weights = softmax(scaled);
    const [digits, shown, sums] = weightsByHand(weights, values, weightedSum(weights, values));
    assert.equal(digits, BY_HAND_DIGITS, "every weight of the followed row with BY_HAND_DIGITS decimals (text.py)");
    assert.deepEqual(shown, weights.map((w) => printed(w, BY_HAND_DIGITS)));
    sums.forEach((x, c) => assert.equal(formatNumber(x), formatNumber(weightedSum(weights, values)[c])));
  }
  // more decimals only where BY_HAND_DIGITS miss the printed output: 0.0123 × 1000 = 12.30, not 12.34
  const [digits, , sums] = weightsByHand([0.0123449, 0.9876551], [[1000], [0]], [12.3449]);
  assert.deepEqual([digits, formatNumber(sums[0])], [BY_HAND_DIGITS + 1, "12.34"]);
});

test("attendScores returns every step with consistent shapes", () => {
  const Q = [[1, 0], [0, 1], [1, 1]];
  const K = [[1, 0], [0, 1]];
  const V = [[1, 2, 3], [4, 5, 6]];
  const r = attendScores(scores(Q, K), V, 1 / Math.sqrt(2), null);
  assert.equal(r.weights.length, 3);
  assert.equal(r.weights[0].length, 2);
  assert.equal(r.out[0].length, 3);
  r.weights.forEach((row) => close(sum(row), 1));
  close(r.entropy[2], Math.log(2));
  const masked = attendScores(scores(Q, K), V, 1, [[true, false], [true, false], [false, false]]);
  assert.deepEqual(masked.weights[0], [1, 0]);
  assert.deepEqual(masked.out[2], [0, 0, 0]);
});

test("numbers print like Python's f'{x:.2f}', with a true minus sign", () => {
  const cases = [
    [0.125, "0.12"], [0.375, "0.38"], [0.625, "0.62"], [-0.125, "−0.12"], [2.675, "2.67"],
    [1.005, "1.00"], [12.345, "12.35"], [-0.001, "0.00"], [-0, "0.00"], [0, "0.00"],
    [-1.5, "−1.50"], [1, "1.00"], [-Infinity, "−∞"], [0.995, "0.99"], [-2.5, "−2.50"],
  ];
  for (const [x, text] of cases) assert.equal(formatNumber(x), text, `formatNumber(${x})`);
});

test("colour scales run dark blue to white to dark red, and dark purple to yellow", () => {
  assert.deepEqual(ramp(SCALES.diverging, 0), [5, 48, 97]);
  assert.deepEqual(ramp(SCALES.diverging, 1), [103, 0, 31]);
  assert.deepEqual(ramp(SCALES.sequential, 0), [68, 1, 84]);
  assert.deepEqual(ramp(SCALES.sequential, 1), [253, 231, 37]);
  assert.deepEqual(cellColour(-Infinity, "weights", 1), [158, 158, 158]);
  assert.deepEqual(cellColour(5, "scores", 5), cellColour(99, "scores", 5), "scores beyond the limit clip");
  assert.ok(luminance(cellColour(0, "scores", 3)) > 0.9, "zero is near-white");
});

test("the score limit is the largest finite magnitude", () => {
  assert.equal(scoreLimit([[1, -3], [-Infinity, 2]]), 3);
  assert.equal(scoreLimit([[-Infinity]]), 1);
});

test("cell text contrasts at least 4.5:1 with every colour of both scales", () => {
  const contrast = (a, b) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  for (const scale of Object.values(SCALES)) {
    for (let t = 0; t <= 1; t += 1 / 512) {
      const fill = ramp(scale, t);
      const text = luminance(textColour(fill).slice(1).match(/../g).map((hex) => parseInt(hex, 16)));
      assert.ok(contrast(luminance(fill), text) >= 4.5, `t=${t}`);
    }
  }
});

test("a published mask is named by its pattern: causal, padding, both, or published", () => {
  const padding = [[true, true, false], [true, true, false], [true, true, false]];
  const paddedCausal = [[true, false, false], [true, true, false], [true, true, false]];
  assert.equal(classifyMask(causalMask(3, 3)), "causal");
  assert.equal(classifyMask(causalMask(2, 3)), "causal");
  assert.equal(classifyMask(padding), "padding");
  assert.equal(classifyMask(paddedCausal), "padding + causal");
  assert.equal(classifyMask([[true, false], [false, true]]), "published");
  assert.equal(classifyMask([[true, true], [true, true]]), "padding", "nothing hidden is a padding mask of full length");
});

test("the masks of several sequences take the first name that is not causal", () => {
  const padding = [[true, false], [true, false]];
  assert.equal(classifyMasks([causalMask(2, 2), causalMask(2, 2)]), "causal");
  assert.equal(classifyMasks([causalMask(2, 2), padding]), "padding");
  assert.equal(classifyMasks([[[false, true], [true, false]], padding]), "published");
});

test("the readout prints vectors, exact digits, significant digits and sums", () => {
  assert.equal(formatVector([1, -0.5, 0.125]), "[1.00, −0.50, 0.12]");
  assert.equal(formatVector([]), "[]");
  assert.equal(exactDigits(-0.37 / 2, 2, 8), 3, "−0.185 needs three decimals");
  assert.equal(exactDigits(0.2 * -0.4, 2, 8), 2, "float noise is not a digit");
  assert.equal(exactDigits(1 / 3, 2, 5), 5, "no exact digits: the most allowed");
  assert.equal(parseNumber("−0.185"), -0.185);
  assert.ok(isTie(-0.845) && isTie(0.185, 2) && !isTie(0.1851) && !isTie(0.185, 3));
  assert.equal(printed(0.1234, 2), 0.12);
  assert.equal(formatSignificant(Math.E), "2.718");
  assert.equal(formatSignificant(12345.6), "1.235e+4");
  assert.equal(formatSum(["0.50", "−2.00", "1.00"]), "0.50 + (−2.00) + 1.00");
});
