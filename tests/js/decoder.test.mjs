// The watch-it-write page's reading of the digits box (docs/widgets/watch-it-write/decoder.js), alone; the page
// itself is tested in Chromium (tests/browser/test_watch_it_write.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { readDigits } from "../../docs/widgets/watch-it-write/decoder.js";

test("white space around or between the digits is ignored, never counted against the length", () => {
  assert.deepEqual(readDigits(" 314159", 6), [3, 1, 4, 1, 5, 9], "a leading space must not cost the last digit");
  assert.deepEqual(readDigits("314159 \n", 6), [3, 1, 4, 1, 5, 9]);
  assert.deepEqual(readDigits("3 1 4 1 5 9", 6), [3, 1, 4, 1, 5, 9], "the presets' own spelling is accepted");
});

test("anything but exactly `length` digits is refused", () => {
  for (const text of ["31415", "3141592", "12a456", "", "      ", "31415.9", "٣١٤١٥٩"]) {
    assert.equal(readDigits(text, 6), null, `“${text}” is not six digits 0 to 9`);
  }
});
