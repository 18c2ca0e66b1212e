// A model's files, for the workers that run the site's models (your-sentence-worker.js, smollm-worker.js): each
// downloaded with its progress, checked against the byte count and SHA-256 the build published before it is used,
// and kept in Cache Storage once checked so a later visit needs no download. Every error names the file.

export const fileName = (url) => new URL(url).pathname.split("/").pop();
const hex = (buffer) => Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");

// The body of `response` (from `url`), reporting the bytes read so far: into `target` (a Uint8Array as long as the
// file should be, say a view of a WebAssembly memory, so no copy is made), or into a new ArrayBuffer
async function read(url, response, onProgress, target) {
  const failed = (what) => new Error(`${fileName(url)}: ${what}`);
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((error) => {
      throw failed(error.message);
    });
    if (done) break;
    if (target && loaded + value.length > target.length) {
      reader.cancel();
      throw new Error(`the download of ${fileName(url)} is corrupted: more than ${target.length} bytes`);
    }
    if (target) target.set(value, loaded);
    else chunks.push(value);
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

// The file at `url` (bytes, a Uint8Array), reporting the bytes read so far. An error names the file, and its HTTP
// status when there was an answer.
export async function download(url, signal, onProgress = () => {}, target = null) {
  const response = await fetch(url, { signal }).catch((error) => {
    throw new Error(`${fileName(url)}: ${error.message}`);
  });
  if (!response.ok) throw new Error(`${fileName(url)}: HTTP ${response.status}`);
  return read(url, response, onProgress, target);
}

// `bytes` if they are the file the build published (the manifest's byte count and SHA-256 for it), else an error
// naming it: a file cut short, or changed on the way or in a cache, would give the reader wrong numbers.
export async function verified(url, bytes, expected) {
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

// The file at `url` -> { bytes, kept (it came from the cache) }: from the cache if it is there (every file's name
// holds a hash of its content, so a kept copy is the right one), else downloaded and kept.
export async function fetchFile(store, url, signal, onProgress = () => {}, target = null) {
  const kept = await store?.match(url);
  if (kept) return { bytes: await read(url, kept, onProgress, target), kept: true };
  const bytes = await download(url, signal, onProgress, target);
  await store?.put(url, new Response(bytes)).catch(() => {}); // full storage: the next visit downloads again
  return { bytes, kept: false };
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
