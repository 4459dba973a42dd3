import { metricId as coreMetricId } from '../wasm/mebo_wasm.js';
import * as args from './args.js';
import { call } from './errors.js';
import { ready } from './module.js';

/** The id of a metric name, as blobs store it: xxHash64 of the UTF-8 bytes, seed 0. */
export function metricId(name: string): bigint {
  ready();
  const text = args.optionalString(name, 'metric name') ?? '';
  return call(() => coreMetricId(text));
}
