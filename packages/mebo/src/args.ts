// Checks of JavaScript arguments before they cross into wasm, where a wrong
// type would be coerced silently (a negative BigInt wraps to a huge u64, a
// negative number to a huge u32).

import { invalidArgument, MeboError } from './errors.js';

const U64_END = 1n << 64n;
const I64_MIN = -(1n << 63n);
const I64_END = 1n << 63n;
/** wasm32 `usize`. */
const U32_MAX = 0xffff_ffff;

/** @internal */
export function u64(value: unknown, what: string): bigint {
  if (typeof value !== 'bigint' || value < 0n || value >= U64_END) {
    throw invalidArgument(`${what} must be a bigint in [0, 2^64), got ${describe(value)}`);
  }
  return value;
}

/** @internal */
export function i64(value: unknown, what: string): bigint {
  if (typeof value !== 'bigint' || value < I64_MIN || value >= I64_END) {
    throw invalidArgument(`${what} must be a bigint in [-2^63, 2^63), got ${describe(value)}`);
  }
  return value;
}

/** @internal A count or an index: a non-negative integer that fits wasm32's usize. */
export function index(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > U32_MAX) {
    throw invalidArgument(`${what} must be an integer in [0, 2^32), got ${describe(value)}`);
  }
  return value;
}

/** @internal */
export function optionalString(value: unknown, what: string): string | undefined {
  if (value === undefined || typeof value === 'string') return value;
  throw invalidArgument(`${what} must be a string, got ${describe(value)}`);
}

/** @internal */
export function bytes(value: unknown, what: string): Uint8Array {
  // Empty, or over a detached buffer (which reads as empty but throws when copied).
  if ((value instanceof ArrayBuffer || ArrayBuffer.isView(value)) && value.byteLength === 0) return new Uint8Array(0);
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw invalidArgument(`${what} must be a Uint8Array, an ArrayBuffer or an ArrayBufferView, got ${describe(value)}`);
}

/** @internal */
export function bigint64s(value: unknown, what: string): BigInt64Array {
  const checked = bigints(value, what);
  return checked instanceof BigInt64Array ? checked : BigInt64Array.from(checked);
}

/** @internal What `bigint64s` takes, as given: for a caller that copies it on itself. */
export function bigints(value: unknown, what: string): BigInt64Array | readonly bigint[] {
  if (value instanceof BigInt64Array) return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'bigint')) return value;
  throw invalidArgument(`${what} must be a BigInt64Array or an array of bigints, got ${describe(value)}`);
}

/** @internal */
export function float64s(value: unknown, what: string): Float64Array {
  const checked = numbers(value, what);
  return checked instanceof Float64Array ? checked : Float64Array.from(checked);
}

/** @internal What `float64s` takes, as given: for a caller that copies it on itself. */
export function numbers(value: unknown, what: string): Float64Array | readonly number[] {
  if (value instanceof Float64Array) return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'number')) return value;
  throw invalidArgument(`${what} must be a Float64Array or an array of numbers, got ${describe(value)}`);
}

/** @internal */
export function strings(value: unknown, what: string): string[] {
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  throw invalidArgument(`${what} must be an array of strings, got ${describe(value)}`);
}

/** @internal */
export function optionalStrings(value: unknown, what: string): string[] | undefined {
  return value === undefined ? undefined : strings(value, what);
}

/**
 * @internal The items of an iterable argument (an array, a Set, a generator). A
 * non-iterable, or one that fails while iterated (a detached typed array),
 * is an INVALID_ARGUMENT; an error the caller's own iterator throws passes
 * through unless it is a TypeError.
 */
export function items(value: unknown, what: string): unknown[] {
  if (typeof (value as { [Symbol.iterator]?: unknown } | null | undefined)?.[Symbol.iterator] !== 'function' || typeof value === 'string') {
    throw invalidArgument(`${what} must be an array or another iterable, got ${describe(value)}`);
  }
  try {
    return Array.from(value as Iterable<unknown>);
  } catch (error) {
    if (error instanceof TypeError) throw new MeboError('INVALID_ARGUMENT', `${what}: ${error.message}`, { cause: error });
    throw error;
  }
}

/** @internal An options argument: an object, or absent (undefined or null). */
export function options<T extends object>(value: unknown, what: string): Partial<T> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object') throw invalidArgument(`${what} must be an object, got ${describe(value)}`);
  return value as Partial<T>;
}

/** @internal A value as an error message shows it; never throws (detached arrays, symbols, hostile toString). */
export function describe(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === null || typeof value !== 'object') return String(value);
  return value.constructor?.name ?? 'object';
}

/** @internal */
export function invalidLimit(what: string, value: unknown): Error {
  return invalidArgument(`${what} must be a non-negative safe integer, got ${describe(value)}`);
}

/** @internal */
export function invalidNumber(what: string, value: unknown): Error {
  return invalidArgument(`${what} must be a number, got ${describe(value)}`);
}

/** @internal Arguments of an encoder's `startMetric`: a name or a u64 id, and a point count. */
export function metricStart(nameOrId: unknown, count: unknown): [string | bigint, number] {
  const points = index(count, 'point count');
  if (typeof nameOrId === 'string') return [nameOrId, points];
  return [u64(nameOrId, 'metric id'), points];
}
