// node --import ./tests/node/bpe-stub.mjs …: until docs/widgets/smollm/bpe.js (the tokenizer, written beside the
// engine) exists, an import of it gets this stand-in, for the engine's tests alone: encode(text) answers from
// globalThis.STUB_IDS (the ids transformers' tokenizer gave, passed by the test), bytes(id) reads the token's
// characters through GPT-2's byte-to-character table. Once bpe.js is there, this hook does nothing.
import { existsSync } from "node:fs";
import { register } from "node:module";
import { fileURLToPath } from "node:url";
import { isMainThread } from "node:worker_threads";

const TARGET = new URL("../../docs/widgets/smollm/bpe.js", import.meta.url).href;
const STUB = `
const printable = [...Array(256).keys()].filter((b) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174);
const BYTE = new Map(printable.map((b) => [String.fromCodePoint(b), b]));
let extra = 0;
for (let b = 0; b < 256; b++) if (!printable.includes(b)) BYTE.set(String.fromCodePoint(256 + extra++), b);
export class BPE {
  constructor(json) { this.tokens = json.tokens; }
  encode(text) {
    const ids = globalThis.STUB_IDS?.[text];
    if (!ids) throw new Error("the stand-in tokenizer has no ids for " + JSON.stringify(text));
    return ids;
  }
  bytes(id) { return Array.from(this.tokens[id], (character) => BYTE.get(character)); }
  decode(ids) { return new TextDecoder().decode(Uint8Array.from(ids.flatMap((id) => this.bytes(id)))); }
}`;

if (isMainThread) register(import.meta.url);

export async function resolve(specifier, context, nextResolve) {
  const url = context.parentURL && new URL(specifier, context.parentURL).href;
  if (url === TARGET && !existsSync(fileURLToPath(url))) return { url: "stub:bpe.js", shortCircuit: true };
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  return url === "stub:bpe.js" ? { format: "module", source: STUB, shortCircuit: true } : nextLoad(url, context);
}
