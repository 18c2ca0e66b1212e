// The your-sentence model, in a Web Worker so the page never freezes. Messages in: {type: "load", manifest
// (its URL)} once, then {type: "run", text}. Messages out: "progress" {loaded, total}, "ready", "result" {tokens,
// pieceCount, cut, weights, projections, rollout (n, n): docs/javascripts/rollout.js}, "error" {during: "load" or "run", message}. Large arrays travel as
// transferred buffers.
import { encode, inflate, loadParams } from "./encoder.js";
import { attentionRollout } from "./rollout.js";
import { WordPiece } from "./wordpiece.js";

let model = null; // { manifest, params, tokenizer }

const fileName = (url) => new URL(url).pathname.split("/").pop();
const hex = (buffer) => Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");

// The file at `url` as an ArrayBuffer, reporting the bytes read so far of `total`. An error names the file, and
// its HTTP status when there was an answer.
async function download(url, signal, onProgress = () => {}) {
  const failed = (what) => new Error(`${fileName(url)}: ${what}`);
  const response = await fetch(url, { signal }).catch((error) => {
    throw failed(error.message);
  });
  if (!response.ok) throw failed(`HTTP ${response.status}`);
  const total = Number(response.headers.get("Content-Length")) || 0;
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((error) => {
      throw failed(error.message);
    });
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

// `buffer` if it is the file the build published (the manifest's byte count and SHA-256 for it), else an error
// naming it: a file cut short, or changed on the way or in a cache, would give the reader wrong numbers.
async function verified(url, buffer, expected) {
  const corrupted = (what) => new Error(`the download of ${fileName(url)} is corrupted: ${what}`);
  if (buffer.byteLength !== expected.bytes) throw corrupted(`${buffer.byteLength} bytes, not ${expected.bytes}`);
  // (crypto.subtle exists on https pages and on this machine's own addresses: a page served over plain http
  // elsewhere checks the byte count only)
  if (crypto.subtle && hex(await crypto.subtle.digest("SHA-256", buffer)) !== expected.sha256) {
    throw corrupted("its SHA-256 is not the one the site published");
  }
  return buffer;
}

async function load(manifestUrl) {
  const controller = new AbortController(); // the first download that fails stops the others
  const { signal } = controller;
  let manifest;
  try {
    manifest = JSON.parse(new TextDecoder().decode(await download(manifestUrl, signal)));
  } catch (error) {
    throw error instanceof SyntaxError ? new Error(`${fileName(manifestUrl)} is not valid JSON`) : error;
  }
  const root = new URL("..", manifestUrl); // the manifest's file names are from the site root
  const file = async (kind, onProgress) => {
    const url = new URL(manifest.files[kind], root).href;
    try {
      return await verified(url, await download(url, signal, onProgress), manifest.integrity[kind]);
    } catch (error) {
      controller.abort();
      throw error;
    }
  };
  const [weights, vocabulary] = await Promise.all([
    file("weights", (loaded, total) => postMessage({ type: "progress", loaded, total })),
    file("vocabulary"),
  ]);
  const { tokenizer: settings } = manifest;
  model = {
    manifest,
    params: loadParams(manifest.tensors, await inflate(weights), manifest.config),
    tokenizer: new WordPiece(new TextDecoder().decode(vocabulary), {
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
  layers.forEach((layerWeights, layer) => { // a NaN would be drawn and scored as if it were a number
    const arrays = { weights: layerWeights, Q: qkv[layer][0], K: qkv[layer][1], V: qkv[layer][2] };
    for (const [name, array] of Object.entries(arrays)) {
      if (!array.every(Number.isFinite)) throw new Error(`layer ${layer + 1}'s ${name} are not all finite numbers`);
    }
  });
  const rollout = new Float32Array(attentionRollout(weights, manifest.config.n_heads, tokens.length)); // (n, n)
  postMessage({ type: "result", text, tokens, pieceCount, cut, weights: layers, projections: qkv, rollout, forwardMilliseconds },
    [...layers.map((array) => array.buffer), ...qkv.flat().map((array) => array.buffer), rollout.buffer]);
}

onmessage = async ({ data }) => {
  try {
    if (data.type === "load") await load(data.manifest);
    else if (data.type === "run") run(data.text);
  } catch (error) {
    postMessage({ type: "error", during: data.type, message: String(error.message || error) });
  }
};
