/// <reference lib="esnext.disposable" preserve="true" />
// Deterministic release of wasm-side objects. Every SDK object owns one handle
// of the bindings; `free()` (or `using`) releases its wasm memory at once. The
// bindings' glue registers each handle with a FinalizationRegistry, so an
// object that is never freed is released after it is garbage-collected.

import { MeboError } from './errors.js';

/** The part of every bindings handle the SDK relies on. */
export interface Freeable {
  free(): void;
}

export abstract class Owned<H extends Freeable> {
  #handle: H | undefined;

  protected constructor(handle: H) {
    this.#handle = handle;
  }

  /** The handle, or a FREED error after `free()`. */
  protected live(): H {
    if (this.#handle === undefined) throw new MeboError('FREED', `this ${this.constructor.name} was freed`);
    return this.#handle;
  }

  /** True once `free()` was called. */
  get freed(): boolean {
    return this.#handle === undefined;
  }

  /** Release the wasm memory now. Idempotent; any later call but `free` throws FREED. */
  free(): void {
    const handle = this.#handle;
    this.#handle = undefined;
    handle?.free();
  }

  [Symbol.dispose](): void {
    this.free();
  }
}
