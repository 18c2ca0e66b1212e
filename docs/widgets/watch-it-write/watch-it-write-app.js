// The watch-it-write page's Generate (docs/watch-it-write.md), loaded only when the reader presses it: downloads the
// model's weights once, checks them against the byte count and SHA-256 the page carries, then writes one token per
// frame, adding one row to the job head's heatmap and one line to the table of costs.
import { cellColour, cssColour, formatNumber, textColour } from "../../javascripts/attention-math.js";
import { generate, readDigits } from "./decoder.js";
import { fetchChecked, fill, h, slots, strings } from "../../javascripts/dom.js";

const S = await strings("watch-it-write"); // the words this script writes (words/scripts/watch-it-write.md)

const SYMBOLS = "0123456789|";
const STEP_DELAY = 250; // milliseconds between two steps, so the reader sees the rows arrive

async function loadModel(root) {
  const bytes = await fetchChecked(root.dataset.model, "arrayBuffer"); // (its path is from the site root)
  // (crypto.subtle exists on https pages and on this machine's own addresses: a page served over plain http
  // elsewhere checks the byte count only, as your-sentence-worker.js does)
  const digest = crypto.subtle && [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
    .map((byte) => byte.toString(16).padStart(2, "0")).join("");
  if (bytes.byteLength !== Number(root.dataset.bytes) || (digest && digest !== root.dataset.sha256)) {
    throw new Error(`${root.dataset.model} is not the file this page was built with (its length or SHA-256 differs)`);
  }
  return JSON.parse(new TextDecoder().decode(bytes));
}

class Writer {
  constructor(root) {
    this.root = root;
    this.slot = (name) => slots(root, name)[0];
    this.layer = Number(root.dataset.layer);
    this.head = Number(root.dataset.head);
    this.model = null;
    this.runId = 0;
  }

  async run(digits, recompute) {
    const runId = ++this.runId;
    const status = this.slot("status");
    const length = Number(this.root.dataset.length);
    const source = readDigits(digits, length);
    if (!source) {
      // no result of an earlier run stays beside the error, as if it were this input's
      this.slot("results").hidden = true;
      this.slot("tokens").textContent = "";
      delete this.root.dataset.state;
      status.textContent = fill(S["not-digits"], { length, digits });
      return;
    }
    try {
      status.textContent = S.loading;
      this.model ||= await loadModel(this.root);
    } catch (error) {
      status.textContent = fill(S["not-loaded"], { error: error.message });
      return;
    }
    if (runId !== this.runId) return; // a newer Generate took over while the model loaded
    const { steps, tokens } = generate(this.model, source, recompute);
    this.root.dataset.state = "running";
    this.drawHeader(tokens.length - 1);
    this.slot("steps").replaceChildren();
    this.slot("tokens").textContent = "";
    this.slot("results").hidden = false;
    // the page's "Until you press Generate, here is one run computed when the site was built" no longer holds
    for (const until of document.querySelectorAll(".aih-write__until")) until.hidden = true;
    status.textContent = S[recompute ? "writing/recompute" : "writing/cache"];
    for (const step of steps) {
      this.drawStep(step, tokens, recompute);
      await new Promise((resolve) => setTimeout(resolve, STEP_DELAY));
      if (runId !== this.runId) return; // a newer Generate took over: its status and state are the ones on screen
    }
    const written = tokens.slice(this.model.config.length + 1).map((token) => SYMBOLS[token]).join("");
    status.textContent = fill(S[written === source.toReversed().join("") ? "done/reversed" : "done/not-reversed"], { written });
    this.root.dataset.state = "done";
  }

  drawHeader(n) {
    const header = h("tr", {}, h("th", { scope: "col" }, S.corner));
    for (let key = 0; key < n; key++) header.append(h("th", { scope: "col" }, `${key + 1}`));
    // the grid's caption is a paragraph above its scroll box (the page's HTML), so a phone never scrolls it away
    this.slot("grid").replaceChildren(h("thead", {}, header), h("tbody"));
  }

  drawStep(step, tokens, recompute) {
    const n = tokens.length - 1;
    const row = h("tr", {}, h("th", { scope: "row" }, `${step.position + 1}: ${SYMBOLS[step.read]}`));
    const weights = step.weights[this.layer][this.head];
    for (let key = 0; key < n; key++) {
      const weight = weights[key];
      if (weight === undefined) { row.append(h("td")); continue; }
      const colour = cellColour(weight, "weights");
      row.append(h("td", { style: `background:${cssColour(colour)};color:${textColour(colour)}` }, formatNumber(weight)));
    }
    this.slot("grid").tBodies[0].append(row);
    const written = step.written === null ? "—" : SYMBOLS[step.written];
    const bytes = recompute ? S["none-kept"] : step.cacheBytes.toLocaleString("en");
    this.slot("steps").append(h("tr", {}, h("td", {}, `${step.position + 1}`), h("td", {}, SYMBOLS[step.read]),
      h("td", {}, written), h("td", {}, bytes), h("td", {}, `${step.dotProducts}`)));
    if (step.written !== null) this.slot("tokens").textContent += SYMBOLS[step.written];
  }
}

export const start = (root) => new Writer(root);
