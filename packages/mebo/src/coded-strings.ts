// Strings for the one-call encoders' crossing (encode only: the read side
// never imports it): each distinct string once, and a code a string.

import type { CodedStrings } from './boundary-encode.js';
import { joinStrings } from './strings.js';

/** Coding stops paying when at least half the strings seen are distinct (past the first `CODING_TRIAL`): then each string is its own code. */
const CODING_TRIAL = 256;

/**
 * @internal The strings of every list, back to back (`count` in all), coded
 * as the one-call encoders' bindings take them: each distinct string once,
 * joined, and a code a string (crates/mebo-wasm/src/joined.rs says why).
 * Strings that mostly differ are joined whole instead, each its own code:
 * their lookups cost more than the join they save.
 */
export function codeStrings(lists: readonly (readonly string[])[], count: number): CodedStrings {
  const codes = new Uint32Array(count);
  const codeOf = new Map<string, number>();
  const distinct: string[] = [];
  let at = 0;
  // A series repeats its last string most often: compared before the lookup.
  let last: string | undefined;
  let lastCode = 0;
  for (const strings of lists) {
    for (let i = 0; i < strings.length; i++) {
      const s = strings[i];
      if (s !== last) {
        let code = codeOf.get(s);
        if (code === undefined) {
          code = distinct.length;
          if (code >= CODING_TRIAL && code * 2 > at) return uncoded(lists, count);
          codeOf.set(s, code);
          distinct.push(s);
        }
        last = s;
        lastCode = code;
      }
      codes[at++] = lastCode;
    }
  }
  return { ...joinStrings(distinct), codes };
}

/** Every string of `lists` its own code. */
function uncoded(lists: readonly (readonly string[])[], count: number): CodedStrings {
  const codes = new Uint32Array(count);
  const ends = new Uint32Array(count);
  const texts = new Array<string>(lists.length);
  let end = 0;
  let at = 0;
  for (let l = 0; l < lists.length; l++) {
    const strings = lists[l];
    for (let i = 0; i < strings.length; i++, at++) {
      end += strings[i].length;
      ends[at] = end;
      codes[at] = at;
    }
    texts[l] = strings.join('');
  }
  return { text: texts.join(''), ends, codes };
}
