// node --import ./tests/node/bpe-stub.mjs tests/node/smollm-worker.mjs SCRIPT.json OUT.json: runs
// docs/widgets/smollm/smollm-worker.js in this thread, its fetch answered from SCRIPT.json's folder (the site root:
// a URL http://site.test/PATH is the file FOLDER/PATH, a missing file HTTP 404), and sends it SCRIPT.json's steps in
// order, each {send: message, stopAfter (optional: send "stop" once this many tokens came)}, waiting for each to
// end ("ready", "done" or "error"). OUT.json: every message the worker posted, typed arrays as plain lists.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [scriptPath, outPath] = process.argv.slice(2);
const script = JSON.parse(readFileSync(scriptPath, "utf8"));
globalThis.STUB_IDS = script.stubIds;
globalThis.fetch = async (url) => {
  try {
    return new Response(readFileSync(join(script.folder, new URL(url).pathname)));
  } catch {
    return new Response("not found", { status: 404 });
  }
};
const posted = [];
let waiting = null;
globalThis.onmessage = null;
globalThis.postMessage = (message) => {
  posted.push(message);
  waiting?.(message);
};
await import("../../docs/widgets/smollm/smollm-worker.js");
for (const { send, stopAfter } of script.steps) {
  let tokens = 0;
  await new Promise((resolve) => {
    waiting = (message) => {
      if (message.type === "token" && ++tokens === stopAfter) globalThis.onmessage({ data: { type: "stop", id: send.id } });
      if (["ready", "done", "error"].includes(message.type)) resolve();
    };
    globalThis.onmessage({ data: send });
  });
}
const plain = (value) => (ArrayBuffer.isView(value) ? Array.from(value) : value);
writeFileSync(outPath, JSON.stringify(posted.map((message) => Object.fromEntries(Object.entries(message).map(([k, v]) => [k, plain(v)])))));
process.exit(0); // the worker's MessageChannel would keep Node waiting
