// The your-sentence page once the reader asks for the model (loaded on demand by your-sentence.js): a worker
// downloads the weights (with a progress bar) and runs the encoder; this module draws every layer's and head's
// weights on one canvas, scores the heads for the sentence, and opens a head in the site's heatmap widget.
import { cellColour, entropy, formatNumber } from "../../javascripts/attention-math.js";
import { ARROWS, fill, slots, strings } from "../../javascripts/dom.js";
import { enhance } from "../heatmap/heatmap.js";
import { drawRollout } from "./rollout-view.js";

const S = await strings("your-sentence"); // the words this script writes (words/scripts/your-sentence.md)

const PRONOUNS = new Set(["it", "its", "he", "him", "his", "she", "her", "they", "them", "their"]);
// words a pronoun does not stand for: the pronoun link looks past them (and past the word just before it,
// which the previous-token heads look at anyway)
const FUNCTION_WORDS = new Set(("a an the and or but because so if when while that which who this these those of to in " +
  "on at by for with from as is are was were be been am do does did not no has have had will would can could " +
  "it its he him his she her they them their i me my we us our you your").split(" "));
const THUMBNAIL = 44; // CSS pixels per head
const GAP = 4;
const LEFT = 52; // room for "layer 5"
// the weights' colour scale in 256 steps, as RGBA pixels (the thumbnails are too small to show finer steps)
const COLOURS = Uint32Array.from({ length: 256 }, (_, step) =>
  new Uint32Array(Uint8ClampedArray.from([...cellColour(step / 255, "weights", 1), 255]).buffer)[0]);
const TOP = 16; // room for the head numbers

// ---------------------------------------------------------------- pure: what the page says about the heads

// weights: n_layers × Float32Array (n_heads, n, n) -> per pattern, a (n_layers × n_heads) table of scores, as
// models/minilm/analysis.py computes them: the mean over the rows of the previous token's, the next token's, and
// [CLS] plus [SEP]'s share of the row.
export function patternScores(weights, heads, n) {
  const at = (layer, head, i, j) => weights[layer][(head * n + i) * n + j];
  const table = (score) => weights.map((_, layer) => Array.from({ length: heads }, (_, head) => score(layer, head)));
  const mean = (count, entry) => {
    let total = 0;
    for (let i = 0; i < count; i++) total += entry(i);
    return total / count;
  };
  return {
    previous: table((l, h) => mean(n - 1, (i) => at(l, h, i + 1, i))),
    next: table((l, h) => mean(n - 1, (i) => at(l, h, i, i + 1))),
    sink: table((l, h) => mean(n, (i) => at(l, h, i, 0) + at(l, h, i, n - 1))),
  };
}

// The first pronoun with a candidate before it, and per head the earlier word its row weighs most among the
// candidates a pronoun can stand for: words before it, not the one just before, not a function word, a piece
// of a word or punctuation ("She said her cat ate its dinner." links "its", as "she" and "her" have none).
export function pronounLinks(weights, heads, tokens) {
  const n = tokens.length;
  const content = tokens.map((token, j) => j > 0 && /^[\p{L}\p{N}]+$/u.test(token) && !FUNCTION_WORDS.has(token));
  const query = tokens.findIndex((token, i) => PRONOUNS.has(token) && content.slice(0, i - 1).includes(true));
  if (query < 0) return null;
  const words = content.map((word, j) => word && j < query - 1);
  const link = (layer, head) => {
    let best = -1;
    for (let j = 1; j < query; j++) if (words[j] && (best < 0 || weights[layer][(head * n + query) * n + j] > weights[layer][(head * n + query) * n + best])) best = j;
    return { key: best, weight: weights[layer][(head * n + query) * n + best] };
  };
  return { query, table: weights.map((_, layer) => Array.from({ length: heads }, (_, head) => link(layer, head))) };
}

// The head with the highest score (the earlier head on a tie), the runner-up, and the median of all heads.
export function standout(table, value = (x) => x) {
  const all = table.flatMap((row, layer) => row.map((entry, head) => ({ layer, head, score: value(entry), entry })));
  const best = all.reduce((top, candidate) => (candidate.score > top.score ? candidate : top));
  const runnerUp = all.filter((item) => item !== best).reduce((top, candidate) => (candidate.score > top.score ? candidate : top));
  const sorted = all.map((item) => item.score).sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median = sorted.length % 2 ? sorted[Math.floor(middle)] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { ...best, runnerUp, median };
}

