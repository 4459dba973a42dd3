/// <reference lib="esnext.disposable" preserve="true" />
// Deterministic release of wasm-side objects. Every SDK object owns one handle
// of the bindings; `free()` (or `using`) releases its wasm memory at once. The
// bindings' glue registers each handle with a FinalizationRegistry, so an
// object that is never freed is released after it is garbage-collected.
// The SDK counts its live objects: `reset()` may replace the module only when
// none is left (memoryInfo().liveHandles).

import { NumericBlobHandle, NumericBlobSetHandle, TextBlobHandle, TextBlobSetHandle } from '../wasm/mebo_wasm.js';
import { MeboError } from './errors.js';

/**
 * The bindings' reading handle classes: a blob or set wraps one of these and
 * nothing else. Encoders make their handle in their own constructor, so only
 * what `from(...)` opens is checked (and `mebo/decode` imports no encoder class).
 */
const HANDLE_CLASSES = [NumericBlobHandle, NumericBlobSetHandle, TextBlobHandle, TextBlobSetHandle];

let live = 0;
/** Objects collected without `free()` stop counting when the collector gets to them. */
const collected = typeof FinalizationRegistry === 'undefined' ? undefined : new FinalizationRegistry<null>(() => live--);

/** @internal SDK objects that hold module memory: made and not yet freed (nor collected). */
export function liveHandles(): number {
  return live;
}

/** The part of every bindings handle the SDK relies on. */
export interface Freeable {
  free(): void;
}

export abstract class Owned<H extends Freeable> {
  #handle: H | undefined;

  /** `made`: the subclass made `handle` itself (the encoders); otherwise it must be a reading handle. */
  protected constructor(handle: H, made = false) {
    // Blobs and sets have no public constructor; from JavaScript one can still be called.
    if (!made && !HANDLE_CLASSES.some((C) => handle instanceof C)) {
      throw new MeboError('INVALID_ARGUMENT', `${new.target.name} is not constructed directly: use ${new.target.name}.from(...)`);
    }
    this.#handle = handle;
    live++;
    collected?.register(this, null, this);
  }

  /** @internal The handle, or a FREED error after `free()`. */
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
    if (handle === undefined) return;
    this.#handle = undefined;
    live--;
    collected?.unregister(this);
    try {
      handle.free();
    } catch {
      // The glue refuses to free a handle a trapped call left borrowed: its
      // memory stays with this instance, which `reset()` replaces.
    }
  }

  [Symbol.dispose](): void {
    this.free();
  }
}
