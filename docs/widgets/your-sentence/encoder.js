// all-MiniLM-L6-v2's forward pass in JavaScript and WebAssembly, step for step as models/minilm/encoder.py and with its
// names: embed (word + position + token-type embeddings, LayerNorm), then per layer
//     A = LayerNorm(X + MultiHead(X)),   X' = LayerNorm(A + GELU(A·W_1 + b_1)·W_2 + b_2).
// No DOM: the page's worker and Node's tests import it. The arithmetic is float32, as the numpy encoder's on the
// shipped weights (whole numbers times their steps, dequantized as models/minilm/shipped.py does). The matrix
// products (99% of the work), GELU and the softmax are WebAssembly SIMD (kernels.wat beside this file,
// compiled by the build); the rest (embedding, LayerNorm, the residuals) is here. A matrix in params is { data, rows, cols }, row-major, a Linear's (d_out, d_in) as in PyTorch.

// Rows 0 … rows-1 of X (…, d), each to mean 0 and variance 1 (biased, eps inside the root), then scaled and
// shifted; in place.
export function layerNorm(X, d, rows, gamma, beta, eps) {
  for (let row = 0; row < rows * d; row += d) {
    let mean = 0;
    for (let k = 0; k < d; k++) mean += X[row + k];
    mean /= d;
    let variance = 0;
    for (let k = 0; k < d; k++) variance += (X[row + k] - mean) ** 2;
    const inverse = 1 / Math.sqrt(variance / d + eps);
    for (let k = 0; k < d; k++) X[row + k] = (X[row + k] - mean) * inverse * gamma[k] + beta[k];
  }
}

// W (d_out, d_in) as the kernel reads a weight matrix: Wᵀ in panels of 8 columns, each panel's d_in rows of 8
// in a row. W is { data, rows: d_out, cols: d_in } -> target (d_out · d_in)
function packPanels(W, target) {
  const { rows: dOut, cols: dIn, data } = W;
  if (dOut % 8) throw new Error(`a weight matrix has ${dOut} outputs, not a multiple of 8`);
  for (let panel = 0; panel < dOut / 8; panel++) {
    for (let k = 0; k < dIn; k++) {
      for (let column = 0; column < 8; column++) target[(panel * dIn + k) * 8 + column] = data[(panel * 8 + column) * dIn + k];
    }
  }
}

