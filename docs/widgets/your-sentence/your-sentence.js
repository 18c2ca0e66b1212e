// The your-sentence page, on page view: restore the sentence from the URL (#s=…), arm the Run and Copy link
// buttons, and keep the status in step with the box. The model (your-sentence-app.js, its worker and the weights)
// loads only when the reader presses Run, or at once for a link's sentence when the browser already holds the model.
import { fill, slots, strings } from "../../javascripts/dom.js";

const linkTo = (text) => `${location.href.split("#")[0]}#s=${encodeURIComponent(text.toWellFormed())}`;

// Whether the worker's Cache Storage (your-sentence-worker.js) holds the manifest and every file it lists: then a
// link's sentence runs at once, with nothing to download.
async function modelIsCached(manifestUrl) {
  try {
    const store = await caches.open("aih-your-sentence-model");
    const manifest = await (await store.match(manifestUrl)).json();
    const kept = await Promise.all(Object.values(manifest.files).map((name) => store.match(new URL(name, new URL("..", manifestUrl)).href)));
    return kept.every(Boolean);
  } catch {
    return false; // not kept (or no Cache Storage): the reader presses Run, as on a first visit
  }
}

document$.subscribe(async () => {
  const root = document.getElementById("aih-yours");
  if (!root) return;
  const S = await strings("your-sentence"); // the words this script writes (words/scripts/your-sentence.md)
  const slot = (name) => slots(root, name)[0];
  const status = (text) => (slot("status").textContent = text);
  const form = slot("form");
  const input = form.elements.s;
  // a line break in a link's sentence is a space: the one-line box would drop it and join the words
  const sentence = new URLSearchParams(location.hash.slice(1)).get("s")?.replace(/\r\n?|\n/g, " ");
  if (sentence) input.value = sentence.slice(0, input.maxLength); // the box's limit holds for a link too
  // a link's sentence longer than the box: the status says it was cut (the /cut variant of its sentence)
  const cut = sentence?.length > input.maxLength ? "/cut" : "";
  const said = (name) => fill(S[name + cut], { size: root.dataset.size, count: input.maxLength });
  const button = slot("run");
  button.disabled = false;
  const before = said("before");
  status(before);
  // The browser may hold the model from an earlier visit: then the button and the status say so, not the size
  const manifestUrl = new URL(`../../${root.dataset.model}`, import.meta.url).href;
  const cached = modelIsCached(manifestUrl).then((kept) => {
    if (kept && !app) {
      root.dataset.stored = ""; // your-sentence-app.js words its loading for a model read from storage
      button.textContent = button.dataset.stored;
      if (slot("status").textContent === before) status(said("stored"));
    }
    return kept;
  });
  // a sentence in the box that is not the one on screen: the status says what to do
  const changed = (what) => {
    slot("copied").textContent = ""; // a link copied before is not this sentence's
    if (root.dataset.state !== "failed") status(what);
  };
  for (const preset of root.querySelectorAll("[data-preset]")) {
    preset.disabled = false; // disabled in the HTML: without JavaScript it would do nothing
    preset.addEventListener("click", () => {
      input.value = preset.dataset.preset;
      changed(fill(S.preset, { name: preset.textContent }));
    });
  }
  input.addEventListener("input", () => changed(S.changed));
  const copy = slot("copy");
  copy.hidden = false;
  copy.addEventListener("click", async () => {
    const link = linkTo(input.value);
    try {
      await navigator.clipboard.writeText(link);
      slot("copied").textContent = S.copied;
    } catch {
      slot("copied").textContent = fill(S["copy-this"], { link }); // no clipboard (an http page, or permission refused)
    }
  });
  let app = null; // the loaded page, once asked for
  const run = async () => {
    // a box with nothing the tokenizer keeps (white space, control characters, U+FFFD): the model would read only
    // [CLS] and [SEP], and its scores would mean nothing
    const { normalize } = await import("./wordpiece.js");
    if (!normalize(input.value).trim()) {
      if (app && root.dataset.state === "done") { // the results on screen are not the empty box's: they go
        (await app).clear();
        delete root.dataset.state;
        delete root.dataset.text;
      }
      status(S.empty);
      input.focus();
      return;
    }
    app ||= import("./your-sentence-app.js").then((module) => module.start(root));
    (await app).run(input.value);
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    run();
  });
  if (sentence && input.value.trim()) cached.then((kept) => kept && !app && run());
});
