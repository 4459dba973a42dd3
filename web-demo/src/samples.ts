// What build.mjs writes to dist/samples/index.json: the bundled sample blobs.

export interface Sample {
  /** Stable key, also the file name under samples/. */
  id: string;
  label: string;
  group: string;
  kind: 'numeric' | 'text';
  /** One blob, or the windows of a blob set. */
  files: string[];
  bytes: number;
  /** One line about what the sample shows. */
  note: string;
  /** Metric names by id (16 hex digits), from the data the blob was encoded from: blobs store ids, not names. */
  names: Record<string, string>;
}

export interface SampleIndex {
  default: string;
  samples: Sample[];
  /** The stream sample (stream-sample.mjs): its file under samples/ and its metrics' names by id. */
  stream: { file: string; names: Record<string, string> };
}
