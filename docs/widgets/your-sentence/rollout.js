// Attention rollout (Abnar & Zuidema, 2020), as models/minilm/rollout.py computes it: each layer's heads averaged, plus the
// identity for the residual, rows renormalised, multiplied through the layers: R_l = Â_l · R_{l-1}. Pure, no DOM:
// the your-sentence worker runs it on the reader's sentence, and Node's tests check it against numpy.
// weights: n_layers × (n_heads, n, n) flat arrays -> Float64Array (n, n), R after the last layer, in float64.
export function attentionRollout(weights, heads, n) {
  let product = new Float64Array(n * n);
  for (let i = 0; i < n; i++) product[i * n + i] = 1;
  for (const layer of weights) {
    const step = new Float64Array(n * n); // Â: the mean over the heads, plus I, each row divided by its sum
    for (let i = 0; i < n; i++) {
      let total = 0;
      for (let j = 0; j < n; j++) {
        let mean = 0;
        for (let h = 0; h < heads; h++) mean += layer[(h * n + i) * n + j];
        step[i * n + j] = mean / heads + (i === j ? 1 : 0);
        total += step[i * n + j];
      }
      for (let j = 0; j < n; j++) step[i * n + j] /= total;
    }
    const next = new Float64Array(n * n); // Â · R, (n, n) x (n, n)
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < n; k++) {
        const share = step[i * n + k];
        for (let j = 0; j < n; j++) next[i * n + j] += share * product[k * n + j];
      }
    }
    product = next;
  }
  return product;
}
