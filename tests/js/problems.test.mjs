// The Problems page's pure part (node --test tests/js/); the page itself is tested in Chromium
// (tests/browser/test_problems_browser.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { storedVariant, verdict } from "../../docs/javascripts/problems.js";

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
