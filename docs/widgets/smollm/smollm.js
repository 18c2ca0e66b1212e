// The smollm page (docs/smollm.md), on page view: restore a run's prompt and settings from the URL (#p=…&t=…&k=…
// &seed=…&n=…), arm the presets and the Write and Copy link buttons. The model (smollm-app.js, its worker and
// the weights) loads only when the reader presses Write, or at once for a link when the browser holds the model.
import { fill, slots, strings } from "../../javascripts/dom.js";

const SETTINGS = ["t", "k", "seed", "n"]; // the form's fields a link carries besides the prompt (p)

// Whether the worker's Cache Storage (smollm-worker.js: "aih-smollm-model") holds the manifest and every file
// it lists: then a link's run starts at once, with nothing to download.
async function modelIsCached(manifestUrl) {
  try {
    const store = await caches.open("aih-smollm-model");
    const manifest = await (await store.match(manifestUrl)).json();
    const root = new URL("..", manifestUrl);
    const kept = await Promise.all(Object.values(manifest.files).map((name) => store.match(new URL(name, root).href)));
    return kept.every(Boolean);
  } catch {
    return false; // not kept (or no Cache Storage): the reader presses Write, as on a first visit
  }
}

document$.subscribe(async () => {
  const root = document.getElementById("aih-smollm");
  if (!root) return;
  const S = await strings("smollm"); // the words this script writes (words/scripts/smollm.md)
  const slot = (name) => slots(root, name)[0];
  const status = (text) => (slot("status").textContent = text);
  const form = slot("form");
  const box = form.elements.p;
  const link = new URLSearchParams(location.hash.slice(1));
  const prompt = link.get("p");
  if (prompt !== null) box.value = prompt.slice(0, box.maxLength); // the box's limit holds for a link too
  for (const name of SETTINGS) if (link.has(name)) form.elements[name].value = link.get(name); // the field checks it
  // a link's prompt longer than the box: the status says it was cut (the /cut variant of its sentence)
  const cut = prompt?.length > box.maxLength ? "/cut" : "";
  const said = (name) => fill(S[name + cut], { size: root.dataset.size, count: box.maxLength });
  const write = slot("write");
  write.disabled = false;
  const before = said("before");
  status(before);
  let app = null; // the loaded page, once asked for
  const manifestUrl = new URL(`../../${root.dataset.model}`, import.meta.url).href;
  const cached = modelIsCached(manifestUrl).then((kept) => {
    if (kept && !app) {
      root.dataset.stored = ""; // smollm-app.js words its loading for a model read from storage
      write.textContent = write.dataset.stored;
      if (slot("status").textContent === before) status(said("stored"));
    }
    return kept;
  });
  for (const preset of root.querySelectorAll("[data-preset]")) {
    preset.disabled = false; // disabled in the HTML: without JavaScript it would do nothing
    preset.addEventListener("click", () => {
      box.value = preset.dataset.preset;
      slot("copied").textContent = "";
      box.focus();
    });
  }
  box.addEventListener("input", () => (slot("copied").textContent = "")); // a link copied before is not this prompt's
  const copy = slot("copy");
  copy.hidden = false;
  copy.addEventListener("click", async () => {
    const params = new URLSearchParams({ p: box.value.toWellFormed() });
    for (const name of SETTINGS) params.set(name, form.elements[name].value);
    const url = `${location.href.split("#")[0]}#${params}`;
    try {
      await navigator.clipboard.writeText(url);
      slot("copied").textContent = S.copied;
    } catch {
      slot("copied").textContent = fill(S["copy-this"], { link: url }); // no clipboard (an http page, or permission refused)
    }
  });
  const start = () => (app ||= import("./smollm-app.js").then((module) => module.start(root)));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const refused = () => (slot("results").hidden = true); // a run that does not start shows no older run's results
    if (!form.reportValidity()) return refused(); // a setting out of its range: the browser says which
    if (!box.value) {
      refused();
      status(S.empty);
      box.focus();
      return;
    }
    (await start()).write();
  });
  if (prompt) cached.then((kept) => kept && !app && form.requestSubmit());
});