// The encoder for params (loadParams's), config (the manifest's) and the kernel's compiled bytes: copies the
// layers' weights into the kernel's memory once, and returns encode(ids) -> { weights: n_layers × (n_heads, n, n),
// hiddenStates: n_layers + 1 × (n, d_model), projections: n_layers × {Q, K, V} (n, d_model) }, all Float32Array;
// hiddenStates[l] is what layer l's W_Q, W_K and W_V multiply, and projections[l] the products (plus biases),
// head h in columns h·d_k … (h+1)·d_k.
export async function createEncoder(params, config, kernelBytes) {
  const { d_model: d, d_ff: dFF, n_heads: heads, layer_norm_eps: eps } = config;
  const dK = d / heads;
  const maxTokens = Math.ceil(params.position_embeddings.rows / 8) * 8;
  // the memory's plan: every region's byte offset, 16-byte aligned for SIMD
  let top = 0;
  const region = (floats) => (top += Math.ceil(floats / 4) * 16) - Math.ceil(floats / 4) * 16;
  const MATRICES = ["W_Q", "W_K", "W_V", "W_O", "W_1", "W_2"];
  const BIASES = ["b_Q", "b_K", "b_V", "b_O", "b_1", "b_2"];
  const layers = params.layers.map((layer) => Object.fromEntries([
    ...MATRICES.map((name) => [name, region(layer[name].data.length)]),
    ...BIASES.map((name) => [name, region(layer[name].length)]),
  ]));
  const matrix = () => region(maxTokens * d); // (tokens, d_model), tokens padded to a multiple of 8
  const at = { X: matrix(), Q: matrix(), K: matrix(), V: matrix(), heads: matrix(), A: matrix(), out: matrix(),
    KT: matrix(), S: region(maxTokens * maxTokens), H: region(maxTokens * dFF), zeros: region(Math.max(maxTokens, d)) };
  const memory = new WebAssembly.Memory({ initial: Math.ceil(top / 65536) });
  const { instance } = await WebAssembly.instantiate(kernelBytes, { env: { memory } });
  const { linear, gelu, softmax } = instance.exports;
  const floats = new Float32Array(memory.buffer);
  const view = (offset, count) => floats.subarray(offset / 4, offset / 4 + count);
  params.layers.forEach((layer, index) => {
    for (const name of MATRICES) packPanels(layer[name], view(layers[index][name], layer[name].data.length));
    for (const name of BIASES) view(layers[index][name], layer[name].length).set(layer[name]);
  });

  // Y = X · W + b for W packed (d_in, d_out); X and Y (tokens, ·) at their regions
  const product = (x, dIn, w, dOut, b, y, tokens) => linear(x, 4 * dIn, tokens, dIn, w, 32, 32 * dIn, dOut / 8, b, y, 4 * dOut);

  // attentionOnly: the page shows every layer's weights and Q, K, V, which the last layer's W_O and feed-forward
  // sub-layer do not change, so it skips them (and hiddenStates ends with the last layer's input)
  return function encode(ids, { attentionOnly = false } = {}) {
    const n = ids.length;
    if (n < 1 || n > params.position_embeddings.rows) throw new Error(`${n} tokens; this model takes 1 to ${params.position_embeddings.rows}`);
    const tokens = Math.ceil(n / 8) * 8; // padded: the kernel takes rows 4 and key panels 8 at a time
    const [X, Q, K, V, A, out, KT, S] = ["X", "Q", "K", "V", "A", "out", "KT", "S"].map((name) =>
      view(at[name], name === "S" ? tokens * tokens : tokens * d));
    X.fill(0);
    ids.forEach((id, position) => {
      for (let k = 0; k < d; k++) {
        X[position * d + k] = params.word_embeddings.data[id * d + k] + params.token_type_embeddings.data[k] +
          params.position_embeddings.data[position * d + k];
      }
    });
    layerNorm(X, d, n, params.embed_gamma, params.embed_beta, eps);
    const copy = (array) => array.slice(0, n * d);
    const hiddenStates = [copy(X)];
    const weights = [];
    const projections = [];
    params.layers.forEach((layer, index) => {
      const w = layers[index];
      const last = attentionOnly && index === params.layers.length - 1; // only its weights and Q, K, V are needed
      // multi-head attention: each head's softmax(Q_h K_hᵀ/√d_k) V_h, the heads side by side, then W_O
      product(at.X, d, w.W_Q, d, w.b_Q, at.Q, tokens);
      product(at.X, d, w.W_K, d, w.b_K, at.K, tokens);
      product(at.X, d, w.W_V, d, w.b_V, at.V, tokens);
      for (let j = 0; j < tokens; j++) for (let c = 0; c < d; c++) KT[c * tokens + j] = K[j * d + c]; // (d_model, tokens)
      const layerWeights = new Float32Array(heads * n * n);
      for (let h = 0; h < heads; h++) {
        // S = Q_h K_hᵀ (tokens, tokens), then its rows' softmax; A_h V_h into the heads' columns h·d_k …
        linear(at.Q + 4 * h * dK, 4 * d, tokens, dK, at.KT + 4 * h * dK * tokens, 4 * tokens, 32, tokens / 8, at.zeros, at.S, 4 * tokens);
        softmax(at.S, n, tokens, 1 / Math.sqrt(dK));
        for (let i = 0; i < n; i++) layerWeights.set(S.subarray(i * tokens, i * tokens + n), (h * n + i) * n);
        if (!last) linear(at.S, 4 * tokens, tokens, tokens, at.V + 4 * h * dK, 4 * d, 32, dK / 8, at.zeros, at.heads + 4 * h * dK, 4 * d);
      }
      weights.push(layerWeights);
      projections.push({ Q: copy(Q), K: copy(K), V: copy(V) });
      if (last) return;
      product(at.heads, d, w.W_O, d, w.b_O, at.A, tokens);
      for (let cell = 0; cell < n * d; cell++) A[cell] += X[cell];
      layerNorm(A, d, n, layer.norm1_gamma, layer.norm1_beta, eps);
      A.fill(0, n * d); // padding rows stay 0, so nothing they hold can reach a real token's row
      // the feed-forward sub-layer
      product(at.A, d, w.W_1, dFF, w.b_1, at.H, tokens);
      gelu(at.H, n * dFF);
      product(at.H, dFF, w.W_2, d, w.b_2, at.out, tokens);
      for (let cell = 0; cell < n * d; cell++) X[cell] = A[cell] + out[cell];
      layerNorm(X, d, n, layer.norm2_gamma, layer.norm2_beta, eps);
      X.fill(0, n * d);
      hiddenStates.push(copy(X));
    });
    return { weights, hiddenStates, projections };
  };
}

