// The Problems page's pure part (node --test tests/js/); the page itself is tested in Chromium
// (tests/browser/test_problems_browser.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { fmt, gridClass, judge, matchSlip, storedVariant, verdict } from "../../docs/widgets/problems/problems.js";

test("a stored index in range is the variant shown", () => {
  assert.equal(storedVariant("0", 12), 0);
  assert.equal(storedVariant("3", 12), 3);
  assert.equal(storedVariant("11", 12), 11);
});

test("anything else shows the first variant: fractions, negatives, infinities, out of range, garbage", () => {
  for (const stored of ["2.5", "-1", "-0", "-Infinity", "Infinity", "NaN", "12", "99999999999", "1e1", "0x2",
    " 1", "1 ", "", "garbage", undefined, null]) {
    assert.equal(storedVariant(stored, 12), 0, `stored ${JSON.stringify(stored)}`);
  }
});

test("a set with fewer variants than the stored index starts again at the first", () => {
  assert.equal(storedVariant("5", 5), 0);
  assert.equal(storedVariant("4", 5), 4);
});

test("a conceptual question's verdict: no pick, the right choice, another one", () => {
  assert.deepEqual(verdict(null, 1), ["", "Pick one answer first."]);
  assert.equal(verdict("1", 1)[0], "right");
  assert.equal(verdict("0", 1)[0], "wrong");
  assert.equal(verdict("2", 1)[0], "wrong");
  assert.match(verdict("0", 0)[1], /^Right/);
});

// A part's entries as check() judges them against the right answer `right`.
const judged = (texts, right, tolerance) =>
  texts.flatMap((row, i) => row.map((text, j) => ({ row: i, col: j, text, verdict: judge(text, right[i][j], tolerance) })));

test("a slip is named when every typed entry matches it and one is wrong", () => {
  const right = [[0.5, 1]];
  const slips = [{ slip: "unscaled", values: [[1, 2]] }, { slip: "over_d_k", values: [[0.25, 0.5]] }];
  assert.equal(matchSlip(judged([["1.004", "2"]], right, 0.01), slips, 0.01).slip, "unscaled");
  assert.equal(matchSlip(judged([["0.25", ""]], right, 0.01), slips, 0.01).slip, "over_d_k"); // an empty box is no objection
  assert.equal(matchSlip(judged([["0.5", "1"]], right, 0.01), slips, 0.01), null); // all right: no slip to name
  assert.equal(matchSlip(judged([["1", "0.5"]], right, 0.01), slips, 0.01), null); // half of one, half of another
  assert.equal(matchSlip(judged([["1.02", "2"]], right, 0.01), slips, 0.01), null); // outside the tolerance
  assert.equal(matchSlip(judged([["1", "abc"]], right, 0.01), slips, 0.01), null); // not a number
  assert.equal(matchSlip(judged([["", ""]], right, 0.01), slips, 0.01), null);
  assert.equal(matchSlip(judged([["1", "2"]], right, 0.01), [], 0.01), null);
});

test("where a slip and the right answer share an entry, that entry counts for both", () => {
  const right = [[0.5, 1]];
  const slips = [{ slip: "sign", values: [[-0.5, 1]] }];
  assert.equal(matchSlip(judged([["-0.5", "1"]], right, 0.01), slips, 0.01).slip, "sign");
});

test("a whole number may be typed with its thousands grouped, by commas or thin spaces, as the page prints it", () => {
  assert.equal(fmt(3932160), "3,932,160", "tables print whole numbers grouped in threes, as the site writes 1,024");
  assert.equal(fmt(-1234.5), "−1,234.5");
  assert.equal(fmt(999), "999");
  for (const typed of ["7,680", "7680", "7\u2009680", "7\u202f680", "−7,680".replace("−", "-")]) {
    assert.equal(judge(typed, typed.startsWith("-") ? -7680 : 7680, 0), "right", `typed ${JSON.stringify(typed)}`);
  }
  assert.equal(judge("3,932,160", 3932160, 0), "right");
  assert.equal(judge("65,536,000", 65536000, 0), "right");
  assert.equal(judge("1,234.5", 1234.5, 0), "right");
  assert.equal(judge("7,681", 7680, 0), "wrong");
  for (const typed of ["0,25", "1,5", "12,34", "7,6800", ",680", "7,,680", "0,250"]) {
    assert.equal(judge(typed, 0.25, 0.01), "bad", `${JSON.stringify(typed)} is no grouped whole number (a decimal comma is refused)`);
  }
});

test("an answer grid whose answers print longer than PROBLEM_WIDE_CHARS gets wide boxes", () => {
  assert.equal(gridClass({ values: [[1, 2]] }), "aih-problem-grid");
  assert.equal(gridClass({ values: [[7680, 65536000]] }), "aih-problem-grid aih-problem-grid--wide");
});
