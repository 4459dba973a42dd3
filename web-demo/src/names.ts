// Metric names the user knows. Blobs usually store ids (xxHash64 of the
// name), not names: the user pastes or drops the names (a text file, one a
// line, or a JSON array of them), the page hashes each with the SDK's
// `metricId`, and the list and the legend show the name wherever an id
// matches. Kept in localStorage, so they are there on the next visit.

import * as mebo from 'mebo';
import { idHex } from './view.js';

const STORAGE_KEY = 'mebo-demo.names';
/** Bounds on what is read: a names file is small, and each name is hashed in wasm. */
export const MAX_NAMES = 100_000;
export const MAX_NAMES_BYTES = 8 * 2 ** 20;

/** The names in `text`: a JSON array of strings (exact), or one name a line (trimmed; blank lines skipped). */
export function parseNames(text: string): string[] {
  if (text.length > MAX_NAMES_BYTES) throw new Error(`names: ${text.length} characters, more than the ${MAX_NAMES_BYTES} read`);
  const trimmed = text.trim();
  let names: string[];
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new Error(`names: not a JSON array (${(error as Error).message})`);
    }
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string')) throw new Error('names: a JSON file must be an array of strings');
    names = parsed;
  } else {
    names = trimmed.split(/\r?\n/).map((line) => line.trim());
  }
  names = [...new Set(names.filter((n) => n.length > 0))];
  if (names.length > MAX_NAMES) throw new Error(`names: ${names.length} names, more than the ${MAX_NAMES} read`);
  return names;
}

/** The names the user gave, by id (16 hex digits). */
export class NameBook {
  private names: string[] = [];
  private byId: Record<string, string> = {};

  /** Names from an earlier visit (call after mebo.init: they are hashed in wasm). Unreadable storage leaves the book empty. */
  load(): void {
    try {
      const stored = localStorage.getItem(STORAGE_KEY);
      if (stored) this.set(parseNames(stored));
    } catch {
      this.set([]);
    }
  }

  get size(): number {
    return this.names.length;
  }

  /** Names by id for view.ts's `open` and `nameMetrics`. */
  get ids(): Record<string, string> {
    return this.byId;
  }

  /** Add `names` (kept in localStorage); returns how many were new. Throws when they cannot be stored, having kept them for this visit. */
  add(names: string[]): number {
    const before = this.names.length;
    this.set([...new Set([...this.names, ...names])]);
    this.store();
    return this.names.length - before;
  }

  clear(): void {
    this.set([]);
    this.store();
  }

  private set(names: string[]): void {
    this.names = names;
    this.byId = Object.fromEntries(names.map((n) => [idHex(mebo.metricId(n)), n]));
  }

  private store(): void {
    try {
      if (this.names.length) localStorage.setItem(STORAGE_KEY, JSON.stringify(this.names));
      else localStorage.removeItem(STORAGE_KEY);
    } catch (error) {
      throw new Error(`names: kept for this visit only, the browser would not store them (${(error as Error).message})`);
    }
  }
}
