// The your-sentence model, in a Web Worker so the page never freezes. Messages in: {type: "load", manifest
// (its URL)} once, then {type: "run", text}. Messages out: "progress" {loaded, total}, "ready", "result" {tokens,
// pieceCount, cut, weights, projections}, "error" {message}. Large arrays travel as transferred buffers.
import { encode, loadParams } from "./encoder.js";
import { WordPiece } from "./wordpiece.js";

let model = null; // { manifest, params, tokenizer }

// The file at `url` as an ArrayBuffer, reporting the bytes read so far of `total`.
async function download(url, onProgress) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${response.status} for ${url}`);
  const total = Number(response.headers.get("Content-Length")) || 0;
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    onProgress(loaded, total);
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes.buffer;
}

async function load(manifestUrl) {
  const manifest = await (await fetch(manifestUrl)).json();
  const root = new URL("..", manifestUrl); // the manifest's file names are from the site root
  const [weights, vocabulary] = await Promise.all([
    download(new URL(manifest.files.weights, root), (loaded, total) => postMessage({ type: "progress", loaded, total })),
    fetch(new URL(manifest.files.vocabulary, root)).then((response) => {
      if (!response.ok) throw new Error(`${response.status} for ${response.url}`);
      return response.text();
    }),
  ]);
  const { tokenizer: settings } = manifest;
  model = {
    manifest,
    params: loadParams(manifest.tensors, weights, manifest.config),
    tokenizer: new WordPiece(vocabulary, {
      unknown: settings.unknown, prefix: settings.prefix, maxInputCharsPerWord: settings.max_input_chars_per_word,
      specialTokens: settings.special_tokens,
    }),
  };
  postMessage({ type: "ready" });
}

function run(text) {
  const { manifest, params, tokenizer } = model;
  const { tokens, ids, pieceCount, cut } = tokenizer.encode(text, manifest.tokenizer.max_tokens);
  const started = performance.now();
  const { weights, projections } = encode(params, manifest.config, ids);
  const forwardMilliseconds = performance.now() - started;
  const layers = weights.map((layerWeights) => new Float32Array(layerWeights)); // (n_heads, n, n) each
  const qkv = projections.map(({ Q, K, V }) => [Q, K, V].map((array) => new Float32Array(array))); // (n, d_model)
  postMessage({ type: "result", text, tokens, pieceCount, cut, weights: layers, projections: qkv, forwardMilliseconds },
    [...layers.map((array) => array.buffer), ...qkv.flat().map((array) => array.buffer)]);
}

onmessage = async ({ data }) => {
  try {
    if (data.type === "load") await load(data.manifest);
    else if (data.type === "run") run(data.text);
  } catch (error) {
    postMessage({ type: "error", message: String(error.message || error) });
  }
};