// ---------------------------------------------------------------- the shipped file -> params

// The downloaded file -> the bytes models/minilm/shipped.py's quantize wrote (the file is them compressed with deflate).
export async function inflate(buffer) {
  try {
    return await new Response(new Blob([buffer]).stream().pipeThrough(new DecompressionStream("deflate"))).arrayBuffer();
  } catch (error) {
    throw new Error(`the weights could not be decompressed (${error.message})`);
  }
}

// IEEE half precision -> number: sign, 5 exponent bits (bias 15), 10 fraction bits.
export function halfToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24; // subnormal
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

// One tensor of the inflated file as float32, as models/minilm/shipped.py's dequantize reads it: int16 (high bytes,
// then low bytes) × its row's step; int8 × its group's scale (× its column's scale); float16; float32.
export function readTensor(buffer, entry) {
  const count = entry.shape.reduce((a, b) => a * b, 1);
  const cols = entry.shape[entry.shape.length - 1];
  const values = new Float32Array(count);
  if (entry.dtype === "float32") return new Float32Array(buffer.slice(entry.offset, entry.offset + 4 * count));
  if (entry.dtype === "int16") {
    const high = new Int8Array(buffer, entry.offset, count);
    const low = new Uint8Array(buffer, entry.offset + count, count);
    const steps = new Float32Array(buffer, entry.steps_offset, entry.shape[0]);
    for (let index = 0; index < count; index++) values[index] = (high[index] * 256 + low[index]) * steps[Math.floor(index / cols)];
  } else if (entry.dtype === "int8") {
    const q = new Int8Array(buffer, entry.offset, count);
    const scales = new Float32Array(buffer, entry.scales_offset, count / entry.group);
    const columns = entry.column_scales_offset === undefined ? null : new Float32Array(buffer, entry.column_scales_offset, cols);
    for (let index = 0; index < count; index++) {
      values[index] = q[index] * scales[Math.floor(index / entry.group)] * (columns ? columns[index % cols] : 1);
    }
  } else if (entry.dtype === "float16") {
    const half = new Uint16Array(buffer.slice(entry.offset, entry.offset + 2 * count)); // (little-endian, as every browser)
    for (let index = 0; index < count; index++) values[index] = halfToNumber(half[index]);
  } else {
    throw new Error(`tensor ${entry.name}: unknown dtype ${entry.dtype}`);
  }
  return values;
}

// The layout (the manifest's "tensors") and the file's bytes -> params named as models.minilm.encoder.EncoderParams
export function loadParams(layout, buffer, config) {
  const tensors = new Map(layout.map((entry) => [entry.name, entry]));
  const get = (name) => {
    const entry = tensors.get(name);
    if (!entry) throw new Error(`the model's weights have no tensor ${name}`);
    const data = readTensor(buffer, entry);
    return entry.shape.length === 2 ? { data, rows: entry.shape[0], cols: entry.shape[1] } : data;
  };
  const layer = (index) => {
    const p = `encoder.layer.${index}.`;
    return {
      W_Q: get(p + "attention.self.query.weight"), b_Q: get(p + "attention.self.query.bias"),
      W_K: get(p + "attention.self.key.weight"), b_K: get(p + "attention.self.key.bias"),
      W_V: get(p + "attention.self.value.weight"), b_V: get(p + "attention.self.value.bias"),
      W_O: get(p + "attention.output.dense.weight"), b_O: get(p + "attention.output.dense.bias"),
      norm1_gamma: get(p + "attention.output.LayerNorm.weight"), norm1_beta: get(p + "attention.output.LayerNorm.bias"),
      W_1: get(p + "intermediate.dense.weight"), b_1: get(p + "intermediate.dense.bias"),
      W_2: get(p + "output.dense.weight"), b_2: get(p + "output.dense.bias"),
      norm2_gamma: get(p + "output.LayerNorm.weight"), norm2_beta: get(p + "output.LayerNorm.bias"),
    };
  };
  return {
    word_embeddings: get("embeddings.word_embeddings.weight"),
    position_embeddings: get("embeddings.position_embeddings.weight"),
    token_type_embeddings: get("embeddings.token_type_embeddings.weight"),
    embed_gamma: get("embeddings.LayerNorm.weight"),
    embed_beta: get("embeddings.LayerNorm.bias"),
    layers: Array.from({ length: config.n_layers }, (_, index) => layer(index)),
  };
}
