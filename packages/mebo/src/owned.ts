/// <reference lib="esnext.disposable" preserve="true" />
// Deterministic release of wasm-side objects. Every SDK object owns one handle
// of the bindings; `free()` (or `using`) releases its wasm memory at once. The
// bindings' glue registers each handle with a FinalizationRegistry, so an
// object that is never freed is released after it is garbage-collected.
// The SDK counts its live objects: `reset()` may replace the module only when
// none is left (memoryInfo().liveHandles). An object belongs to the instance
// (generation) it was made in: after a trap replaced that instance its calls
// throw STALE_HANDLE and `free()` releases nothing.

import { NumericBlobHandle, NumericBlobSetHandle, TextBlobHandle, TextBlobSetHandle } from '../wasm/mebo_wasm.js';
import { MeboError } from './errors.js';
import { instance, ready } from './module.js';

/**
 * The bindings' reading handle classes: a blob or set wraps one of these and
 * nothing else. Encoders make their handle in their own constructor, so only
 * what `from(...)` opens is checked (and `mebo/decode` imports no encoder class).
 */
const HANDLE_CLASSES = [NumericBlobHandle, NumericBlobSetHandle, TextBlobHandle, TextBlobSetHandle];

/** Objects collected without `free()` stop counting when the collector gets to them (those of a replaced instance no longer count). */
const collected =
  typeof FinalizationRegistry === 'undefined'
    ? undefined
    : new FinalizationRegistry<number>((generation) => {
        if (generation === instance.generation) instance.liveHandles--;
      });

/** The part of every bindings handle the SDK relies on. */
export interface Freeable {
  free(): void;
}

export abstract class Owned<H extends Freeable> {
  /** The class's name, given by each class: a minifier renames classes (`constructor.name`). */
  readonly #name: string;
  #handle: H | undefined;
  /** The instance the handle lives in (`instance.generation` when made). */
  readonly #generation: number;

  /**
   * `name`: the class's (`'NumericBlob'`, …). `made`: the subclass made
   * `handle` itself (the encoders); otherwise it must be a reading handle.
   */
  protected constructor(name: string, handle: H, made = false) {
    // Blobs and sets have no public constructor; from JavaScript one can still be called.
    if (!made && !HANDLE_CLASSES.some((C) => handle instanceof C)) {
      throw new MeboError('INVALID_ARGUMENT', `${name} is not constructed directly: use ${name}.from(...)`);
    }
    this.#name = name;
    this.#handle = handle;
    this.#generation = instance.generation;
    instance.liveHandles++;
    collected?.register(this, this.#generation, this);
  }

  /**
   * @internal The handle; a FREED error after `free()`, STALE_HANDLE when
   * the instance it lives in trapped (replacing that instance first, so the
   * next call works).
   */
  protected live(): H {
    if (this.#handle === undefined) throw new MeboError('FREED', `this ${this.#name} was freed`);
    ready();
    if (this.#generation !== instance.generation) {
      throw new MeboError(
        'STALE_HANDLE',
        `this ${this.#name} lived in a module instance replaced after a trap (memoryInfo().trapRecoveries): make it again`,
      );
    }
    return this.#handle;
  }

  /** The class's name (`'NumericBlob'`, …): what messages and `String(x)` call it, minified or not. */
  get [Symbol.toStringTag](): string {
    return this.#name;
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
    collected?.unregister(this);
    // A stale handle's pointer means nothing to the current instance: the
    // glue would free it there. Its memory went with the old instance.
    if (this.#generation !== instance.generation || instance.trapped) return;
    instance.liveHandles--;
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
