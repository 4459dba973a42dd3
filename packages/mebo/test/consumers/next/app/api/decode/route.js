// A route handler (Node.js runtime, bundled by Next.js): `await init()` with
// no argument reads the wasm on the server; the package is not listed in
// serverExternalPackages. POST a blob, get it back decoded in the vectors'
// input schema (decode-document.js is copied into app/).

import * as mebo from 'mebo';
import { decodeDocument } from '../../decode-document.js';

export async function POST(request) {
  try {
    await mebo.init();
    const bytes = new Uint8Array(await request.arrayBuffer());
    return Response.json({ info: mebo.wasmInfo(), document: decodeDocument(mebo, bytes) });
  } catch (error) {
    return Response.json({ error: { code: error?.code ?? 'THROWN', message: String(error?.message ?? error) } }, { status: 500 });
  }
}