// The head(s) the table names: the best, and the runner-up too when the two are closer than the rounding of the
// weights can tell apart (tieMargin, twice the page's error bound; models/minilm/analysis.py's named_heads).
export function namedHeads(best, tieMargin) {
  const label = ({ layer, head }) => fill(S["named-head"], { layer: layer + 1, head: head + 1 }); // counted from 1, as everywhere a reader looks
  return best.score - best.runnerUp.score < tieMargin
    ? fill(S["named-heads/tied"], { best: label(best), runner_up: label(best.runnerUp) }) : label(best);
}

// One layer of the result as a multi-head worked example, the shape heatmap.js reads from examples/<id>.json.
export function layerExample(result, layer, config) {
  const { tokens, weights, projections } = result;
  const n = tokens.length;
  const heads = config.n_heads;
  const dK = config.d_model / heads;
  const split = (flat) => Array.from({ length: heads }, (_, h) =>
    Array.from({ length: n }, (_, i) => Array.from(flat.subarray(i * config.d_model + h * dK, i * config.d_model + (h + 1) * dK))));
  const [Q, K, V] = projections[layer].map(split);
  const headWeights = Array.from({ length: heads }, (_, h) =>
    Array.from({ length: n }, (_, i) => Array.from(weights[layer].subarray((h * n + i) * n, (h * n + i + 1) * n))));
  return {
    tokens, n_heads: heads, d_k: dK, scale: 1 / Math.sqrt(dK), inputs: {}, outputs: {},
    steps: { Q, K, V, weights: headWeights, entropy: headWeights.map((rows) => rows.map(entropy)) },
  };
}

// ---------------------------------------------------------------- the page

