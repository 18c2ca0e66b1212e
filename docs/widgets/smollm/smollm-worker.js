// SmolLM2-135M in a Web Worker, so the page never freezes while it writes. The protocol (ids and indices from 0):
//
// in  {type: "load", manifest}        the manifest's URL (figures_src/pages/smollm.py writes it: files, integrity,
//                                     limits, layout). Every file is downloaded (or read from Cache Storage,
//                                     "aih-smollm-model"), checked against its byte count and SHA-256, and kept.
// out {type: "progress", loaded, total}  bytes so far, of all the files the manifest lists
//     {type: "ready", config, cached}    the model's shape (layout.config); cached: no file had to be downloaded
//     {type: "error", during: "load", message}  naming the file and what failed
// in  {type: "write", id, prompt, maxNew, temperature, topK, seed}
// out {type: "prompt", id, ids, pieces, cut, weights}  the prompt's tokens (its last limits.max_prompt_tokens:
//                                     cut says so; an empty prompt is the BOS token alone), each token's text, and
//                                     weights (layers, heads, n, n) row-major, zeros above the diagonal
//     {type: "token", id, step, tokenId, piece, top, row}  per new token: top, the 5 most probable tokens at
//                                     temperature 1 ({piece, p}) it was chosen among; row (layers, heads, keys), the
//                                     new token's own attention row over every token so far, itself included
//     {type: "done", id, reason}       "eos" (the model wrote its end-of-text token, not sent), "length" (maxNew
//                                     tokens, at most limits.max_new), or "stopped"
//     {type: "error", during: "write", id, message}
// in  {type: "stop", id}               the write `id` ends before its next token ("done", "stopped"); a new write
//                                     ends the one under way the same way.
// temperature 0 is greedy; above it, the token is drawn from the top k (0: all) with mulberry32 seeded by `seed`
// (sample.js): the same prompt and settings give the same tokens. Large arrays travel as transferred buffers.
import { dropOthers, fetchFile, fetchManifest, openStore } from "../../javascripts/model-files.js";
import { BPE } from "./bpe.js";
import { createLlama } from "./llama.js";
import { mostProbable, sample, seededRandom } from "./sample.js";

const CACHE = "aih-smollm-model";
const TOP = 5; // the probabilities shown per token
const KERNELS = "smollm-kernels", TOKENIZER = "smollm-tokenizer"; // stems of the files besides the weights' shards

let model = null; // { llama, tokenizer, limits, specials }
let running = null; // { id, stopped } of the write under way

// Whether `manifest` has this model's shape (not an error page's {"error": …}, nor null)
const shaped = (manifest) => ["limits", "layout"].every((part) => manifest?.[part] instanceof Object) &&
  [KERNELS, TOKENIZER, ...(manifest.layout.shards ?? [null])].every((stem) =>
    typeof manifest.files?.[stem] === "string" && manifest.integrity?.[stem] instanceof Object);

async function load(manifestUrl) {
  const store = await openStore(CACHE);
  const manifest = await fetchManifest(store, manifestUrl, undefined, shaped);
  const { layout, limits } = manifest;
  const root = new URL("..", manifestUrl); // the manifest's file names are from the site root
  const total = Object.values(manifest.integrity).reduce((sum, { bytes }) => sum + bytes, 0);
  let loaded = 0, cached = true;
  const progress = (bytes) => postMessage({ type: "progress", loaded: (loaded += bytes), total });
  const file = async (stem, target = null) => {
    const url = new URL(manifest.files[stem], root).href;
    try {
      const { bytes, kept } = await fetchFile(store, url, manifest.integrity[stem], { onProgress: progress, target });
      cached &&= kept;
      return bytes;
    } catch (error) {
      store?.delete(url); // a corrupted copy is never used twice
      throw error;
    }
  };
  // the kernels first (small): the model's memory is made with them, and the weights are read straight into it,
  // one file after the other (the SHA-256 check copies a shard: 50 MB more while it lasts, once at a time)
  const llama = await createLlama(layout, await file(KERNELS), limits.max_prompt_tokens + limits.max_new);
  const tokenizer = await file(TOKENIZER);
  for (const [index, stem] of layout.shards.entries()) await file(stem, llama.shard(index));
  await dropOthers(store, new Set([manifestUrl, ...Object.values(manifest.files).map((name) => new URL(name, root).href)]));
  llama.prepare();
  model = { llama, limits, specials: layout.tokenizer, tokenizer: new BPE(JSON.parse(new TextDecoder().decode(tokenizer))) };
  postMessage({ type: "ready", config: layout.config, cached });
}

// A task's turn for the messages waiting (a "stop"), without setTimeout's clamping
const channel = new MessageChannel();
const turn = () => new Promise((resolve) => {
  channel.port1.onmessage = resolve;
  channel.port2.postMessage(null);
});

async function write({ id, prompt, maxNew, temperature, topK, seed }) {
  if (!model) throw new Error("the model is not loaded yet: send load first");
  const run = (running = { id, stopped: false });
  const { llama, tokenizer, limits, specials } = model;
  const encoded = tokenizer.encode(String(prompt));
  const cut = encoded.length > limits.max_prompt_tokens;
  const ids = encoded.length ? encoded.slice(-limits.max_prompt_tokens) : [specials.bos];
  // each token's text: its bytes through one streaming decoder, so a character split across tokens is whole in
  // the token that completes it, and the pieces join to the text
  const text = new TextDecoder("utf-8", { ignoreBOM: true }); // a leading U+FEFF is text, not a byte-order mark
  const piece = (tokenId) => text.decode(Uint8Array.from(tokenizer.bytes(tokenId)), { stream: true });
  const alone = (tokenId) => tokenizer.decode([tokenId]);
  llama.reset();
  let { logits, weights } = llama.forward(ids);
  postMessage({ type: "prompt", id, ids, pieces: ids.map(piece), cut, weights }, [weights.buffer]);
  const random = seededRandom(seed);
  const steps = Math.max(0, Math.min(Math.floor(maxNew) || 0, limits.max_new));
  for (let step = 0; step < steps; step++) {
    await turn();
    if (run.stopped || running !== run) return postMessage({ type: "done", id, reason: "stopped" });
    const tokenId = sample(logits, { temperature, topK, random });
    if (tokenId === specials.eos) return postMessage({ type: "done", id, reason: "eos" });
    const top = mostProbable(logits, TOP).map((entry) => ({ piece: alone(entry.id), p: entry.p }));
    ({ logits, weights } = llama.forward([tokenId])); // its row; its logits choose the next token
    postMessage({ type: "token", id, step, tokenId, piece: piece(tokenId), top, row: weights }, [weights.buffer]);
  }
  postMessage({ type: "done", id, reason: "length" });
}

onmessage = async ({ data }) => {
  try {
    if (data.type === "load") await load(data.manifest);
    else if (data.type === "write") await write(data);
    else if (data.type === "stop" && running?.id === data.id) running.stopped = true;
  } catch (error) {
    postMessage({ type: "error", during: data.type, ...(data.type === "write" && { id: data.id }), message: String(error.message || error) });
  }
};
