// node tests/node/smollm-worker.mjs SCRIPT.json OUT.json: runs docs/widgets/smollm/smollm-worker.js (with the real
// bpe.js) in this thread, its fetch answered from SCRIPT.json's folder (the site root: a URL http://site.test/PATH
// is the file FOLDER/PATH, a missing file HTTP 404), and sends it SCRIPT.json's steps in order, each {send: a
// message or a list of messages sent at once, stopAfter (optional: send "stop" once this many tokens came)},
// waiting until each message sent has ended ("ready" or "error" for a load; "done" or "error" with its id for a
// write). OUT.json: every message the worker posted, typed arrays as plain lists.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [scriptPath, outPath] = process.argv.slice(2);
const script = JSON.parse(readFileSync(scriptPath, "utf8"));
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
const ended = (sent, message) => sent.type === "load"
  ? ["ready", "error"].includes(message.type)
  : ["done", "error"].includes(message.type) && message.id === sent.id;
for (const { send, stopAfter } of script.steps) {
  const messages = [send].flat();
  let tokens = 0;
  await new Promise((resolve) => {
    const open = new Set(messages);
    waiting = (message) => {
      if (message.type === "token" && ++tokens === stopAfter) globalThis.onmessage({ data: { type: "stop", id: message.id } });
      for (const sent of open) if (ended(sent, message)) open.delete(sent);
      if (!open.size) resolve();
    };
    for (const message of messages) globalThis.onmessage({ data: message });
  });
}
const plain = (value) => (ArrayBuffer.isView(value) ? Array.from(value) : value);
writeFileSync(outPath, JSON.stringify(posted.map((message) => Object.fromEntries(Object.entries(message).map(([k, v]) => [k, plain(v)])))));
process.exit(0); // nothing should be left waiting, but a hung port must not hang the test: its assertions name what failed
