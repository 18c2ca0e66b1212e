// `node --import ./tests/js/contract-loader.mjs --test tests/js/`: our scripts import javascripts/contract.js,
// contract-problems.js and the string tables strings-<reader>.js (in English), which the build publishes beside the shared modules (figures_src/engine/contract.py)
// and docs/ does not hold. Here each is generated now from the Python on disk, so the tests never read a stale
// copy and need no build.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { register } from "node:module";
import { isMainThread } from "node:worker_threads";

const ROOT = new URL("../../", import.meta.url);
const SCRIPTS = new URL("docs/javascripts/", ROOT).href;
const CONTRACT = /^contract(-[a-z]+)?\.js$/; // figures_src/engine/contract.py's MODULES
const STRINGS = /^strings-([a-z-]+)\.js$/; // figures_src/engine/strings.py: a reader's table, in English
const generated = (url) => url?.startsWith(SCRIPTS) && [CONTRACT, STRINGS].some((name) => name.test(url.slice(SCRIPTS.length)));

if (isMainThread) register(import.meta.url);

export async function resolve(specifier, context, nextResolve) {
  const url = context.parentURL && new URL(specifier, context.parentURL).href;
  return generated(url) ? { url, shortCircuit: true } : nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!generated(url)) return nextLoad(url, context);
  const venv = new URL(".venv/bin/python", ROOT);
  const python = process.env.PYTHON || (existsSync(venv) ? venv.pathname : "python3");
  const name = url.slice(SCRIPTS.length);
  const [module, argument] = STRINGS.test(name) ? ["strings", name.match(STRINGS)[1]] : ["contract", name];
  const source = execFileSync(python, ["-m", `figures_src.engine.${module}`, argument], { cwd: ROOT.pathname, encoding: "utf-8" });
  return { format: "module", source, shortCircuit: true };
}
