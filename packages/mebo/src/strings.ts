import type { JoinedStrings } from './boundary.js';

/** @internal Split joined strings (one UTF-8 decode in the glue, then cheap slices). */
export function splitStrings(joined: JoinedStrings): string[] {
  const { text, ends } = joined;
  const out = new Array<string>(ends.length);
  let start = 0;
  for (let i = 0; i < ends.length; i++) {
    const end = ends[i];
    out[i] = text.slice(start, end);
    start = end;
  }
  return out;
}

/** @internal */
export function splitOptionalStrings(joined: JoinedStrings | undefined): string[] | undefined {
  return joined === undefined ? undefined : splitStrings(joined);
}

/** @internal Strings joined as the encoders' bindings take them, the form `splitStrings` splits: one crossing per column, not per string. */
export function joinStrings(strings: readonly string[]): JoinedStrings {
  return joinLists([strings], strings.length);
}

/** @internal The strings of every list, back to back, joined as `joinStrings` joins one list; `count` is their total. */
export function joinLists(lists: readonly (readonly string[])[], count: number): JoinedStrings {
  const ends = new Uint32Array(count);
  const texts = new Array<string>(lists.length);
  let end = 0;
  let at = 0;
  for (let l = 0; l < lists.length; l++) {
    const strings = lists[l];
    for (let i = 0; i < strings.length; i++) {
      end += strings[i].length;
      ends[at++] = end;
    }
    texts[l] = strings.join('');
  }
  return { text: texts.length === 1 ? texts[0] : texts.join(''), ends };
}
