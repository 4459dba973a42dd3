// A Worker's view of the published types: with `customConditions: ["workerd"]`
// 'mebo' and 'mebo/decode' resolve to the workerd entries, whose init() and
// initSync() need no module (type-checked by ../types-consumers.test.ts, never run;
// test/tarball-consumers.test.ts runs a Worker).

import { init, initSync, NumericBlob, type NumericColumns } from 'mebo';
import { initSync as initDecodeSync, TextBlob } from 'mebo/decode';

export async function consume(bytes: Uint8Array): Promise<number> {
  await init();
  initSync();
  initDecodeSync();
  const columns: NumericColumns = NumericBlob.from(bytes).decodeAll();
  return columns.values.length + TextBlob.from(bytes).length;
}
