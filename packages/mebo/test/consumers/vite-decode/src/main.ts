// A page as create-vite's vanilla-ts template leaves it, reading blobs with
// mebo's light first load: `await init()` (the light core), then `load()` of
// each blob, which fetches a part the first time a blob needs it. After each
// step the page lists the scripts and modules it has fetched, so that what a
// first blob costs can be measured. decode-document.js is copied beside this
// file; it decodes the whole sample exactly at the end, given only what this
// page imports (a namespace import would keep the whole SDK in the bundle).

import { blobKind, init, NumericBlob, simdSupported, TextBlob, wasmInfo, wasmVariant } from 'mebo/decode';
import { decodeSample } from './decode-document.js';

declare global {
  interface Window {
    outcome?: { ok: unknown } | { error: string };
  }
}

/** Paths of the scripts and modules fetched so far (not the blobs). */
const fetched = () =>
  performance
    .getEntriesByType('resource')
    .map((entry) => new URL(entry.name).pathname)
    .filter((path) => path.startsWith('/assets/'));

async function run() {
  const list: { name: string; url: string }[] = await (await fetch('/sample.json')).json();
  const sample: { name: string; bytes: Uint8Array }[] = [];
  for (const { name, url } of list) sample.push({ name, bytes: new Uint8Array(await (await fetch(url)).arrayBuffer()) });
  const bytes = (name: string) => sample.find((s) => s.name === name)!.bytes;
  const steps: Record<string, string[]> = {};
  await init();
  steps.init = fetched();
  // A plain numeric blob: no zstd payload, no tags.
  const plain = await NumericBlob.load(bytes('num-gauge1-deltapacked-lz4-chimp-lz4-notags-le-v1'));
  const plainPoints = plain.totalPoints;
  plain.free();
  // The production build renamed the SDK's classes: the message still names this one.
  let freed = '';
  try {
    void plain.totalPoints;
  } catch (error) {
    freed = String((error as Error).message);
  }
  steps.plain = fetched();
  const zstd = await NumericBlob.load(bytes('num-gauge1-delta-zstd-gorilla-s2-notags-le-v1'));
  zstd.free();
  const text = await TextBlob.load(bytes('txt-status1-tagged-delta-zstd-tags-be'));
  const textPoints = text.totalPoints;
  text.free();
  steps.all = fetched();
  return { info: wasmInfo(), steps, plainPoints, freed, textPoints, ...decodeSample({ blobKind, NumericBlob, TextBlob, simdSupported, wasmVariant }, sample) };
}

run().then(
  (ok) => (window.outcome = { ok }),
  (error) => (window.outcome = { error: String(error?.stack ?? error) }),
);
