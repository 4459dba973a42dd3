// The lexical forms the vectors' input schema and the CLI's CSV share: a
// module of its own, so that `mebo/document` exports the parser and not these.

/** A metric id or a float64's bits as the schema writes them. */
export const HEX16 = /^[0-9a-fA-F]{16}$/;
const DECIMAL = /^-?[0-9]+$/;
/** Whether `s` is an int64 as a decimal string (a timestamp in µs). */
export const isInt64 = (s: string) => DECIMAL.test(s) && BigInt.asIntN(64, BigInt(s)) === BigInt(s);
