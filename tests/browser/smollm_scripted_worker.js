// A scripted stand-in for docs/widgets/smollm/smollm-worker.js, served in its place by
// tests/browser/test_smollm_page.py: it speaks the worker's protocol (the header of smollm-worker.js) with made-up
// numbers, so that the page's side can be tested step by step, each failure forced. It runs no model.
// - load: two progress messages, then ready (or an error, if the manifest URL's query has fail=load);
// - write: the prompt cut into pieces of up to 3 characters (the last 128 kept: cut), each row's weights uniform
//   over the keys so far; then one token every 30 ms, " w1", " w2", …, its top five made up (p 0.5, 0.2, …);
//   a prompt that holds "FAIL" gets an error instead;
// - stop: done, "stopped", before the next token.
const LAYERS = 30, HEADS = 9, MAX_PROMPT_TOKENS = 128;
let stopped = new Set();

onmessage = ({ data }) => {
  if (data.type === "load") {
    if (data.manifest.includes("fail=load")) return postMessage({ type: "error", during: "load", message: "smollm-weights-0.0123.bin: HTTP 503" });
    postMessage({ type: "progress", loaded: 0, total: 1000 });
    postMessage({ type: "progress", loaded: 1000, total: 1000 });
    postMessage({ type: "ready", config: { n_layers: LAYERS, n_heads: HEADS, n_kv_heads: 3 }, cached: false });
  } else if (data.type === "stop") {
    stopped.add(data.id);
  } else if (data.type === "write") {
    write(data);
  }
};

const uniformRows = (n) => {
  const weights = new Float32Array(LAYERS * HEADS * n * n);
  for (let lh = 0; lh < LAYERS * HEADS; lh++) for (let i = 0; i < n; i++) for (let j = 0; j <= i; j++) weights[(lh * n + i) * n + j] = 1 / (i + 1);
  return weights;
};

async function write({ id, prompt, maxNew }) {
  if (prompt.includes("FAIL")) return postMessage({ type: "error", during: "write", id, message: "the scripted worker was told to fail" });
  const characters = [...prompt];
  let pieces = [];
  for (let i = 0; i < characters.length; i += 3) pieces.push(characters.slice(i, i + 3).join(""));
  const cut = pieces.length > MAX_PROMPT_TOKENS;
  pieces = pieces.slice(-MAX_PROMPT_TOKENS);
  const n = pieces.length;
  postMessage({ type: "prompt", id, ids: pieces.map((_, i) => i), pieces, cut, weights: uniformRows(n) });
  for (let step = 0; step < maxNew; step++) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    if (stopped.has(id)) return postMessage({ type: "done", id, reason: "stopped" });
    const keys = n + step + 1;
    const row = new Float32Array(LAYERS * HEADS * keys).fill(1 / keys);
    const top = [0.5, 0.2, 0.1, 0.05, 0.01].map((p, k) => ({ piece: k ? ` x${k}` : ` w${step + 1}`, p }));
    postMessage({ type: "token", id, step, tokenId: 1000 + step, piece: ` w${step + 1}`, top, row });
  }
  postMessage({ type: "done", id, reason: "length" });
}
