// node figures_src/engine/wat2wasm.mjs SOURCE.wat: the WebAssembly binary of SOURCE.wat on standard output, compiled
// by wabt (pinned in package.json) with the SIMD proposal on; a syntax or validation error goes to standard error,
// with the file's line, and the exit code is 1. Called by figures_src/engine/wasm.py.
import { readFileSync } from "node:fs";
import wabt from "wabt";

const [source] = process.argv.slice(2);
const toolkit = await wabt();
try {
  const module = toolkit.parseWat(source, readFileSync(source, "utf8"), { simd: true, bulk_memory: true, sat_float_to_int: true });
  module.validate();
  process.stdout.write(module.toBinary({ write_debug_names: false }).buffer);
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 1;
}
