// SmolLM2-135M's forward pass (a Llama decoder) in JavaScript and WebAssembly, with its KV cache. Per layer, for the
// tokens at positions p … p + c - 1:
//     A = X + W_O · attend(RoPE(RMSNorm(X)·W_Q), RoPE(RMSNorm(X)·W_K), RMSNorm(X)·W_V)   (9 query heads, 3 KV heads)
//     X' = A + W_down · (SiLU(RMSNorm(A)·W_gate) ⊙ RMSNorm(A)·W_up)
// then the last token's RMSNorm(X)·Eᵀ, the logits, with E the token embedding (the output head is tied to it).
// Query head h reads key/value head ⌊h / 3⌋ (grouped-query attention, as attention.share_kv_heads); RoPE turns the
// pairs (2i, 2i+1) of each head by position · 100000^(-2i/64) (interleaved, as attention.rope: the GGUF's W_Q and W_K
// rows are ordered for it). No DOM: the worker and Node's tests import it.
//
// The weights stay as the shipped files hold them (models/smollm/shipped.py: the GGUF's Q4_1 and Q8_0 blocks,
// planar): the shards are laid end to end in one WebAssembly memory, and the kernels (kernels.wat, with
// your-sentence's) turn the 4- and 8-bit codes into floats as they multiply. Only the blocks' float16 scales are
// copied, once, to float32 beside them. Everything else is float32 in that memory: the KV cache, the activations.

// IEEE half precision (bits) -> number: sign, 5 exponent bits (bias 15), 10 fraction bits
const HALF = new Float32Array(65536).map((_, bits) => {
  const exponent = (bits >> 10) & 31, fraction = bits & 1023;
  const size = exponent === 0 ? fraction * 2 ** -24 : exponent === 31 ? (fraction ? NaN : Infinity) : (1024 + fraction) * 2 ** (exponent - 25);
  return bits & 0x8000 ? -size : size;
});

const BLOCK = 32; // values per Q4_1 or Q8_0 block

