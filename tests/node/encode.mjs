// node tests/node/encode.mjs MANIFEST IDS.json OUT.bin: runs the JS encoder (docs/widgets/your-sentence/encoder.js,
// with the WebAssembly kernels the build published) on the shipped weights for each id list of IDS.json and writes,
// per sentence, its weights (n_layers, n_heads, n, n) then its hidden states (n_layers + 1, n, d_model) as
// little-endian float64, for tests/test_your_sentence.py.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createEncoder, inflate, loadParams } from "../../docs/widgets/your-sentence/encoder.js";

const [manifestPath, idsPath, outPath] = process.argv.slice(2);
const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
const root = join(dirname(manifestPath), ".."); // the manifest's file names are from the site root
const file = readFileSync(join(root, manifest.files.weights));
const buffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
const params = loadParams(manifest.tensors, await inflate(buffer), manifest.config);
const encode = await createEncoder(params, manifest.config, readFileSync(join(root, manifest.files.kernels)));
const parts = [];
for (const ids of JSON.parse(readFileSync(idsPath, "utf8"))) {
  const { weights, hiddenStates } = encode(ids);
  parts.push(...weights, ...hiddenStates);
}
const total = parts.reduce((sum, part) => sum + part.length, 0);
const out = new Float64Array(total);
let offset = 0;
for (const part of parts) {
  out.set(part, offset);
  offset += part.length;
}
writeFileSync(outPath, new Uint8Array(out.buffer));
