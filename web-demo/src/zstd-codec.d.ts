// zstd-codec ships no types: the part formats-run.ts uses (through mebo-tooling/peers' zstdCodec).
declare module 'zstd-codec' {
  export const ZstdCodec: {
    run(callback: (codec: { Simple: new () => { compress(data: Uint8Array, level?: number): Uint8Array } }) => void): void;
  };
}
