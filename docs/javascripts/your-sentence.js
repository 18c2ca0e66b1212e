// The your-sentence page, on page view: restore the sentence from the URL (#s=…) and arm the Run button. The model
// (your-sentence-app.js, its worker and the weights) loads only when the reader presses it.
document$.subscribe(() => {
  const root = document.getElementById("aih-yours");
  if (!root) return;
  const form = root.querySelector("[data-slot=form]");
  const input = form.elements.s;
  const sentence = new URLSearchParams(location.hash.slice(1)).get("s");
  if (sentence) input.value = sentence.slice(0, input.maxLength); // the box's limit holds for a link too
  const cut = sentence?.length > input.maxLength ? ` The sentence in the link was cut to its first ${input.maxLength} characters, the box's limit.` : "";
  const run = root.querySelector("[data-slot=run]");
  run.disabled = false;
  root.querySelector("[data-slot=status]").textContent = `Nothing is downloaded until you press the button (${root.dataset.size}).${cut}`;
  for (const preset of root.querySelectorAll("[data-preset]")) {
    preset.addEventListener("click", () => (input.value = preset.dataset.preset));
  }
  let app = null; // the loaded page, once asked for
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!input.value.trim()) { // the model would read only [CLS] and [SEP], and its scores would mean nothing
      root.querySelector("[data-slot=status]").textContent = "Type a sentence first: the box is empty, so the model is not run.";
      input.focus();
      return;
    }
    app ||= import("./your-sentence-app.js").then((module) => module.start(root));
    (await app).run(input.value);
  });
});
