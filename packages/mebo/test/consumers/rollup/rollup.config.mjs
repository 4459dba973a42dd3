// Rollup resolves packages with @rollup/plugin-node-resolve and emits the
// files a module names by `new URL('…', import.meta.url)` (mebo's .wasm
// builds and its pool worker) with @web/rollup-plugin-import-meta-assets.
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { importMetaAssets } from '@web/rollup-plugin-import-meta-assets';

export default {
  input: 'src/main.js',
  output: { dir: 'dist', format: 'es' },
  plugins: [nodeResolve(), importMetaAssets()],
};
