// The smollm page once the reader presses Write (loaded on demand by smollm.js): a worker (smollm-worker.js, whose
// header states the protocol) downloads the model once, with a progress bar, and writes; this module shows the
// text as it comes, one head's weights growing by a row per token, the five most probable next tokens and the KV
// cache's size. Every number it shows is the worker's or the page's config (the build's), never its own.
import { cellColour, formatNumber } from "../../javascripts/attention-math.js";
import { ARROWS, fill, h, slots, strings } from "../../javascripts/dom.js";

const S = await strings("smollm"); // the words this script writes (words/scripts/smollm.md)

// the weights' colour scale in 256 steps, as RGBA pixels (the site's weights scale, as your-sentence draws it)
const COLOURS = Uint32Array.from({ length: 256 }, (_, step) =>
  new Uint32Array(Uint8ClampedArray.from([...cellColour(step / 255, "weights", 1), 255]).buffer)[0]);
const MAX_GRID = 560; // CSS pixels: the grid's widest
// "a", "a and b", "a, b and c": the site's lists (as words/site.md's list/and, here the table's list/and and
// list/and/more), without Intl.ListFormat, whose set-up alone cost more than the 50 ms long-task budget on a slow
// phone (scripts/bench_long_tasks.py)
const AND = {
  format: (items) => (items.length > 1 ? fill(S["list/and"], {
    head: items.slice(1, -1).reduce((head, item) => fill(S["list/and/more"], { head, item }), items[0]), last: items.at(-1),
  }) : items.join("")),
};
// "1 token", "5 tokens": a count with its noun, as the language has it
const tokens = (n) => fill(S[n === 1 ? "tokens/one" : "tokens/other"], { n });

// 2903040 -> "2,903,040", as the build prints whole numbers (figures_src/pages/smollm.py's grouped), without
// toLocaleString, whose first call sets up Intl: longer than the 50 ms budget on a slow phone
export const grouped = (whole) => `${whole}`.replace(/\B(?=(\d{3})+$)/g, ",");

// A token's text as the page shows it in a table: its spaces and control characters made visible (" Paris" is
// "␣Paris", a line break "↵"), so that no token looks empty
export const visible = (piece) => piece.replace(/[\u0000-\u001f\u007f ]/g, (c) =>
  c === " " ? "␣" : c === "\n" ? "↵" : String.fromCodePoint(c === "\u007f" ? 0x2421 : 0x2400 + c.charCodeAt(0))) || "∅";

// The KV cache after n tokens, in bytes: a key and a value row of d_k numbers per layer and key/value head
export const cacheBytes = (n, config, kvHeads = config.kvHeads) => n * config.layers * kvHeads * 2 * config.dK * config.bytesPerNumber;

// The query heads (from 0) that read the same key/value head as `head`, `head` included, and that key/value head,
// from the build's kvHeadOf (query head -> its key/value head: attention.kv_head_of, the template's data-kv-head-of)
export function sharing(head, kvHeadOf) {
  const kv = kvHeadOf[head];
  return { kv, heads: kvHeadOf.flatMap((other, index) => (other === kv ? [index] : [])) };
}

