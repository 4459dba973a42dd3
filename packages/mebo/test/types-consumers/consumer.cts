// A CommonJS consumer of the published package (`require` under node16
// resolution: the .d.cts declarations, mebo/arrow's over apache-arrow's), type-checked by ../types-consumers.test.ts.
// It is never run; test/tarball-consumers.test.ts runs a CommonJS project.

import { init, MeboError, NumericBlob, encodeNumeric, type MeboErrorCode, type NumericColumns, type TextColumns } from 'mebo';
import { init as initDecode, TextBlob as ReadOnlyTextBlob, type TextMetric } from 'mebo/decode';
import { DecodePool } from 'mebo/worker';
import { toArrow } from 'mebo/arrow';
// @ts-expect-error: mebo/decode has no encoders, required or imported
import { encodeText as noEncoder } from 'mebo/decode';

export async function consume(bytes: Uint8Array): Promise<number> {
  await init();
  await initDecode({ variant: 'scalar' });
  const blob = NumericBlob.from(bytes, { maxPoints: 1_000_000 });
  const columns: NumericColumns = blob.decodeAll();
  const rows: number = toArrow(blob).numRows;
  blob.free();
  const text: TextMetric = ReadOnlyTextBlob.from(bytes).metric('status');
  const pool = await DecodePool.create({ size: 1 });
  const texts = (await pool.decodeAll(bytes)) as TextColumns;
  pool.terminate();
  try {
    encodeNumeric([{ name: 'm', timestamps: [1n], values: [2] }], { layout: 'v2' });
  } catch (error) {
    if (error instanceof MeboError) {
      const code: MeboErrorCode = error.code;
      return code.length;
    }
  }
  return columns.values.length + rows + text.values.length + texts.codes.length + (noEncoder === undefined ? 0 : 1);
}
