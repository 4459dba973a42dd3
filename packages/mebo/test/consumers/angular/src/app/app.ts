// The root component of an app from `ng new` (the esbuild application
// builder): `await init()` with no argument. The builder emits no file for
// the package's `new URL('../wasm/…', import.meta.url)`, so the app's
// angular.json copies the package's .wasm builds to wasm/ (its one added
// line), where that URL points from `ng build`'s bundle at the site's root.
// At `/?from-page` it names the copy from the page instead, as `ng serve`
// (whose bundle's URL misses the copies) and a base href need. Decodes the
// blobs listed in /sample.json and leaves the result in window.outcome.
// decode-document.js is copied beside this file.

import { Component, signal } from '@angular/core';
import * as mebo from 'mebo';
import { decodeSample } from './decode-document.js';

function load(): Promise<void> {
  if (!new URLSearchParams(location.search).has('from-page')) return mebo.init();
  const variant = mebo.simdSupported() ? 'simd' : 'scalar';
  return mebo.init({ wasm: new URL(`wasm/mebo_${variant}.wasm`, document.baseURI), variant });
}

async function run() {
  await load();
  const list: { name: string; url: string }[] = await (await fetch('/sample.json')).json();
  const sample = [];
  for (const { name, url } of list) sample.push({ name, bytes: new Uint8Array(await (await fetch(url)).arrayBuffer()) });
  return { info: mebo.wasmInfo(), ...decodeSample(mebo, sample) };
}

@Component({
  selector: 'app-root',
  template: '<p>{{ status() }}</p>',
})
export class App {
  protected readonly status = signal('decoding');

  constructor() {
    const page = window as unknown as { outcome?: unknown };
    run().then(
      (ok) => {
        page.outcome = { ok };
        this.status.set('decoded');
      },
      (error: unknown) => {
        page.outcome = { error: String((error as Error)?.stack ?? error) };
        this.status.set('failed');
      },
    );
  }
}
