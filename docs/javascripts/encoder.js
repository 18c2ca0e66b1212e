// all-MiniLM-L6-v2's forward pass in plain JavaScript, step for step as realheads/encoder.py and with its names:
// embed (word + position + token-type embeddings, LayerNorm), then per layer
//     A = LayerNorm(X + MultiHead(X)),   X' = LayerNorm(A + GELU(A·W_1 + b_1)·W_2 + b_2).
// Pure functions on flat typed arrays, no DOM: the page's worker and Node's tests import it. Weights are
// float32 (the shipped whole numbers times their steps, as realheads/shipped.py dequantizes them); the
// arithmetic runs in float64 (JavaScript's numbers). A matrix is { data, rows, cols }, row-major.
// The weights keep the file's layout, a Linear's (d_out, d_in) as in PyTorch, so `linear` takes the dot
// product of X's row with W's row: the same y = x·Wᵀ + b as the numpy encoder's x·W + b on the transpose.

// Abramowitz & Stegun 7.1.26, as realheads.encoder.erf_formula: |error| <= 1.5e-7
const AS_P = 0.3275911;
const AS_A = [1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592]; // a5 … a1, for Horner

export function erf(x) {
  const a = Math.abs(x);
  const t = 1 / (1 + AS_P * a);
  let poly = AS_A[0];
  for (const coefficient of AS_A.slice(1)) poly = poly * t + coefficient;
  poly *= t;
  return Math.sign(x) * (1 - poly * Math.exp(-a * a));
}

export const gelu = (x) => 0.5 * x * (1 + erf(x * Math.SQRT1_2));

// Each row to mean 0 and variance 1 (biased, eps inside the root), then scaled and shifted. X (n, d), in place.
export function layerNorm(X, d, gamma, beta, eps) {
  for (let row = 0; row < X.length; row += d) {
    let mean = 0;
    for (let k = 0; k < d; k++) mean += X[row + k];
    mean /= d;
    let variance = 0;
    for (let k = 0; k < d; k++) variance += (X[row + k] - mean) ** 2;
    const inverse = 1 / Math.sqrt(variance / d + eps);
    for (let k = 0; k < d; k++) X[row + k] = (X[row + k] - mean) * inverse * gamma[k] + beta[k];
  }
  return X;
}

// X (n, d_in) · Wᵀ + b, W (d_out, d_in) -> (n, d_out). Each row of W is read once and used for every row of X
// (W is megabytes and X a few hundred kilobytes, so this order keeps the memory traffic low); four sums at
// a time keep the adds independent.
export function linear(X, n, W, b) {
  const { rows: dOut, cols: dIn, data } = W;
  const Y = new Float64Array(n * dOut);
  for (let o = 0; o < dOut; o++) {
    const w = o * dIn;
    for (let i = 0; i < n; i++) {
      const x = i * dIn;
      let sum0 = 0;
      let sum1 = 0;
      let sum2 = 0;
      let sum3 = 0;
      for (let k = 0; k < dIn; k += 4) { // d_in is a multiple of 4 (384, 1536)
        sum0 += X[x + k] * data[w + k];
        sum1 += X[x + k + 1] * data[w + k + 1];
        sum2 += X[x + k + 2] * data[w + k + 2];
        sum3 += X[x + k + 3] * data[w + k + 3];
      }
      Y[i * dOut + o] = sum0 + sum1 + sum2 + sum3 + b[o];
    }
  }
  return Y;
}

// Word + position + token-type (all segment 0) embeddings, then LayerNorm. ids (n,) -> X (n, d_model)
export function embed(params, config, ids) {
  const d = config.d_model;
  const X = new Float64Array(ids.length * d);
  ids.forEach((id, position) => {
    for (let k = 0; k < d; k++) {
      X[position * d + k] = params.word_embeddings.data[id * d + k] + params.token_type_embeddings.data[k] +
        params.position_embeddings.data[position * d + k];
    }
  });
  return layerNorm(X, d, params.embed_gamma, params.embed_beta, config.layer_norm_eps);
}

