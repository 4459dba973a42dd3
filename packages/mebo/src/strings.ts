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
  const ends = new Uint32Array(strings.length);
  let end = 0;
  for (let i = 0; i < strings.length; i++) {
    end += strings[i].length;
    ends[i] = end;
  }
  return { text: strings.join(''), ends };
}
