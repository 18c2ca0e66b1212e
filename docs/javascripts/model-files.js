// A model's files, for the workers that run the site's models (your-sentence-worker.js, smollm-worker.js): each
// downloaded with its progress, checked against the byte count and SHA-256 the build published before it is used,
// and kept in Cache Storage once checked so a later visit needs no download. Every error names the file.

export const fileName = (url) => new URL(url).pathname.split("/").pop();
const hex = (buffer) => Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");

// The body of `response` (from `url`), reporting the bytes read so far: into `target` (a Uint8Array as long as the
// file should be, say a view of a WebAssembly memory), or into a new ArrayBuffer. Read through one reused 1 MB
// buffer where the stream allows it (a "byob" reader), so a 50 MB file leaves no trail of garbage chunks.
async function read(url, response, onProgress, target) {
  const failed = (what) => new Error(`${fileName(url)}: ${what}`);
  let reader, buffer = null;
  try {
    reader = response.body.getReader({ mode: "byob" });
    buffer = new ArrayBuffer(2 ** 20);
  } catch {
    reader = response.body.getReader();
  }
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read(...(buffer ? [new Uint8Array(buffer)] : [])).catch((error) => {
      throw failed(error.message);
    });
    if (done) break;
    if (buffer) buffer = value.buffer; // the same memory, handed back
    if (target && loaded + value.length > target.length) {
      reader.cancel();
      throw new Error(`the download of ${fileName(url)} is corrupted: more than ${target.length} bytes`);
    }
    if (target) target.set(value, loaded);
    else chunks.push(buffer ? value.slice() : value);
    loaded += value.length;
    onProgress(value.length);
  }
  if (target) return target.subarray(0, loaded);
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

// The answer for `url`: an error names the file, and its HTTP status when there was an answer
async function request(url, signal) {
  const response = await fetch(url, { signal }).catch((error) => {
    throw new Error(`${fileName(url)}: ${error.message}`);
  });
  if (!response.ok) throw new Error(`${fileName(url)}: HTTP ${response.status}`);
  return response;
}

// The file at `url` (bytes, a Uint8Array), reporting the bytes read so far
export async function download(url, signal, onProgress = () => {}, target = null) {
  return read(url, await request(url, signal), onProgress, target);
}

// `bytes` if they are the file the build published (the manifest's byte count and SHA-256 for it), else an error
// naming it: a file cut short, or changed on the way or in a cache, would give the reader wrong numbers.
async function verified(url, bytes, expected) {
  const corrupted = (what) => new Error(`the download of ${fileName(url)} is corrupted: ${what}`);
  if (bytes.byteLength !== expected.bytes) throw corrupted(`${bytes.byteLength} bytes, not ${expected.bytes}`);
  // (crypto.subtle exists on https pages and on this machine's own addresses: a page served over plain http
  // elsewhere checks the byte count only)
  if (crypto.subtle && hex(await crypto.subtle.digest("SHA-256", bytes)) !== expected.sha256) {
    throw corrupted("its SHA-256 is not the one the site published");
  }
  return bytes;
}

// The Cache Storage `name` (null where there is none, as on a plain-http page)
export const openStore = (name) => globalThis.caches?.open(name).catch(() => null) ?? null;

// `bytes` as a Response whose body hands them out 1 MB at a time, as its reader asks: the cache stores a 50 MB
// file without a second copy of it being made here at once
function streamed(bytes) {
  let at = 0;
  return new Response(new ReadableStream({
    pull(controller) {
      controller.enqueue(bytes.slice(at, (at += 2 ** 20)));
      if (at >= bytes.length) controller.close();
    },
  }));
}

// The file at `url`, checked against `expected` (verified) -> { bytes, kept (it came from the cache) }: from the
// cache if it is there (every file's name holds a hash of its content, so a kept copy is the right one), else
// downloaded, then kept once checked. A caller deletes the kept copy of a file whose check failed.
export async function fetchFile(store, url, expected, { signal, onProgress = () => {}, target = null } = {}) {
  const kept = await store?.match(url);
  const bytes = kept ? await read(url, kept, onProgress, target) : await download(url, signal, onProgress, target);
  await verified(url, bytes, expected);
  if (!kept) await store?.put(url, streamed(bytes)).catch(() => {}); // full storage: the next visit downloads again
  return { bytes, kept: Boolean(kept) };
}

// The manifest at `url`, JSON that `shaped(manifest)` accepts: a kept copy of the wrong shape is dropped and
// downloaded again, and a download of the wrong shape is never kept, so one bad answer cannot break every later visit.
export async function fetchManifest(store, url, signal, shaped) {
  const parsed = (bytes) => {
    try {
      const manifest = JSON.parse(new TextDecoder().decode(bytes));
      return shaped(manifest) ? manifest : null;
    } catch {
      return null;
    }
  };
  const kept = await store?.match(url);
  const manifest = kept && parsed(await kept.arrayBuffer());
  if (manifest) return manifest;
  await store?.delete(url);
  const bytes = await download(url, signal);
  const downloaded = parsed(bytes);
  if (!downloaded) throw new Error(`${fileName(url)} is not the model's manifest (not JSON listing its files)`);
  await store?.put(url, new Response(bytes)).catch(() => {}); // full storage: the next visit downloads again
  return downloaded;
}

// Every entry of `store` but those at `current` (URLs): an earlier model's files (their names hold another hash)
export async function dropOthers(store, current) {
  for (const request of (await store?.keys()) || []) if (!current.has(request.url)) store.delete(request);
}