// layout: the manifest's config, shards and tensors (shipped.py); kernelBytes: the compiled kernels; capacity: the
// most tokens the cache holds (prompt + new). Returns the model, its memory empty: fill shard(i) with each weight
// file's bytes, call prepare(), then forward(ids) as often as wanted (reset() empties the cache).
export async function createLlama(layout, kernelBytes, capacity) {
  const { config } = layout;
  const { d_model: d, n_heads: heads, n_kv_heads: kvHeads, d_ff: dFF, vocab, n_layers: layers } = config;
  const dK = d / heads, group = heads / kvHeads, kvWidth = kvHeads * dK;
  capacity = Math.ceil(capacity / 8) * 8; // the attention kernel reads keys 8 at a time
  let top = 0;
  const region = (bytes) => (top += Math.ceil(bytes / 16) * 16) - Math.ceil(bytes / 16) * 16;
  const shardBytes = layout.shards.map((_, index) => Math.max(...layout.tensors.filter((t) => t.shard === index)
    .flatMap((t) => Object.values(t.parts).map(([offset, bytes]) => offset + Math.ceil(bytes / 16) * 16))));
  const shardAt = shardBytes.map(region);
  const tensors = new Map(layout.tensors.map((tensor) => {
    const at = Object.fromEntries(Object.entries(tensor.parts).map(([part, [offset]]) => [part, shardAt[tensor.shard] + offset]));
    const blocks = tensor.shape.reduce((a, b) => a * b, 1) / BLOCK;
    if (tensor.type !== "F32") at.d32 = region(4 * blocks); // the float16 scales and offsets as float32
    if (tensor.type === "Q4_1") at.m32 = region(4 * blocks);
    return [tensor.name, { ...tensor, at, blocks }];
  }));
  const cache = Array.from({ length: layers }, () => ({ K: region(4 * kvWidth * capacity), V: region(4 * kvWidth * capacity) }));
  // the activations, (rows, width) each: rows padded, since the attention kernel takes queries 4 at a time
  const rows = capacity + 4;
  const widths = { X: d, XN: d, sums: dFF / BLOCK, Q: d, K: kvWidth, V: kvWidth, heads: d, out: d, gate: dFF, up: dFF, S: capacity };
  const at = Object.fromEntries(Object.entries(widths).map(([name, width]) => [name, region(4 * rows * width)]));
  at.zeros = region(4 * Math.max(capacity, dK)); // a zero bias for the attention products
  at.logits = region(4 * vocab);
  const memory = new WebAssembly.Memory({ initial: Math.ceil(top / 65536) });
  const { instance } = await WebAssembly.instantiate(kernelBytes, { env: { memory } });
  const { linear, softmax_masked: softmaxMasked, q4_1_matmul: q4Matmul, q8_0_matmul: q8Matmul } = instance.exports;
  const floats = (offset, count) => new Float32Array(memory.buffer, offset, count);
  const tensor = (name) => tensors.get(name) ?? (() => { throw new Error(`the model's weights have no tensor ${name}`); })();
  const vector = (name) => floats(tensor(name).at.values, tensor(name).shape[0]);
  const [X, XN, sums, Q, K, V, out, gate, up, S] = ["X", "XN", "sums", "Q", "K", "V", "out", "gate", "up", "S"]
    .map((name) => floats(at[name], rows * widths[name]));
  // RoPE's angles, position · ω_i, ω_i = base^(-2i/d_k), as cos and sin (positions, d_k/2), in float64
  const cos = new Float64Array(capacity * dK / 2), sin = new Float64Array(capacity * dK / 2);
  for (let position = 0; position < capacity; position++) {
    for (let i = 0; i < dK / 2; i++) {
      const angle = position * config.rope_base ** (-2 * i / dK);
      cos[position * dK / 2 + i] = Math.cos(angle);
      sin[position * dK / 2 + i] = Math.sin(angle);
    }
  }
  let length = 0; // tokens in the cache

  // Rows 0 … c-1 of `source` (c, width) to RMSNorm(row) ⊙ weight in `target`
  function rmsNorm(source, target, c, weight) {
    for (let row = 0; row < c * d; row += d) {
      let squares = 0;
      for (let k = 0; k < d; k++) squares += source[row + k] ** 2;
      const inverse = 1 / Math.sqrt(squares / d + config.norm_epsilon);
      for (let k = 0; k < d; k++) target[row + k] = source[row + k] * inverse * weight[k];
    }
  }

  // Y (c, rows) = X (c, cols) · Wᵀ for the quantized W `name`, X at byte offset x; Q4_1's offsets need X's block sums
  function product(name, x, c, y) {
    const { type, at: w, shape: [rowCount, cols] } = tensor(name);
    if (type === "Q8_0") return q8Matmul(x, c, w.d32, w.qs, rowCount, cols / BLOCK, y);
    const input = floats(x, c * cols);
    for (let block = 0; block < c * cols / BLOCK; block++) {
      let sum = 0;
      for (let k = block * BLOCK; k < (block + 1) * BLOCK; k++) sum += input[k];
      sums[block] = sum;
    }
    q4Matmul(x, at.sums, c, w.d32, w.m32, w.qs, rowCount, cols / BLOCK, y);
  }

  // The rows (c, width) of M, heads of d_k side by side, turned by RoPE to positions first … first + c - 1
  function rope(M, c, width, first) {
    for (let t = 0; t < c; t++) {
      const angles = (first + t) * dK / 2;
      for (let pair = t * width; pair < (t + 1) * width; pair += 2) {
        const i = angles + (pair % dK) / 2, a = M[pair], b = M[pair + 1];
        M[pair] = a * cos[i] - b * sin[i];
        M[pair + 1] = a * sin[i] + b * cos[i];
      }
    }
  }

  // The tokens `ids` at positions length … length + c - 1, added to the cache -> { logits (vocab) of the last one
  // (in the model's memory: the next call overwrites them), weights (layers, heads, c, keys): each new token's
  // attention row over the keys 0 … length + c - 1 }
  function forward(ids) {
    const c = ids.length, first = length, keys = first + c;
    if (c < 1 || keys > capacity) throw new Error(`${keys} tokens; the cache holds ${capacity}`);
    const padded = Math.ceil(c / 4) * 4;
    const weights = new Float32Array(layers * heads * c * keys);
    const embedding = tensor("token_embd.weight"), codes = new Int8Array(memory.buffer, embedding.at.qs, vocab * d);
    const scales = floats(embedding.at.d32, embedding.blocks);
    ids.forEach((id, t) => {
      if (!(id >= 0 && id < vocab)) throw new Error(`token id ${id} is not in the vocabulary`);
      for (let k = 0; k < d; k++) X[t * d + k] = scales[(id * d + k) / BLOCK | 0] * codes[id * d + k];
    });
    for (let layer = 0; layer < layers; layer++) {
      const p = `blk.${layer}.`, { K: cacheK, V: cacheV } = cache[layer];
      rmsNorm(X, XN, c, vector(p + "attn_norm.weight"));
      product(p + "attn_q.weight", at.XN, c, at.Q);
      product(p + "attn_k.weight", at.XN, c, at.K);
      product(p + "attn_v.weight", at.XN, c, at.V);
      rope(Q, c, d, first);
      rope(K, c, kvWidth, first);
      // the cache: per KV head, Kᵀ (d_k, capacity) (a key is a column) and V (capacity, d_k)
      for (let g = 0; g < kvHeads; g++) {
        const keysT = floats(cacheK + 4 * g * dK * capacity, dK * capacity), values = floats(cacheV + 4 * g * capacity * dK, capacity * dK);
        for (let t = 0; t < c; t++) {
          for (let i = 0; i < dK; i++) keysT[i * capacity + first + t] = K[t * kvWidth + g * dK + i];
          values.set(V.subarray(t * kvWidth + g * dK, t * kvWidth + (g + 1) * dK), (first + t) * dK);
        }
      }
      for (let h = 0; h < heads; h++) {
        const g = Math.floor(h / group);
        // S (c, keys) = Q_h K_gᵀ, softmax(S / √d_k) under the causal mask, then S · V_g into the head's columns
        linear(at.Q + 4 * h * dK, 4 * d, padded, dK, cacheK + 4 * g * dK * capacity, 4 * capacity, 32, Math.ceil(keys / 8),
          at.zeros, at.S, 4 * capacity);
        softmaxMasked(at.S, c, capacity, 1 / Math.sqrt(dK), first + 1, 1);
        for (let t = 0; t < c; t++) weights.set(S.subarray(t * capacity, t * capacity + keys), ((layer * heads + h) * c + t) * keys);
        linear(at.S, 4 * capacity, padded, keys, cacheV + 4 * g * capacity * dK, 4 * dK, 32, dK / 8, at.zeros,
          at.heads + 4 * h * dK, 4 * d);
      }
      product(p + "attn_output.weight", at.heads, c, at.out);
      for (let k = 0; k < c * d; k++) X[k] += out[k];
      rmsNorm(X, XN, c, vector(p + "ffn_norm.weight"));
      product(p + "ffn_gate.weight", at.XN, c, at.gate);
      product(p + "ffn_up.weight", at.XN, c, at.up);
      for (let k = 0; k < c * dFF; k++) gate[k] = gate[k] / (1 + Math.exp(-gate[k])) * up[k]; // SiLU(gate) ⊙ up
      product(p + "ffn_down.weight", at.gate, c, at.out);
      for (let k = 0; k < c * d; k++) X[k] += out[k];
    }
    length = keys;
    rmsNorm(X.subarray((c - 1) * d), XN, 1, vector("output_norm.weight"));
    product("token_embd.weight", at.XN, 1, at.logits);
    return { logits: floats(at.logits, vocab), weights }; // logits: a view, good until the next forward
  }

  return {
    config, capacity,
    get length() { return length; },
    // the bytes of weight file `index` go here, before prepare()
    shard: (index) => new Uint8Array(memory.buffer, shardAt[index], shardBytes[index]),
    // the blocks' float16 scales (and Q4_1's offsets) to float32, once the shards are in
    prepare() {
      for (const { at: w, blocks } of tensors.values()) {
        for (const [half, single] of [["d", "d32"], ["m", "m32"]]) {
          if (w[single] === undefined) continue;
          const source = new Uint16Array(memory.buffer, w[half], blocks), target = floats(w[single], blocks);
          for (let block = 0; block < blocks; block++) target[block] = HALF[source[block]];
        }
      }
    },
    reset() { length = 0; },
    forward,
  };
}