// attention.multi_head_attention with biases: each head's softmax(Q_h K_hᵀ/√d_k) V_h, the heads side by side,
// then W_O. X (n, d_model) -> { out (n, d_model), weights (n_heads, n, n), Q, K, V (n, d_model) }
export function multiHeadAttention(X, n, layer, config) {
  const { d_model: d, n_heads: heads } = config;
  const dK = d / heads;
  const scale = 1 / Math.sqrt(dK);
  const Q = linear(X, n, layer.W_Q, layer.b_Q); // (n, d_model): head h is columns h·d_k … (h+1)·d_k
  const K = linear(X, n, layer.W_K, layer.b_K);
  const V = linear(X, n, layer.W_V, layer.b_V);
  const weights = new Float64Array(heads * n * n);
  const concatenated = new Float64Array(n * d);
  for (let h = 0; h < heads; h++) {
    const offset = h * dK;
    for (let i = 0; i < n; i++) {
      const row = weights.subarray((h * n + i) * n, (h * n + i + 1) * n);
      let largest = -Infinity;
      for (let j = 0; j < n; j++) {
        let score = 0;
        for (let k = 0; k < dK; k++) score += Q[i * d + offset + k] * K[j * d + offset + k];
        row[j] = score * scale;
        largest = Math.max(largest, row[j]);
      }
      let total = 0;
      for (let j = 0; j < n; j++) total += (row[j] = Math.exp(row[j] - largest));
      for (let j = 0; j < n; j++) row[j] /= total;
      for (let k = 0; k < dK; k++) {
        let sum = 0;
        for (let j = 0; j < n; j++) sum += row[j] * V[j * d + offset + k];
        concatenated[i * d + offset + k] = sum;
      }
    }
  }
  return { out: linear(concatenated, n, layer.W_O, layer.b_O), weights, Q, K, V };
}

// One layer: X (n, d_model) -> { X (n, d_model), weights (n_heads, n, n), projections {Q, K, V} (n, d_model) }
export function encoderLayer(X, n, layer, config) {
  const eps = config.layer_norm_eps;
  const { out: attended, weights, Q, K, V } = multiHeadAttention(X, n, layer, config);
  const A = layerNorm(X.map((x, index) => x + attended[index]), config.d_model, layer.norm1_gamma, layer.norm1_beta, eps);
  const hidden = linear(A, n, layer.W_1, layer.b_1).map(gelu); // (n, d_ff)
  const out = linear(hidden, n, layer.W_2, layer.b_2); // (n, d_model)
  const next = layerNorm(A.map((a, index) => a + out[index]), config.d_model, layer.norm2_gamma, layer.norm2_beta, eps);
  return { X: next, weights, projections: { Q, K, V } };
}

// The whole encoder on one sentence's ids -> { weights: n_layers × (n_heads, n, n), hiddenStates: n_layers + 1 ×
// (n, d_model), projections: n_layers × {Q, K, V} (n, d_model) }; hiddenStates[l] is what layer l's W_Q, W_K and
// W_V multiply, and projections[l] the products (plus biases), head h in columns h·d_k … (h+1)·d_k.
export function encode(params, config, ids) {
  const n = ids.length;
  let X = embed(params, config, ids);
  const hiddenStates = [X];
  const weights = [];
  const projections = [];
  for (const layer of params.layers) {
    const result = encoderLayer(X, n, layer, config);
    X = result.X;
    hiddenStates.push(X);
    weights.push(result.weights);
    projections.push(result.projections);
  }
  return { weights, hiddenStates, projections };
}

// ---------------------------------------------------------------- the shipped file -> params

// The downloaded file -> the bytes realheads/shipped.py's quantize wrote (the file is them compressed with deflate).
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

// One tensor of the inflated file as float32, as realheads/shipped.py's dequantize reads it: int16 (high bytes,
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

// The layout (the manifest's "tensors") and the file's bytes -> params named as realheads.encoder.EncoderParams
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
