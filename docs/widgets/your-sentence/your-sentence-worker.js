// The your-sentence model, in a Web Worker so the page never freezes. Messages in: {type: "load", manifest
// (its URL)} once, then {type: "run", text}. Messages out: "progress" {loaded, total} (bytes of all the files the
// manifest lists), "ready", "result" {tokens, pieceCount, cut, weights, projections, rollout (n, n):
// rollout.js}, "error" {during: "load" or "run", message}. Large arrays travel as transferred buffers.
import { createEncoder, inflate, loadParams } from "./encoder.js";
import { attentionRollout } from "./rollout.js";
import { WordPiece } from "./wordpiece.js";

let model = null; // { manifest, encode, tokenizer }

const fileName = (url) => new URL(url).pathname.split("/").pop();
const hex = (buffer) => Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");

// The file at `url` as an ArrayBuffer, reporting the bytes read so far. An error names the file, and its HTTP
// status when there was an answer.
async function download(url, signal, onProgress = () => {}) {
  const failed = (what) => new Error(`${fileName(url)}: ${what}`);
  const response = await fetch(url, { signal }).catch((error) => {
    throw failed(error.message);
  });
  if (!response.ok) throw failed(`HTTP ${response.status}`);
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
    onProgress(value.length);
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

// Cache Storage keeps the model's files once checked, so a later visit (a #s= link) runs without downloading;
// your-sentence.js looks there, by this name, before it runs a link's sentence at once.
const CACHE = "aih-your-sentence-model";

// The file at `url`, from the cache if it is there (every file's name holds a hash of its content, so a kept copy
// is the right one), else downloaded and kept.
async function fetchFile(store, url, signal, onProgress = () => {}) {
  const kept = await store?.match(url);
  if (kept) {
    const buffer = await kept.arrayBuffer();
    onProgress(buffer.byteLength);
    return buffer;
  }
  const buffer = await download(url, signal, onProgress);
  await store?.put(url, new Response(buffer)).catch(() => {}); // full storage: the next visit downloads again
  return buffer;
}

const KINDS = ["weights", "vocabulary", "kernels"]; // the files a manifest lists

// The manifest in `buffer`, or null if it is not JSON of the manifest's shape (an error page's {"error": …}, null)
function manifestIn(buffer) {
  try {
    const manifest = JSON.parse(new TextDecoder().decode(buffer));
    const shaped = ["tensors", "config", "tokenizer"].every((part) => manifest?.[part] instanceof Object) &&
      KINDS.every((kind) => typeof manifest.files?.[kind] === "string" && manifest.integrity?.[kind] instanceof Object);
    return shaped ? manifest : null;
  } catch {
    return null;
  }
}

// The manifest at `url`: a kept copy of the wrong shape is dropped and downloaded again, and a download of the
// wrong shape is never kept, so one bad answer cannot break every later visit.
async function fetchManifest(store, url, signal) {
  const kept = await store?.match(url);
  const manifest = kept && manifestIn(await kept.arrayBuffer());
  if (manifest) return manifest;
  await store?.delete(url);
  const buffer = await download(url, signal);
  const downloaded = manifestIn(buffer);
  if (!downloaded) throw new Error(`${fileName(url)} is not the model's manifest (not JSON listing its files)`);
  await store?.put(url, new Response(buffer)).catch(() => {}); // full storage: the next visit downloads again
  return downloaded;
}

async function load(manifestUrl) {
  const controller = new AbortController(); // the first download that fails stops the others
  const { signal } = controller;
  const store = await globalThis.caches?.open(CACHE).catch(() => null); // none on a plain-http page
  const manifest = await fetchManifest(store, manifestUrl, signal);
  const root = new URL("..", manifestUrl); // the manifest's file names are from the site root
  const file = async (kind, onProgress) => {
    const url = new URL(manifest.files[kind], root).href;
    try {
      return await verified(url, await fetchFile(store, url, signal, onProgress), manifest.integrity[kind]);
    } catch (error) {
      controller.abort();
      store?.delete(url); // a corrupted copy is never used twice
      throw error;
    }
  };
  const total = Object.values(manifest.integrity).reduce((sum, { bytes }) => sum + bytes, 0); // the page's size too
  let loaded = 0;
  const progress = (bytes) => postMessage({ type: "progress", loaded: (loaded += bytes), total });
  const [weights, vocabulary, kernels] = await Promise.all(KINDS.map((kind) => file(kind, progress)));
  // files of an earlier model (their names hold another hash) are of no more use
  const current = new Set([manifestUrl, ...Object.values(manifest.files).map((name) => new URL(name, root).href)]);
  for (const request of (await store?.keys()) || []) if (!current.has(request.url)) store.delete(request);
  const { tokenizer: settings } = manifest;
  model = {
    manifest,
    encode: await createEncoder(loadParams(manifest.tensors, await inflate(weights), manifest.config), manifest.config,
      kernels),
    tokenizer: new WordPiece(new TextDecoder().decode(vocabulary), {
      unknown: settings.unknown, prefix: settings.prefix, maxInputCharsPerWord: settings.max_input_chars_per_word,
      specialTokens: settings.special_tokens,
    }),
  };
  postMessage({ type: "ready" });
}

function run(text) {
  const { manifest, encode, tokenizer } = model;
  const { tokens, ids, pieceCount, cut } = tokenizer.encode(text, manifest.tokenizer.max_tokens);
  const started = performance.now();
  const { weights: layers, projections } = encode(ids, { attentionOnly: true }); // (n_heads, n, n) per layer
  const forwardMilliseconds = performance.now() - started;
  const qkv = projections.map(({ Q, K, V }) => [Q, K, V]); // (n, d_model) each
  layers.forEach((layerWeights, layer) => { // a NaN would be drawn and scored as if it were a number
    const arrays = { weights: layerWeights, Q: qkv[layer][0], K: qkv[layer][1], V: qkv[layer][2] };
    for (const [name, array] of Object.entries(arrays)) {
      if (!array.every(Number.isFinite)) throw new Error(`layer ${layer + 1}'s ${name} are not all finite numbers`);
    }
  });
  const rollout = new Float32Array(attentionRollout(layers, manifest.config.n_heads, tokens.length)); // (n, n)
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
