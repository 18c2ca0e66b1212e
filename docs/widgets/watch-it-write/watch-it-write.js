// The watch-it-write page, on page view: arm Generate and the presets. Generate brings in the model's runner
// (watch-it-write-app.js, decoder.js) and its weights; nothing of the model loads before.
import { slots, strings } from "../../javascripts/dom.js";

document$.subscribe(() => {
  const root = document.getElementById("aih-write");
  if (!root) return;
  const form = slots(root, "form")[0];
  strings("watch-it-write").then((S) => (slots(root, "status")[0].textContent = S.before));
  for (const preset of root.querySelectorAll("[data-preset]")) {
    preset.addEventListener("click", () => (form.elements.digits.value = preset.dataset.preset));
  }
  let app = null;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    app ||= import("./watch-it-write-app.js").then((module) => module.start(root));
    (await app).run(form.elements.digits.value.trim(), form.elements.recompute.checked);
  });
});
