// The your-sentence page's pure part, alone (node --test tests/js/); the page itself is tested in Chromium
// (tests/browser/test_your_sentence_browser.py).
import assert from "node:assert/strict";
import { test } from "node:test";

import { pronounLinks } from "../../docs/widgets/your-sentence/your-sentence-app.js";

// one layer, one head, uniform weights over n tokens
const uniform = (n) => [new Float32Array(n * n).fill(1 / n)];

test("the link goes from the first pronoun that has a content word at least two tokens before it", () => {
  // "She said her cat ate its dinner.": "she" and "her" have none, "its" (token 6) has "said" and "cat"
  const tokens = ["[CLS]", "she", "said", "her", "cat", "ate", "its", "dinner", ".", "[SEP]"];
  const weights = uniform(tokens.length);
  const n = tokens.length;
  weights[0][6 * n + 4] = 0.5; // row "its" weighs "cat" most
  const links = pronounLinks(weights, 1, tokens);
  assert.ok(links, "a pronoun link is scored");
  assert.equal(links.query, 6);
  assert.equal(links.table[0][0].key, 4);
});

test("a sentence whose pronouns have no candidate before them has no link", () => {
  const tokens = ["[CLS]", "she", "said", "it", "was", ".", "[SEP]"]; // "said" is just before "it"
  assert.equal(pronounLinks(uniform(tokens.length), 1, tokens), null);
});

test("the word just before the pronoun is not a candidate", () => {
  const tokens = ["[CLS]", "the", "dog", "bit", "it", "[SEP]"];
  const links = pronounLinks(uniform(tokens.length), 1, tokens);
  assert.equal(links.query, 4);
  assert.equal(links.table[0][0].key, 2);
});
