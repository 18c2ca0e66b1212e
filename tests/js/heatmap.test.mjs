// The heatmap widget's pure part, alone (node --test tests/js/); the widget itself is tested in Chromium
// (tests/browser/test_heatmap.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { cellAfterKey } from "../../docs/widgets/heatmap/heatmap.js";

const SIZE = [3, 4]; // queries, keys

test("arrows move one cell; past an edge the target is off the grid, where the focus stays", () => {
  assert.deepEqual(cellAfterKey("ArrowRight", false, [1, 1], SIZE), [1, 2]);
  assert.deepEqual(cellAfterKey("ArrowLeft", false, [1, 1], SIZE), [1, 0]);
  assert.deepEqual(cellAfterKey("ArrowDown", false, [1, 1], SIZE), [2, 1]);
  assert.deepEqual(cellAfterKey("ArrowUp", false, [0, 1], SIZE), [-1, 1]);
});

test("Home and End go to the ends of the row, with Ctrl to the corners of the grid", () => {
  assert.deepEqual(cellAfterKey("Home", false, [1, 2], SIZE), [1, 0]);
  assert.deepEqual(cellAfterKey("End", false, [1, 2], SIZE), [1, 3]);
  assert.deepEqual(cellAfterKey("Home", true, [1, 2], SIZE), [0, 0]);
  assert.deepEqual(cellAfterKey("End", true, [1, 2], SIZE), [2, 3]);
});

test("Page Up and Page Down go to the ends of the column; other keys are left alone", () => {
  assert.deepEqual(cellAfterKey("PageUp", false, [1, 2], SIZE), [0, 2]);
  assert.deepEqual(cellAfterKey("PageDown", false, [1, 2], SIZE), [2, 2]);
  for (const key of ["Enter", " ", "Tab", "a"]) assert.equal(cellAfterKey(key, false, [1, 2], SIZE), undefined, key);
});