class Writer {
  constructor(root) {
    this.root = root;
    this.slot = (name) => slots(root, name)[0];
    const data = root.dataset;
    this.config = { layers: +data.layers, heads: +data.heads, kvHeads: +data.kvHeads, dK: +data.dK, bytesPerNumber: +data.bytesPerNumber,
      kvHeadOf: data.kvHeadOf.split(" ").map(Number) };
    this.form = this.slot("form");
    this.canvas = this.slot("grid");
    this.id = 0; // the newest run asked for; a message of an older one is ignored
    this.running = null; // the id of the run the worker is writing, if any
    this.run = null; // what is on screen: { id, pieces, prompt (how many of them), weights, rows, top, picked, … }
    setTimeout(() => this.chooser()); // a task of its own: starting the worker is one already
    // the grid's two canvases get their contexts while the model loads, each in a task of its own: a first
    // getContext("2d") costs more than a token's draw
    this.source = document.createElement("canvas");
    setTimeout(() => this.canvas.getContext("2d"));
    setTimeout(() => this.source.getContext("2d"));
    this.worker = new Worker(new URL("./smollm-worker.js", import.meta.url), { type: "module" });
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = ({ data: message }) => {
        if (message.type === "progress") this.progress(message.loaded, message.total);
        else if (message.type === "ready") this.check(message.config) ? resolve() : reject(new Error(S["not-this-model"]));
        else if (message.type === "error" && message.during === "load") reject(new Error(message.message));
        else this.message(message);
      };
      this.worker.onerror = (event) => {
        event.preventDefault();
        const error = new Error(event.message || S["worker-stopped"]);
        if (this.running !== null) this.failed(error);
        reject(error);
      };
    });
    this.ready.then(() => {
      const write = this.slot("write");
      write.textContent = write.dataset.loaded; // the model is in the page now: no download
    }, (error) => this.fail(error));
    this.stored = "stored" in data; // smollm.js found every file in the browser's storage
    this.status(this.stored ? S.reading : fill(S.downloading, { size: data.size }), true);
    this.worker.postMessage({ type: "load", manifest: new URL(`../../${data.model}`, import.meta.url).href });
    this.slot("stop").addEventListener("click", () => this.stop());
    // a cell under the pointer (or a finger) is read out in the line under the grid; leaving, the newest row is again
    this.canvas.addEventListener("pointermove", (event) => this.point(event));
    this.canvas.addEventListener("pointerleave", () => this.run && this.draw());
    // and from the keyboard: the arrow keys move a cell cursor, Escape (or leaving the grid) lets it go
    this.canvas.addEventListener("keydown", (event) => this.key(event));
    this.canvas.addEventListener("blur", () => {
      this.cursor = null;
      if (this.run) this.draw();
    });
    // the grid's prompt line is drawn in the text colour: a switch of colour scheme draws it again
    // the column's width, measured after the browser's own layout (reading it in a draw would force one)
    new ResizeObserver(([entry]) => {
      const width = Math.min(MAX_GRID, entry.contentRect.width);
      if (width === this.width) return; // its height changed (a line of text): the grid stays as it is
      this.width = width;
      if (this.run) this.schedule();
    }).observe(this.slot("results"));
    new MutationObserver(() => {
      this.ink = null;
      if (this.run) this.draw();
    }).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
  }

  // The visible status, which changes with every tick and token; with `announce`, a milestone, also read out by a
  // screen reader (the hidden live region: the start, each tenth of the download, done, an error)
  status(text, announce = false) {
    this.slot("status").textContent = text;
    if (announce) this.slot("announce").textContent = text;
  }

  // The worker's config against the page's: a manifest of another model would draw wrong grids
  check(config) {
    const c = this.config;
    return !config || (config.n_layers === c.layers && config.n_heads === c.heads && config.n_kv_heads === c.kvHeads);
  }

  progress(loaded, total) {
    if (this.root.dataset.state === "failed") return; // a failure stays on screen: nothing after it is news
    const bar = this.slot("progress");
    bar.hidden = false;
    bar.max = total || loaded || 1;
    bar.value = loaded;
    const tenth = Math.floor((10 * loaded) / (total || loaded || 1));
    const said = tenth !== this.tenth;
    this.tenth = tenth;
    this.status(fill(S[this.stored ? "progress/stored" : "progress/download"],
      { loaded: formatNumber(loaded / 1e6, 1), total: formatNumber((total || loaded) / 1e6, 1) }), said);
  }

  fail(error) {
    this.clear();
    this.running = null;
    this.buttons(false);
    this.status(fill(S["not-loaded"], { error: error.message }), true);
    this.root.dataset.state = "failed";
  }

  failed(error) {
    this.clear();
    this.running = null;
    this.buttons(false);
    this.status(fill(S.failed, { error: error.message }), true);
    this.root.dataset.state = "failed";
  }

  clear() {
    this.slot("progress").hidden = true;
    this.run = null;
    this.slot("results").hidden = true;
    for (const name of ["text", "top", "row", "cache"]) this.slot(name).replaceChildren();
    this.canvas.width = 0;
  }

  // writing: Stop on; stopping: both off until the worker says done; neither: Write on
  buttons(writing, stopping = false) {
    this.slot("stop").disabled = !writing || stopping;
    this.slot("write").disabled = stopping;
    this.root.dataset.writing = writing ? "yes" : "no";
  }

  // The layer menu and the query-head buttons, grouped by the key/value head they read
  chooser() {
    const { layers, heads, kvHeads } = this.config;
    const layer = this.slot("layer");
    layer.append(...Array.from({ length: layers }, (_, l) => h("option", { value: l }, `${l + 1}`)));
    const groups = Array.from({ length: kvHeads }, (_, kv) => {
      const group = h("fieldset", { class: "aih-smollm__group" }, h("legend", {}, fill(S.group, { kv: kv + 1 })));
      for (const head of this.config.kvHeadOf.flatMap((other, index) => (other === kv ? [index] : []))) {
        const input = h("input", { type: "radio", name: "head", value: head });
        input.checked = head === 0;
        group.append(h("label", {}, input, `${head + 1}`));
      }
      return group;
    });
    this.slot("heads").replaceChildren(...groups);
    for (const control of [layer, ...this.slot("heads").querySelectorAll("input")]) {
      control.addEventListener("change", () => this.choose());
    }
    this.choose();
  }

  get chosen() {
    return { layer: +this.slot("layer").value || 0, head: +(this.slot("heads").querySelector("input:checked")?.value ?? 0) };
  }

  choose() {
    const { layer, head } = this.chosen;
    const { kv, heads } = sharing(head, this.config.kvHeadOf);
    for (const [index, group] of this.slot("heads").querySelectorAll("fieldset").entries()) group.classList.toggle("aih-smollm__group--chosen", index === kv);
    const others = heads.filter((other) => other !== head).map((other) => `${other + 1}`);
    const named = { layer: layer + 1, head: head + 1, kv: kv + 1, others: AND.format(others) };
    this.slot("sharing").textContent = fill(S.sharing, { ...named, count: heads.length });
    this.slot("which").textContent = fill(S.which, named);
    if (this.run) this.draw();
  }

  settings() {
    const field = (name) => this.form.elements[name].value;
    const number = (name) => Number(field(name));
    return { prompt: field("p").toWellFormed(), temperature: number("t"), topK: number("k"), seed: number("seed"), maxNew: number("n") };
  }

  async write() {
    const id = ++this.id;
    const settings = this.settings();
    if (this.running !== null) this.worker.postMessage({ type: "stop", id: this.running }); // a new run replaces it
    this.buttons(true);
    try {
      await this.ready;
    } catch {
      return; // fail() has said so
    }
    if (id !== this.id) return; // a newer Write (or Stop) came while the model loaded
    this.slot("progress").hidden = true;
    const params = new URLSearchParams({ p: settings.prompt, t: settings.temperature, k: settings.topK, seed: settings.seed, n: settings.maxNew });
    history.replaceState(null, "", `#${params}`);
    this.running = id;
    delete this.root.dataset.state;
    this.status(settings.temperature > 0 ? fill(S["writing/sampled"], { temperature: settings.temperature, top_k: settings.topK, seed: settings.seed })
      : S["writing/greedy"], true);
    this.worker.postMessage({ type: "write", id, ...settings });
  }

  stop() {
    if (this.running !== null) {
      this.worker.postMessage({ type: "stop", id: this.running });
      this.buttons(true, true); // until the worker says done: neither Write nor Stop
      this.status(S.stopping, true);
    } else {
      this.id++; // a run asked for while the model loads never starts
      this.buttons(false);
      this.status(S["stopped-before"], true);
    }
  }

  message(message) {
    if (message.id !== this.id && !(message.type === "done" && message.id === this.running)) return; // an older run's
    if (message.type === "prompt") this.prompt(message);
    else if (message.type === "token") this.token(message);
    else if (message.type === "done") this.done(message);
    else if (message.type === "error") this.failed(new Error(message.message));
  }

  prompt({ id, pieces, cut, weights }) {
    this.run = { id, pieces: [...pieces], prompt: pieces.length, weights, rows: [], top: null, picked: null };
    this.slot("results").hidden = false;
    this.slot("cut").hidden = !cut;
    const text = this.slot("text");
    text.replaceChildren(h("span", { class: "aih-smollm__prompt" }, pieces.join("")));
    this.slot("top").replaceChildren();
    this.schedule();
  }

  token({ piece, top, row }) {
    const run = this.run;
    if (!run) return;
    run.pieces.push(piece);
    if (row?.length) run.rows.push(row);
    run.top = top;
    run.picked = piece;
    this.slot("text").append(h("mark", { class: "aih-smollm__written" }, piece));
    this.schedule();
  }

  done({ reason }) {
    this.running = null;
    this.buttons(false);
    if (this.frame) { // the grid, the table and the cache of the last token now, with the status, not a frame later
      cancelAnimationFrame(this.frame);
      this.frame = 0;
      if (this.run) this.draw();
    }
    const written = this.run ? this.run.pieces.length - this.run.prompt : 0;
    const why = S[`why/${reason}`] ?? reason;
    this.status(fill(S[this.run ? "done" : "done/no-prompt"], { written: tokens(written), prompt: this.run && tokens(this.run.prompt), why }), true);
    this.root.dataset.state = "done";
  }

  // How many rows the grid has: the prompt's, then one for each written token the worker sent a query row for
  get rows() {
    return this.run.prompt + this.run.rows.length;
  }

  // The chosen head's query row i (its weights on keys 0 … i)
  rowOf(i, layer, head) {
    const { weights, rows, prompt } = this.run;
    const { layers, heads } = this.config;
    if (i < prompt) return weights.subarray(((layer * heads + head) * prompt + i) * prompt, ((layer * heads + head) * prompt + i + 1) * prompt);
    const row = rows[i - prompt];
    const keys = row.length / (layers * heads);
    return row.subarray((layer * heads + head) * keys, (layer * heads + head + 1) * keys);
  }

  // One draw a frame, however many tokens came in it
  schedule() {
    this.frame ||= requestAnimationFrame(() => {
      this.frame = 0;
      if (this.run) this.draw();
    });
  }

  draw() {
    const run = this.run;
    const n = this.rows;
    const { layer, head } = this.chosen;
    // the head's cells, one pixel each, kept between draws on a canvas of their own: a new token uploads its one
    // new row, and neither canvas changes size while a run grows (a resize reallocates it)
    const key = `${run.id} ${layer} ${head}`;
    if (this.pixels?.key !== key || this.pixels.side < n) {
      const side = Math.max(n, run.prompt + Number(this.form.elements.n.value) || n);
      this.pixels = { key, side, done: 0, image: new ImageData(side, 1) };
      Object.assign(this.source, { width: side, height: side });
    }
    const cells = this.pixels;
    const line = new Uint32Array(cells.image.data.buffer);
    const sourceContext = this.source.getContext("2d");
    for (let i = cells.done; i < n; i++) {
      const row = this.rowOf(i, layer, head);
      line.fill(0);
      for (let j = 0; j <= i && j < row.length; j++) line[j] = COLOURS[Math.round(Math.min(1, Math.max(0, row[j])) * 255)];
      sourceContext.putImageData(cells.image, 0, i);
    }
    cells.done = n;
    const ratio = devicePixelRatio || 1;
    if (!this.width) return; // not laid out yet: the ResizeObserver draws when it is
    const size = Math.round(this.width * ratio);
    if (this.canvas.width !== size) {
      Object.assign(this.canvas, { width: size, height: size });
      this.canvas.style.width = `${size / ratio}px`;
    }
    const cell = size / n;
    const context = this.canvas.getContext("2d");
    context.imageSmoothingEnabled = false;
    context.clearRect(0, 0, size, size);
    context.drawImage(this.source, 0, 0, n, n, 0, 0, size, size);
    if (run.prompt < n) { // the line under the prompt's rows, in the text colour (read again when the scheme changes)
      this.ink ||= getComputedStyle(this.canvas).color;
      const thickness = Math.max(1, Math.round(ratio));
      context.fillStyle = this.ink;
      context.fillRect(0, Math.round(run.prompt * cell - thickness / 2), size, thickness);
    }
    const cursor = this.cursor?.[0] < n ? this.cursor : null;
    if (cursor) { // the keyboard's cell: outlined, read out, and the grid's label (which a screen reader reads on a change)
      context.strokeStyle = this.ink ||= getComputedStyle(this.canvas).color;
      context.lineWidth = Math.max(2, Math.round(2 * ratio));
      context.strokeRect(cursor[1] * cell + 1, cursor[0] * cell + 1, cell - 2, cell - 2);
      this.canvas.setAttribute("aria-label", this.readout(...cursor));
      this.canvas.removeAttribute("aria-labelledby"); // it would win over aria-label
    } else {
      this.canvas.removeAttribute("aria-label");
      this.canvas.setAttribute("aria-labelledby", "aih-smollm-grid-which aih-smollm-grid-caption"); // its captions (template.html)
      this.describe(this.rowOf(n - 1, layer, head), n);
    }
    this.showTop();
    this.showCache(n);
  }

  // The newest row in words, for a reader who cannot see the grid: its three largest weights
  describe(row, n) {
    const { pieces } = this.run;
    const largest = Array.from({ length: n }, (_, j) => j).sort((a, b) => row[b] - row[a]).slice(0, 3);
    const { layer, head } = this.chosen;
    this.slot("row").textContent = fill(S.row, { row: n, token: visible(pieces[n - 1]), layer: layer + 1, head: head + 1,
      largest: AND.format(largest.map((j) => fill(S["row-entry"], { token: visible(pieces[j]), index: j + 1, weight: formatNumber(row[j], 2) }))) });
  }

  point(event) {
    if (!this.run || !this.canvas.clientWidth) return;
    const n = this.rows;
    this.readout(Math.min(n - 1, Math.floor((event.offsetY / this.canvas.clientHeight) * n)),
      Math.min(n - 1, Math.floor((event.offsetX / this.canvas.clientWidth) * n)));
  }

  key(event) {
    const move = ARROWS[event.key];
    if (event.key === "Escape" && this.cursor) {
      this.cursor = null;
      this.draw();
    }
    if (!move || !this.run) return;
    event.preventDefault();
    const n = this.rows;
    const [i, j] = this.cursor || [n - 1, 0];
    this.cursor = [Math.min(n - 1, Math.max(0, i + move[0])), Math.min(n - 1, Math.max(0, j + move[1]))];
    this.draw();
  }

  // One cell in words: its query and key tokens and its weight, or that it is masked
  readout(i, j) {
    const { pieces } = this.run;
    const { layer, head } = this.chosen;
    const cell = { row: i + 1, query: visible(pieces[i]), key: j + 1, token: visible(pieces[j]) };
    const text = j > i ? fill(S["cell/masked"], cell)
      : fill(S.cell, { ...cell, layer: layer + 1, head: head + 1, weight: formatNumber(this.rowOf(i, layer, head)[j], 3) });
    this.slot("row").textContent = text;
    return text;
  }

  // The top five of the step that wrote the newest token: the prediction made at the row before it. Before the
  // first token (stopped at once) there is none, and the table is hidden
  showTop() {
    const { top, picked, pieces } = this.run;
    this.slot("top-box").hidden = !top;
    if (!top) return;
    const n = this.rows;
    this.slot("top-step").textContent = fill(S["top-step"],
      { row: n, token: visible(pieces[n - 1]), previous: n - 1, previous_token: visible(pieces[n - 2]) });
    this.slot("top").replaceChildren(...top.map(({ piece, p }) => h("tr", piece === picked ? { class: "aih-smollm__picked" } : {},
      h("td", {}, h("code", {}, visible(piece)), piece === picked ? ` ${S.written}` : ""), h("td", {}, formatNumber(p, 3)))));
  }

  showCache(n) {
    const { heads, kvHeads } = this.config;
    const bytes = (count) => grouped(cacheBytes(n, this.config, count));
    this.slot("cache").textContent = fill(S.cache, { n, bytes: bytes(kvHeads), kv_heads: kvHeads, full_bytes: bytes(heads), heads });
  }
}

export const start = (root) => new Writer(root);
