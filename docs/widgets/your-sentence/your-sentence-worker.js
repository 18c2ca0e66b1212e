// The your-sentence model, in a Web Worker so the page never freezes. Messages in: {type: "load", manifest
// (its URL)} once, then {type: "run", text}. Messages out: "progress" {loaded, total} (bytes of all the files the
// manifest lists), "ready", "result" {tokens, pieceCount, cut, weights, projections, rollout (n, n):
// rollout.js}, "error" {during: "load" or "run", message}. Large arrays travel as transferred buffers.
import { createEncoder, inflate, loadParams } from "./encoder.js";
import { attentionRollout } from "./rollout.js";
import { WordPiece } from "./wordpiece.js";
import { dropOthers, fetchFile, fetchManifest, openStore } from "../../javascripts/model-files.js";

let model = null; // { manifest, encode, tokenizer }

// Cache Storage keeps the model's files once checked, so a later visit (a #s= link) runs without downloading;
// your-sentence.js looks there, by this name, before it runs a link's sentence at once.
const CACHE = "aih-your-sentence-model";

const KINDS = ["weights", "vocabulary", "kernels"]; // the files a manifest lists

// Whether `manifest` has the shape of this model's (not an error page's {"error": …}, nor null)
const shaped = (manifest) => ["tensors", "config", "tokenizer"].every((part) => manifest?.[part] instanceof Object) &&
  KINDS.every((kind) => typeof manifest.files?.[kind] === "string" && manifest.integrity?.[kind] instanceof Object);

async function load(manifestUrl) {
  const controller = new AbortController(); // the first download that fails stops the others
  const { signal } = controller;
  const store = await openStore(CACHE);
  const manifest = await fetchManifest(store, manifestUrl, signal, shaped);
  const root = new URL("..", manifestUrl); // the manifest's file names are from the site root
  const file = async (kind, onProgress) => {
    const url = new URL(manifest.files[kind], root).href;
    try {
      return (await fetchFile(store, url, manifest.integrity[kind], { signal, onProgress })).bytes;
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
  await dropOthers(store, new Set([manifestUrl, ...Object.values(manifest.files).map((name) => new URL(name, root).href)]));
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