class YourSentence {
  constructor(root) {
    this.root = root;
    this.slot = (name) => slots(root, name)[0];
    this.canvas = this.slot("grid");
    this.viewer = root.querySelector("figure.aih-heatmap");
    this.selected = { layer: 0, head: 0 };
    this.worker = new Worker(new URL("./your-sentence-worker.js", import.meta.url), { type: "module" });
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = ({ data }) => {
        if (data.type === "progress") this.showProgress(data.loaded, data.total);
        else if (data.type === "ready") resolve();
        else if (data.type === "result") this.show(data);
        else if (data.type === "error" && data.during === "run") this.runFailed(new Error(data.message));
        else if (data.type === "error") reject(new Error(data.message));
      };
      this.worker.onerror = (event) => reject(new Error(event.message || "the worker could not start"));
    });
    this.ready.then(() => {
      const button = this.slot("run");
      button.textContent = button.dataset.loaded; // the model is in the page now: no download, no wait
    }, (error) => this.fail(error));
    this.worker.postMessage({ type: "load", manifest: new URL(`../../${root.dataset.model}`, import.meta.url).href });
    this.canvas.addEventListener("click", (event) => this.pick(event));
    this.canvas.addEventListener("keydown", (event) => this.key(event));
    // the canvases' labels are drawn in the text colour: a switch of colour scheme draws them again
    new MutationObserver(() => this.result && this.draw()).observe(document.body, { attributes: true, attributeFilter: ["data-md-color-scheme"] });
    this.stored = "stored" in root.dataset; // your-sentence.js found every file in the browser's storage
    this.status(this.stored ? S.reading : fill(S.downloading, { size: root.dataset.size }));
  }

  status(text) {
    this.slot("status").textContent = text;
  }

  showProgress(loaded, total) {
    if (this.root.dataset.state === "failed") return; // a failure stays on screen: nothing after it is news
    const bar = this.slot("progress");
    bar.hidden = false;
    bar.max = total || loaded;
    bar.value = loaded;
    this.status(fill(S[this.stored ? "progress/stored" : "progress/download"],
      { loaded: formatNumber(loaded / 1e6, 1), total: formatNumber((total || loaded) / 1e6, 1) }));
  }

  fail(error) {
    this.clear();
    this.status(fill(S["not-loaded"], { error: error.message }));
    this.root.dataset.state = "failed";
  }

  // A run that failed: the previous sentence's tokens, grid and scores go, so that nothing on screen looks current.
  runFailed(error) {
    this.clear();
    this.status(fill(S["not-run"], { error: error.message }));
    this.root.dataset.state = "failed";
  }

  clear() {
    this.slot("progress").hidden = true;
    this.result = null;
    this.slot("results").hidden = true;
    this.viewer.hidden = true;
    for (const name of ["tokens", "cut", "scores"]) this.slot(name).replaceChildren();
    this.canvas.width = 0; // a blank grid
  }

  async run(text) {
    performance.mark("aih-yours-run");
    try {
      await this.ready;
    } catch {
      return; // fail() has said so
    }
    try {
      this.slot("progress").hidden = true;
      this.status(S.running);
      const wellFormed = text.toWellFormed(); // a lone surrogate (half a character) becomes U+FFFD, which the tokenizer drops
      history.replaceState(null, "", `#s=${encodeURIComponent(wellFormed)}`);
      this.worker.postMessage({ type: "run", text: wellFormed });
    } catch (error) {
      this.runFailed(error);
    }
  }

  show(result) {
    this.result = result;
    const { tokens, pieceCount, cut } = result;
    const n = tokens.length;
    this.slot("results").hidden = false;
    this.slot("tokens").textContent = tokens.join(" ");
    this.slot("cut").hidden = !cut;
    this.slot("cut").textContent = cut ? fill(S["too-long"], { pieces: pieceCount, kept: n - 2, limit: n }) : "";
    this.drawGrid();
    performance.mark("aih-yours-grid");
    // The rollout, then the scores, then the new sentence in the heatmap (the first pattern's strongest head; the
    // reader can choose another), each in a task of its own: no task keeps the page busy for long (the heatmap
    // builds itself in a few more)
    const next = (step) => setTimeout(() => {
      if (this.result !== result) return; // another run, or a failure, came in between
      try {
        step();
      } catch (error) {
        this.runFailed(error);
      }
    });
    next(() => {
      this.drawRollout();
      next(() => {
        const strongest = this.drawScores();
        this.status(fill(S.computed, { n, milliseconds: formatNumber(result.forwardMilliseconds, 0) }));
        this.root.dataset.state = "done";
        this.root.dataset.text = result.text; // the sentence on screen, which the box may no longer hold
        this.root.dataset.forwardMilliseconds = result.forwardMilliseconds; // for scripts/bench_your_sentence.py
        next(() => this.open(strongest).then(() => performance.mark("aih-yours-head")));
      });
    });
  }

  drawRollout() {
    drawRollout(this.slot("rollout"), this.slot("rollout-summary"), this.result.rollout, this.result.tokens);
  }

  draw() {
    this.drawGrid();
    this.drawRollout();
  }

  // Every head's weights as a thumbnail, all in one image (each device pixel takes the cell under it), then the labels
  drawGrid() {
    const { weights, tokens } = this.result;
    const n = tokens.length;
    const layers = weights.length;
    const heads = weights[0].length / (n * n);
    Object.assign(this, { layers, heads });
    const ratio = devicePixelRatio || 1;
    const width = LEFT + heads * (THUMBNAIL + GAP);
    const height = TOP + layers * (THUMBNAIL + GAP);
    Object.assign(this.canvas, { width: Math.round(width * ratio), height: Math.round(height * ratio) });
    this.canvas.style.width = `${width}px`;
    const context = this.canvas.getContext("2d");
    const image = context.createImageData(this.canvas.width, this.canvas.height);
    const pixels = new Uint32Array(image.data.buffer); // one RGBA pixel each, in the platform's byte order
    const size = Math.round(THUMBNAIL * ratio); // a thumbnail's side in device pixels
    const cellOf = Array.from({ length: size }, (_, pixel) => Math.floor((pixel * n) / size)); // pixel -> row or column
    for (let layer = 0; layer < layers; layer++) {
      for (let head = 0; head < heads; head++) {
        const left = Math.round((LEFT + head * (THUMBNAIL + GAP)) * ratio);
        const top = Math.round((TOP + layer * (THUMBNAIL + GAP)) * ratio);
        const offset = head * n * n;
        for (let y = 0; y < size; y++) {
          const row = offset + cellOf[y] * n;
          const start = (top + y) * image.width + left;
          for (let x = 0; x < size; x++) pixels[start + x] = COLOURS[Math.round(weights[layer][row + cellOf[x]] * 255)];
        }
      }
    }
    context.putImageData(image, 0, 0);
    context.scale(ratio, ratio);
    context.fillStyle = getComputedStyle(this.canvas).color;
    context.font = "11px sans-serif";
    for (let layer = 0; layer < layers; layer++) context.fillText(fill(S.layer, { layer: layer + 1 }), 0, TOP + layer * (THUMBNAIL + GAP) + THUMBNAIL / 2 + 4);
    for (let head = 0; head < heads; head++) context.fillText(head + 1, LEFT + head * (THUMBNAIL + GAP) + THUMBNAIL / 2 - 3, TOP - 4);
  }

  drawScores() {
    const { weights, tokens } = this.result;
    const n = tokens.length;
    const patterns = patternScores(weights, this.heads, n);
    const links = pronounLinks(weights, this.heads, tokens);
    const tieMargin = Number(this.root.dataset.tieMargin);
    const rows = [
      ["previous", S["pattern/previous"], standout(patterns.previous)],
      ["next", S["pattern/next"], standout(patterns.next)],
      ["sink", S["pattern/sink"], standout(patterns.sink)],
    ];
    if (links) {
      const best = standout(links.table, (entry) => entry.weight);
      // where the pronoun looks, worded so: the table cannot tell what, if anything, the pronoun stands for
      rows.push(["pronoun", fill(S["pattern/pronoun"], { pronoun: tokens[links.query], word: tokens[best.entry.key] }), best]);
    }
    this.slot("scores").replaceChildren(...rows.map(([kind, what, best]) => {
      const row = document.createElement("tr");
      row.dataset.kind = kind;
      for (const text of [what, namedHeads(best, tieMargin), formatNumber(best.score, 3), formatNumber(best.median, 3)]) {
        row.append(Object.assign(document.createElement("td"), { textContent: text }));
      }
      return row;
    }));
    this.slot("no-pronoun").hidden = !!links;
    return rows[0][2]; // the first pattern's strongest head
  }

  // the head under the pointer, or none between thumbnails (a narrow screen shows the canvas scaled down)
  headAt(event) {
    const shrink = parseFloat(this.canvas.style.width) / this.canvas.clientWidth;
    const x = event.offsetX * shrink - LEFT;
    const y = event.offsetY * shrink - TOP;
    const head = Math.floor(x / (THUMBNAIL + GAP));
    const layer = Math.floor(y / (THUMBNAIL + GAP));
    return x >= 0 && y >= 0 && head < this.heads && layer < this.layers ? { layer, head } : null;
  }

  pick(event) {
    const chosen = this.headAt(event);
    if (chosen) this.open(chosen);
  }

  key(event) {
    const move = ARROWS[event.key] || ((event.key === "Enter" || event.key === " ") && [0, 0]);
    if (!move || !this.result) return;
    event.preventDefault();
    const layer = Math.min(this.layers - 1, Math.max(0, this.selected.layer + move[0]));
    const head = Math.min(this.heads - 1, Math.max(0, this.selected.head + move[1]));
    this.open({ layer, head });
  }

  open({ layer, head }) {
    this.selected = { layer, head };
    this.viewer.dataset.head = head;
    const longest = Math.max(...this.result.tokens.map((token) => token.length));
    this.viewer.style.setProperty("--aih-yours-tokens", `${Math.min(longest + 3, 16)}ch`); // your-sentence.css
    this.viewer.hidden = false;
    this.canvas.setAttribute("aria-label", fill(S.grid, { layer: layer + 1, head: head + 1 }));
    this.slot("open").textContent = fill(S.showing, { layer: layer + 1, head: head + 1 });
    return enhance(this.viewer, [], layerExample(this.result, layer, { n_heads: this.heads, d_model: this.result.projections[0][0].length / this.result.tokens.length }));
  }
}

export function start(root) {
  return new YourSentence(root);
}
