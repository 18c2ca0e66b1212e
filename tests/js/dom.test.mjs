// dom.js's shared helpers alone (node --test tests/js/), with the browser's IntersectionObserver and fetch
// stood in for; the widgets that use them are tested in Chromium (tests/browser/).
import assert from "node:assert/strict";
import { test } from "node:test";

import { ARROWS, fetchChecked, loadNearViewport } from "../../docs/javascripts/dom.js";

test("the arrow keys move one row or one column; other keys move nothing", () => {
  assert.deepEqual(ARROWS, { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] });
  assert.equal(ARROWS.Enter, undefined);
});

test("an element is loaded once, when it first comes near the viewport, with the margin asked for", () => {
  const observers = [];
  globalThis.IntersectionObserver = class {
    constructor(callback, options) {
      Object.assign(this, { callback, options, watched: new Set() });
      observers.push(this);
    }
    observe(element) { this.watched.add(element); }
    unobserve(element) { this.watched.delete(element); }
  };
  const loaded = [];
  loadNearViewport(["a", "b"], (element) => loaded.push(element));
  const [near] = observers;
  // as the browser does: entries only for the elements still watched
  const scroll = (entries) => near.callback(entries.filter(({ target }) => near.watched.has(target)));
  assert.equal(near.options.rootMargin, "100% 0px");
  scroll([{ target: "a", isIntersecting: false }]);
  assert.deepEqual(loaded, []);
  scroll([{ target: "a", isIntersecting: true }, { target: "b", isIntersecting: false }]);
  scroll([{ target: "a", isIntersecting: true }]);
  assert.deepEqual(loaded, ["a"]);
  assert.deepEqual([...near.watched], ["b"]);
  loadNearViewport([], () => {}, "0px");
  assert.equal(observers[1].options.rootMargin, "0px");
  delete globalThis.IntersectionObserver;
});

test("a fetch that is not answered 2xx fails naming the file and its HTTP status", async () => {
  const asked = [];
  globalThis.fetch = async (url) => {
    asked.push(String(url));
    return String(url).endsWith("missing.json") ? { ok: false, status: 404 }
      : { ok: true, json: async () => ({ fine: 1 }), text: async () => "text" };
  };
  assert.deepEqual(await fetchChecked("examples/ex.json"), { fine: 1 });
  assert.equal(await fetchChecked("404.html", "text"), "text");
  await assert.rejects(fetchChecked("examples/missing.json"), { message: "examples/missing.json: HTTP 404" });
  // from the site root: this module is <site>/javascripts/dom.js
  assert.ok(asked[0].endsWith("/docs/examples/ex.json"), asked[0]);
  assert.equal(await fetchChecked("https://example.org/a.txt", "text"), "text");
  assert.equal(asked.at(-1), "https://example.org/a.txt");
  delete globalThis.fetch;
});
