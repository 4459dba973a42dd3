// A `.wasm` import as Cloudflare Workers (and wrangler's bundling) hand it
// over: a compiled module. Only the `workerd` entries import one.
declare module '*.wasm' {
  const module: WebAssembly.Module;
  export default module;
}
