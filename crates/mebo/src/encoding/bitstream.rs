//! MSB-first bit streams shared by the XOR value codecs (Gorilla, Chimp).
//!
//! Layout: the first bit of the stream is the most significant bit of the
//! first byte; a field of `n` bits is written most significant bit first. The
//! last byte is padded with zero bits. This is the same as writing the stream
//! as a sequence of big-endian 64-bit words and then dropping the unused whole
//! bytes of the last word.

/// Append a bit stream of at most `max_bits` bits to `out`, written by
/// `write`; the last byte is zero-padded.
///
/// `out` grows once, by the most the stream can take, and is cut back to
/// what it took: the writer then stores into a slice, with no capacity check
/// and no length update per word (a third of Gorilla's encode when it
/// appended to the vector).
#[inline(always)]
pub fn append_bits(out: &mut Vec<u8>, max_bits: usize, write: impl FnOnce(&mut BitWriter)) {
    let start = out.len();
    // The 8 bytes past the last whole byte: every push stores a whole word.
    out.resize(start + max_bits.div_ceil(8) + 8, 0);
    let mut bits = BitWriter { buf: &mut out[start..], pos: 0, acc: 0, used: 0 };
    write(&mut bits);
    let len = bits.finish();
    out.truncate(start + len);
}

/// Writes bits MSB-first into a slice (see [`append_bits`]).
///
/// Bits collect in a 64-bit accumulator that is stored as one big-endian
/// word when it fills.
pub struct BitWriter<'a> {
    /// Room for every bit the stream may take, and 8 bytes more.
    buf: &'a mut [u8],
    /// Where the next whole word goes.
    pos: usize,
    /// Pending bits, MSB-aligned; the bits below `used` are zero.
    acc: u64,
    /// Number of pending bits in `acc` (0..=63 between calls).
    used: u32,
}

impl BitWriter<'_> {
    /// Write the low `n` bits of `value` (`n` in 0..=64); higher bits of
    /// `value` are ignored.
    #[inline]
    pub fn write_bits(&mut self, value: u64, n: u32) {
        debug_assert!(n <= 64);
        if n == 0 {
            return;
        }
        let field = value << (64 - n); // MSB-aligned, drops the ignored high bits
        let merged = self.acc | (field >> self.used);
        // The bits of `field` that did not fit, if the word fills up. Two
        // shifts so that `used == 0` (all of `field` fit) gives zero.
        let overflow = (field << 1) << (63 - self.used);
        self.push_if_full(merged, overflow, self.used + n);
    }

    /// Write the low `n` bits of `value` (`n` in 1..=128).
    #[inline(always)]
    pub fn write_wide(&mut self, value: u128, n: u32) {
        if n > 64 {
            self.write_bits((value >> 64) as u64, n - 64);
            self.write_bits(value as u64, 64);
        } else {
            self.write_bits(value as u64, n);
        }
    }

    /// Write `n` zero bits (`n` in 0..=64). Cheaper than `write_bits(0, n)`:
    /// the accumulator's free bits are already zero.
    #[inline]
    pub fn write_zeros(&mut self, n: u32) {
        debug_assert!(n <= 64);
        self.push_if_full(self.acc, 0, self.used + n);
    }

    /// Commit `merged` (the accumulator with `total` bits, up to 127) and keep
    /// `overflow` as the new accumulator if the word filled up.
    ///
    /// The word is always stored and overwritten later when not full: on
    /// noisy data a branch on "full?" mispredicts about every other value.
    #[inline(always)]
    fn push_if_full(&mut self, merged: u64, overflow: u64, total: u32) {
        let full = total >= 64;
        self.buf[self.pos..self.pos + 8].copy_from_slice(&u64_to_be(merged));
        self.pos += if full { 8 } else { 0 };
        self.acc = if full { overflow } else { merged };
        self.used = total & 63;
    }

    /// Store the pending bits (the last byte zero-padded); the stream's length in bytes.
    #[inline]
    fn finish(self) -> usize {
        self.buf[self.pos..self.pos + 8].copy_from_slice(&u64_to_be(self.acc));
        self.pos + self.used.div_ceil(8) as usize
    }
}

/// Reads bits MSB-first from a byte slice.
///
/// The reader is just a bit position: [`peek`](BitReader::peek) loads the 64
/// bits starting there with one unaligned big-endian load (plus one byte for
/// the bit offset). On noisy data the XOR codecs take 40-60 bits per value, so
/// a refill buffer would need a refill (and an unpredictable "refill now?"
/// branch) about every value anyway; peeking per field has no such branch
/// and reads any width up to 64 bits in one go.
///
/// Reading past the end never panics: missing bits read as zero and the
/// position keeps counting, so [`overran`](BitReader::overran) tells the
/// caller, who turns it into an error once the column is decoded. The XOR
/// codecs read zero bits as "repeat the previous value", so running off the
/// end costs little before that final check catches it.
pub struct BitReader<'a> {
    data: &'a [u8],
    /// Bits consumed so far, saturating: on 32-bit targets (wasm32) a hostile
    /// stream could otherwise run it past `usize::MAX`, which `overran` then
    /// reports. Native width keeps the per-value arithmetic cheap in wasm.
    pos: usize,
}

/// A stream's last 16 bytes (all of it when shorter), then 16 zeros: the
/// reads within 16 bytes of its end come from here, inline, on a branch the
/// hot path does not take. It lives beside the decoder, not in the reader:
/// an array indexed at run time kept the whole reader in memory, its
/// position stored every value (and a call to copy the bytes instead kept
/// every value's state live across a call: spilled).
pub struct Tail {
    #[cfg(target_arch = "x86_64")]
    bytes: [u8; 32],
    /// Where `bytes` starts in the stream.
    #[cfg(target_arch = "x86_64")]
    start: usize,
}

impl Tail {
    /// Nothing elsewhere: only x86-64 reads through a [`Chunk`].
    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    pub fn of(_data: &[u8]) -> Tail {
        Tail {}
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn of(data: &[u8]) -> Tail {
        let mut bytes = [0u8; 32];
        let start = data.len().saturating_sub(16);
        match data.last_chunk::<16>() {
            Some(last) => bytes[..16].copy_from_slice(last),
            None => {
                for (to, from) in bytes.iter_mut().zip(data) {
                    *to = *from;
                }
            }
        }
        Tail { bytes, start }
    }
}

/// What a read past the end of the data sees.
#[cfg(target_arch = "x86_64")]
const ZEROS: [u8; 16] = [0; 16];

impl<'a> BitReader<'a> {
    #[inline]
    pub fn new(data: &'a [u8]) -> Self {
        BitReader { data, pos: 0 }
    }

    /// The 16 bytes from `byte` on, zero past the end of the data.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn bytes_16<'s>(&'s self, tail: &'s Tail, byte: usize) -> &'s [u8; 16] {
        match self.data.get(byte..byte.wrapping_add(16)).and_then(|s| s.first_chunk::<16>()) {
            Some(bytes) => bytes,
            None => {
                // A branch, not a select: a select would put its compare on
                // every value's chain from position to load.
                cold_path();
                let at = byte.wrapping_sub(tail.start);
                tail.bytes.get(at..at.wrapping_add(16)).and_then(|s| s.first_chunk::<16>()).unwrap_or(&ZEROS)
            }
        }
    }

    #[cfg(test)] // the codecs read through `lookahead`
    /// The next 64 bits, MSB-aligned, without consuming them. Bits past the
    /// end of the data read as zero.
    #[inline(always)]
    pub fn peek(&self) -> u64 {
        self.peek_at(self.pos)
    }

    /// The next 121 bits or more (missing bits read as zero): a codec's
    /// header and the field after it from one bounds check and one load.
    #[cfg(any(test, not(target_arch = "x86_64")))] // x86-64 reads through `Chunk`
    #[inline(always)]
    pub fn lookahead(&self) -> Lookahead {
        let (byte, offset) = (self.pos >> 3, (self.pos & 7) as u32);
        match self.data.get(byte..byte.wrapping_add(16)).and_then(|s| s.first_chunk::<16>()) {
            Some(bytes) => Lookahead::of(bytes, offset),
            None => Lookahead::of(&self.bytes_near_end::<16>(byte), offset),
        }
    }

    /// What Gorilla and Chimp read a value from: a [`Chunk`] on x86-64, a
    /// [`Lookahead`] elsewhere. In V8 (wasm32) the chunk's second load and
    /// byte swap cost more than the lookahead's shifts (Gorilla kernel,
    /// simd128 build: 4.59 against 4.37 ns a value); natively the
    /// lookahead's two-register shifts cost more (2.90 against 3.07).
    #[inline(always)]
    pub fn ahead<'s>(&'s self, tail: &'s Tail) -> Ahead<'s> {
        #[cfg(target_arch = "x86_64")]
        {
            self.chunk(tail)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = tail;
            self.lookahead()
        }
    }

    /// The 16 bytes from the reader's byte on (zero past the end of the
    /// data; `tail` is [`Tail::of`] the reader's data), for [`Chunk`]'s reads.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn chunk<'s>(&'s self, tail: &'s Tail) -> Chunk<'s> {
        let (byte, offset) = (self.pos >> 3, (self.pos & 7) as u32);
        Chunk { bytes: self.bytes_16(tail, byte), offset }
    }

    #[cfg(test)] // the codecs read through `lookahead`
    #[inline(always)]
    fn peek_at(&self, bit_pos: usize) -> u64 {
        let (byte, offset) = (bit_pos >> 3, (bit_pos & 7) as u32);
        match self.data.get(byte..byte.wrapping_add(9)).and_then(|s| s.first_chunk::<9>()) {
            Some(bytes) => window_of(bytes, offset),
            None => window_of(&self.bytes_near_end::<9>(byte), offset),
        }
    }

    /// Consume `n` bits.
    #[inline(always)]
    pub fn skip(&mut self, n: u32) {
        #[cfg(target_pointer_width = "64")]
        {
            // A codec consumes at most 77 bits per value it writes, and no
            // slice of f64 has 2^57 values: the position stays far below
            // 2^64, so a plain add (one instruction, not three) is exact.
            self.pos = self.pos.wrapping_add(n as usize);
        }
        #[cfg(not(target_pointer_width = "64"))]
        {
            self.pos = self.pos.saturating_add(n as usize);
        }
    }

    #[cfg(test)] // the codecs read through `lookahead`
    /// Read `n` bits (`n <= 64`) as the low bits of the result.
    #[inline(always)]
    pub fn read_bits(&mut self, n: u32) -> u64 {
        debug_assert!(n <= 64);
        // n == 0 would shift by 64: checked_shr turns that into 0.
        let value = self.peek().checked_shr(64 - n).unwrap_or(0);
        self.skip(n);
        value
    }

    #[cfg(test)] // the codecs read through `lookahead`
    /// Read one bit.
    #[inline(always)]
    pub fn read_bit(&mut self) -> bool {
        self.read_bits(1) == 1
    }

    /// `N` bytes from `byte` on, zero past the end of the data: the loads
    /// within `N` bytes of the end (or past it), off the hot path.
    #[cfg(any(test, not(target_arch = "x86_64")))] // x86-64 reads through `Chunk`
    #[cold]
    #[inline(never)]
    fn bytes_near_end<const N: usize>(&self, byte: usize) -> [u8; N] {
        let mut bytes = [0u8; N];
        if let Some(rest) = self.data.get(byte..) {
            let n = rest.len().min(N);
            bytes[..n].copy_from_slice(&rest[..n]);
        }
        bytes
    }

    /// Whether any bit past the end of the data has been consumed.
    #[inline]
    pub fn overran(&self) -> bool {
        self.pos == usize::MAX || self.pos as u64 > self.data.len() as u64 * 8
    }

    #[cfg(test)] // the codecs read through `lookahead`
    /// Bytes touched by the bits consumed so far (the last one possibly in
    /// part), at most the data length.
    pub fn consumed_bytes(&self) -> usize {
        self.pos.div_ceil(8).min(self.data.len())
    }
}

/// Marks the branch that calls it as rarely taken (`core::hint::cold_path`
/// is newer than the crate's MSRV): an empty call to a cold function, which
/// LLVM drops once it has weighed the branch. (Checked in the x86-64 build:
/// the near-end test stays a branch, not a select on the chain.)
#[cfg(target_arch = "x86_64")]
#[cold]
#[inline(never)]
fn cold_path() {}

/// See [`BitReader::ahead`].
#[cfg(target_arch = "x86_64")]
pub type Ahead<'s> = Chunk<'s>;
/// See [`BitReader::ahead`].
#[cfg(not(target_arch = "x86_64"))]
pub type Ahead<'s> = Lookahead;
/// How many leading bits of an [`Ahead`]'s `head` are sure to be stream bits.
#[cfg(target_arch = "x86_64")]
pub const AHEAD_HEAD_BITS: u32 = 57;
/// How many leading bits of an [`Ahead`]'s `head` are sure to be stream bits.
#[cfg(not(target_arch = "x86_64"))]
pub const AHEAD_HEAD_BITS: u32 = 64;

/// The stream from a reader's position: 16 bytes and the bit offset into
/// the first. A codec reads its header from [`head`](Chunk::head) and the
/// value bits after it with [`field`](Chunk::field), a load of its own: the
/// next position needs only the header, so the field's load and shifts stay
/// off the chain from value to value, and no two-register shift (`shld`,
/// several micro-ops on x86) is needed.
#[derive(Clone, Copy)]
#[cfg(target_arch = "x86_64")]
pub struct Chunk<'s> {
    bytes: &'s [u8; 16],
    /// Bit offset into `bytes[0]`, 0..=7.
    offset: u32,
}

#[cfg(target_arch = "x86_64")]
impl Chunk<'_> {
    /// The next 64 bits, MSB-aligned, of which only the first 57 are sure to
    /// be stream bits (the rest read as zero).
    #[inline(always)]
    pub fn head(self) -> u64 {
        let [b0, b1, b2, b3, b4, b5, b6, b7, ..] = *self.bytes;
        u64_from_be([b0, b1, b2, b3, b4, b5, b6, b7]) << self.offset
    }

    /// The `width` bits (1..=64) that start `skip` bits (0..=56) after the
    /// position, as the low bits of the result.
    #[inline(always)]
    pub fn field(self, skip: u32, width: u32) -> u64 {
        let start = self.offset + skip;
        // Masked to 0..=7 so the nine bytes read are in the array (skip <= 56
        // keeps it exact).
        let byte = (start >> 3) as usize & 7;
        let shift = start & 7;
        let Some((word, [ninth, ..])) = self.bytes[byte..].split_first_chunk::<8>() else { return 0 };
        let mut bits = u64_from_be(*word) << shift;
        // Eight bytes hold the field unless it is wider than 64 - shift bits
        // (57 or more; rare): then the top `shift` bits of the ninth byte.
        if width + shift > 64 {
            cold_path();
            bits |= (u64::from(*ninth) << shift) >> 8;
        }
        bits >> (64 - width)
    }
}

/// At least 121 bits of a stream from the reader's position, MSB-aligned.
#[cfg(any(test, not(target_arch = "x86_64")))] // x86-64 reads through `Chunk`
#[derive(Clone, Copy)]
pub struct Lookahead {
    /// The first 64 bits.
    hi: u64,
    /// The next 64 bits; at least the top 57 are stream bits.
    lo: u64,
}

#[cfg(any(test, not(target_arch = "x86_64")))] // x86-64 reads through `Chunk`
impl Lookahead {
    /// The bits of 16 bytes from `offset` (0..=7) bits into the first.
    #[inline(always)]
    fn of(bytes: &[u8; 16], offset: u32) -> Self {
        let (a, b) = u64_pair_from_be(*bytes);
        Self::of_words(a, b, offset)
    }

    /// The bits of the 128-bit word `a`:`b` from `offset` (0..=7) bits on.
    #[inline(always)]
    fn of_words(a: u64, b: u64, offset: u32) -> Self {
        // `b >> 1 >> (63 - offset)`: the top `offset` bits of `b`, 0 for offset 0.
        Lookahead { hi: (a << offset) | ((b >> 1) >> (63 - offset)), lo: b << offset }
    }

    /// The first 64 bits.
    #[inline(always)]
    pub fn head(self) -> u64 {
        self.hi
    }

    /// The `width` bits (1..=64) that start `skip` bits (0..=57) after the
    /// position, as the low bits of the result ([`Chunk::field`]'s twin).
    #[inline(always)]
    pub fn field(self, skip: u32, width: u32) -> u64 {
        self.after(skip) >> (64 - width)
    }

    /// The 64 bits after the first `skip` (0..=57) bits.
    #[inline(always)]
    pub fn after(self, skip: u32) -> u64 {
        // Two shifts so that `skip == 0` is not a shift by 64.
        (self.hi << skip) | ((self.lo >> 1) >> (63 - skip))
    }
}

#[cfg(test)] // the codecs read through `lookahead`
/// The 64 bits starting `offset` (0..=7) bits into `bytes`.
#[inline(always)]
fn window_of(bytes: &[u8; 9], offset: u32) -> u64 {
    let [head @ .., ninth] = *bytes;
    // `ninth << offset >> 8` is the top `offset` bits of the ninth byte (0 for offset 0).
    (u64_from_be(head) << offset) | ((u64::from(ninth) << offset) >> 8)
}

/// `u64::from_be_bytes`, the scalar path. wasm32 has no byte-swap instruction:
/// LLVM expands one into about 24 shifts, masks and ors, twice per value in the
/// XOR codecs. With simd128 a single swizzle reverses the bytes instead.
#[inline(always)]
pub fn u64_from_be(bytes: [u8; 8]) -> u64 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::u64_from_be(bytes)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        u64::from_be_bytes(bytes)
    }
}

/// `u64::to_be_bytes`, the scalar path; one swizzle with simd128, as in
/// [`u64_from_be`] (the bit writer stores a word twice per value).
#[inline(always)]
pub fn u64_to_be(word: u64) -> [u8; 8] {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::u64_to_be(word)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        word.to_be_bytes()
    }
}

/// Two big-endian u64 from 16 bytes (one swizzle with simd128, as above).
#[cfg(any(test, not(target_arch = "x86_64")))] // x86-64 reads through `Chunk`
#[inline(always)]
fn u64_pair_from_be(bytes: [u8; 16]) -> (u64, u64) {
    let (a, b) = bytes.split_at(8);
    let (a, b) = (a.try_into().unwrap_or([0; 8]), b.try_into().unwrap_or([0; 8]));
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        simd128::u64_pair_from_be(a, b)
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        (u64::from_be_bytes(a), u64::from_be_bytes(b))
    }
}

/// XOR columns laid out for reading without byte swaps, for the scalar wasm
/// build: wasm32 has no byte-swap instruction, and without simd128's swizzle
/// each big-endian 64-bit read is a dozen shifts and masks. Each column's
/// stream (the bytes after its first value) is copied byte-reversed after
/// [`PAD`](reversed::PAD) zero bytes, once a decode call: the big-endian
/// bytes from any stream byte on are then little-endian bytes in memory, so a
/// read is one plain 16-byte load, and reads near or past the end land in the
/// zeros. Gorilla in V8: 7.62 -> 5.79 ns a value. With simd128 the reversal
/// costs what the swizzle saved (4.37 against 4.33), so that build reads the
/// column as stored.
#[cfg(any(test, all(target_arch = "wasm32", not(target_feature = "simd128"))))]
pub mod reversed {
    use super::{Lookahead, Tail};
    use crate::error::{Error, Result};
    use crate::limits;

    /// Zero bytes before each reversed stream: a 16-byte read from any byte
    /// up to the stream's end stays in the column.
    pub const PAD: usize = 16;

    /// `cols` laid out in `buf` for [`ReversedReader`]: each column's first 8
    /// bytes as stored, then [`PAD`] zeros, then the rest reversed (a column
    /// shorter than 8 bytes as stored: it has no first value, which is the
    /// decoder's error to report). Allocated fallibly (`OutOfMemory`).
    pub fn lay_out<'b, const N: usize>(cols: [&[u8]; N], buf: &'b mut Vec<u8>) -> Result<[&'b [u8]; N]> {
        const WHAT: &str = "reversed value columns";
        let size = |col: &[u8]| if col.len() < 8 { col.len() } else { col.len() + PAD };
        let total = cols.iter().try_fold(0usize, |sum, col| sum.checked_add(size(col)));
        let total = total.ok_or(Error::OutOfMemory { what: WHAT, bytes: usize::MAX })?;
        buf.clear();
        limits::resize(buf, total, 0, WHAT)?;
        let mut rest = &mut buf[..];
        for col in cols {
            let Some((region, after)) = core::mem::take(&mut rest).split_at_mut_checked(size(col)) else { break };
            match col.split_first_chunk::<8>() {
                Some((first, stream)) => {
                    region[..8].copy_from_slice(first);
                    // The zeros are the buffer's, from `resize`.
                    reverse_into(&mut region[8 + PAD..], stream);
                }
                None => region.copy_from_slice(col),
            }
            rest = after;
        }
        let mut rest = &buf[..];
        Ok(cols.map(|col| {
            let (region, after) = rest.split_at_checked(size(col)).unwrap_or((&[], &[]));
            rest = after;
            region
        }))
    }

    /// `out` = `data` reversed (same lengths), 16 bytes at a time.
    fn reverse_into(out: &mut [u8], data: &[u8]) {
        let mut outs = out.chunks_exact_mut(16);
        let ins = data.rchunks_exact(16);
        let front = ins.remainder();
        for (to, from) in (&mut outs).zip(ins) {
            to.copy_from_slice(&u128::from_be_bytes(from.try_into().unwrap_or([0; 16])).to_le_bytes());
        }
        for (to, from) in outs.into_remainder().iter_mut().zip(front.iter().rev()) {
            *to = *from;
        }
    }

    /// Reads a stream [`lay_out`] stored: [`super::BitReader`]'s twin, each
    /// [`Lookahead`] one 16-byte little-endian load.
    pub struct ReversedReader<'a> {
        /// [`PAD`] zeros, then the stream's bytes in reverse order.
        rev: &'a [u8],
        /// `8 * len + 7 - position` for a stream of `len` bytes and a
        /// position in bits, floored at 0: its top bits are where in `rev` the
        /// 16 bytes from the position start, its low 3 bits `7 -` the bit
        /// offset into the first. Counting down spares a subtraction a value.
        left: usize,
    }

    impl<'a> ReversedReader<'a> {
        /// A reader over `rev`: [`PAD`] zeros, then a stream reversed.
        pub fn new(rev: &'a [u8]) -> Self {
            let len = rev.len().saturating_sub(PAD);
            ReversedReader { rev, left: len.saturating_mul(8).saturating_add(7) }
        }

        /// The next 121 bits or more (missing bits read as zero).
        #[inline(always)]
        pub fn lookahead(&self) -> Lookahead {
            let (start, offset) = (self.left >> 3, 7 - (self.left & 7) as u32);
            // `left >> 3` is at most the stream's length: the 16 bytes are in
            // `rev`, those past the stream's end in its zero prefix.
            match self.rev.get(start..start.wrapping_add(16)).and_then(|s| s.first_chunk::<16>()) {
                Some(bytes) => {
                    let word = u128::from_le_bytes(*bytes);
                    Lookahead::of_words((word >> 64) as u64, word as u64, offset)
                }
                None => no_bits(),
            }
        }

        /// [`super::BitReader::ahead`]'s twin (no [`Tail`] needed).
        #[inline(always)]
        pub fn ahead(&self, _tail: &Tail) -> Lookahead {
            self.lookahead()
        }

        /// Consume `n` bits.
        #[inline(always)]
        pub fn skip(&mut self, n: u32) {
            self.left = self.left.saturating_sub(n as usize);
        }

        /// Whether any bit past the end of the stream has been consumed.
        #[inline]
        pub fn overran(&self) -> bool {
            self.left < 7
        }
    }

    /// No bits (never taken: a read starts inside `rev`). A call, so the
    /// branch to it stays a branch, not a select on the chain.
    #[cold]
    #[inline(never)]
    fn no_bits() -> Lookahead {
        Lookahead { hi: 0, lo: 0 }
    }
}

/// The simd128 twins of [`u64_from_be`]'s and [`u64_to_be`]'s scalar paths.
/// The SDK's variant tests decode and encode every vector with the simd128 and
/// the scalar wasm builds and compare.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128 {
    use core::arch::wasm32::{i64x2, i64x2_extract_lane, i64x2_splat, i8x16, i8x16_swizzle};

    /// Reverses the bytes of each 64-bit lane.
    const REVERSE_LANES: [i8; 16] = [7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8];

    #[inline(always)]
    pub fn u64_pair_from_be(a: [u8; 8], b: [u8; 8]) -> (u64, u64) {
        let [r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15] = REVERSE_LANES;
        let reverse = i8x16(r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15);
        let swapped = i8x16_swizzle(i64x2(i64::from_le_bytes(a), i64::from_le_bytes(b)), reverse);
        (i64x2_extract_lane::<0>(swapped) as u64, i64x2_extract_lane::<1>(swapped) as u64)
    }

    #[inline(always)]
    pub fn u64_from_be(bytes: [u8; 8]) -> u64 {
        // Lane 0 holds the bytes as loaded (little endian); the swizzle reverses them.
        let reverse = i8x16(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
        i64x2_extract_lane::<0>(i8x16_swizzle(i64x2_splat(i64::from_le_bytes(bytes)), reverse)) as u64
    }

    #[inline(always)]
    pub fn u64_to_be(word: u64) -> [u8; 8] {
        u64_from_be(word.to_le_bytes()).to_le_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn write(fields: &[(u64, u32)]) -> Vec<u8> {
        let mut out = Vec::new();
        let max_bits = fields.iter().map(|&(_, n)| n as usize).sum();
        append_bits(&mut out, max_bits, |w| {
            for &(v, n) in fields {
                w.write_bits(v, n);
            }
        });
        out
    }

    #[test]
    fn msb_first_with_zero_padded_last_byte() {
        assert_eq!(write(&[(1, 1)]), [0x80]);
        assert_eq!(write(&[(0b101, 3), (0xF, 4), (1, 2)]), [0b1011_1110, 0b1000_0000]);
        assert_eq!(write(&[(u64::MAX, 64)]), [0xFF; 8]);
        assert_eq!(write(&[(0, 1), (0x0123_4567_89AB_CDEF, 64)]), [0x00, 0x91, 0xA2, 0xB3, 0xC4, 0xD5, 0xE6, 0xF7, 0x80]);
        assert_eq!(write(&[]), [] as [u8; 0]);
        // High bits beyond `n` are ignored.
        assert_eq!(write(&[(0xFF, 4)]), [0xF0]);
    }

    #[test]
    fn writer_appends_after_existing_bytes() {
        let mut out = vec![0xAA];
        append_bits(&mut out, 4, |w| {
            w.write_zeros(3);
            w.write_bits(1, 1);
        });
        assert_eq!(out, [0xAA, 0x10]);
    }

    #[test]
    fn reader_flags_overrun_instead_of_panicking() {
        let data = [0xFFu8, 0x00, 0x81];
        let mut r = BitReader::new(&data);
        assert_eq!(r.read_bits(4), 0xF);
        assert_eq!(r.read_bits(20), 0xF0081);
        assert!(!r.overran());
        assert_eq!(r.consumed_bytes(), 3);
        assert_eq!(r.read_bits(64), 0);
        assert!(r.overran());
        for _ in 0..100 {
            r.read_bits(64);
        }
        assert!(r.overran());

        let mut empty = BitReader::new(&[]);
        assert_eq!(empty.read_bits(0), 0);
        assert!(!empty.overran());
        assert!(!empty.read_bit());
        assert!(empty.overran());
    }

    /// A position that would pass `usize::MAX` (reachable on wasm32 with a
    /// hostile stream) saturates and counts as overrun, reading zeros.
    #[test]
    #[cfg(not(target_pointer_width = "64"))]
    fn position_saturates_and_overruns() {
        let data = [0xFFu8; 32];
        let mut r = BitReader::new(&data);
        r.pos = usize::MAX - 5;
        r.skip(64);
        assert_eq!(r.pos, usize::MAX);
        assert!(r.overran());
        assert_eq!((r.peek(), r.lookahead().head()), (0, 0));
        assert_eq!(r.consumed_bytes(), data.len());
    }

    /// 64-bit targets add without saturating (see `skip`): a position far
    /// past the data still counts as overrun and reads zeros.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn far_positions_overrun_and_read_zeros() {
        let data = [0xFFu8; 32];
        let mut r = BitReader::new(&data);
        r.pos = 1 << 60;
        r.skip(77);
        assert_eq!(r.pos, (1 << 60) + 77);
        assert!(r.overran());
        assert_eq!((r.peek(), r.lookahead().head()), (0, 0));
        assert_eq!(r.consumed_bytes(), data.len());
    }

    proptest! {
        #[test]
        fn fields_round_trip(fields in prop::collection::vec((any::<u64>(), 0u32..=64), 0..200), extra in 0usize..4) {
            let mut bytes = write(&fields);
            let total_bits: usize = fields.iter().map(|&(_, n)| n as usize).sum();
            prop_assert_eq!(bytes.len(), total_bits.div_ceil(8));
            bytes.extend(std::iter::repeat_n(0x5A, extra)); // trailing bytes are ignored
            let mut r = BitReader::new(&bytes);
            for &(v, n) in &fields {
                let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
                prop_assert_eq!(r.read_bits(n), v & mask);
            }
            prop_assert!(!r.overran());
            prop_assert_eq!(r.consumed_bytes(), total_bits.div_ceil(8));
        }

        /// A wide field is the same bits as its high and low words written apart.
        #[test]
        fn wide_fields_are_their_words_in_turn(fields in prop::collection::vec((any::<u128>(), 1u32..=128), 0..100), lead in 0u32..64) {
            let mut wide = Vec::new();
            let mut apart = Vec::new();
            let max_bits = lead as usize + fields.iter().map(|&(_, n)| n as usize).sum::<usize>();
            append_bits(&mut wide, max_bits, |w| {
                w.write_bits(u64::MAX, lead);
                for &(v, n) in &fields {
                    w.write_wide(v, n);
                }
            });
            append_bits(&mut apart, max_bits, |w| {
                w.write_bits(u64::MAX, lead);
                for &(v, n) in &fields {
                    w.write_bits((v >> 64) as u64, n.saturating_sub(64));
                    w.write_bits(v as u64, n.min(64));
                }
            });
            prop_assert_eq!(wide, apart);
        }

        #[test]
        fn peek_and_lookahead_match_bit_by_bit(bytes in prop::collection::vec(any::<u8>(), 0..40), start in 0u32..400, skip in 0u32..=57) {
            let bit = |i: usize| bytes.get(i / 8).map_or(0, |b| u64::from(b >> (7 - i % 8) & 1));
            let bits_from = |from: u32| (0..64).fold(0u64, |acc, i| (acc << 1) | bit(from as usize + i));
            let mut r = BitReader::new(&bytes);
            r.skip(start);
            prop_assert_eq!(r.peek(), bits_from(start));
            prop_assert_eq!(r.lookahead().head(), bits_from(start));
            prop_assert_eq!(r.lookahead().after(skip), bits_from(start + skip));
            let width = skip % 64 + 1;
            prop_assert_eq!(r.lookahead().field(skip, width), bits_from(start + skip) >> (64 - width));
        }

        /// `ReversedReader` (columns laid out side by side in one buffer)
        /// reads what a plain bit-by-bit reader reads, near and past the end.
        #[test]
        fn reversed_reader_matches_bit_by_bit(
            streams in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 3),
            start in 0u32..400,
            skip in 0u32..=57,
            width in 1u32..=64,
        ) {
            use reversed::{lay_out, ReversedReader};
            // Each column: an 8-byte first value, then the stream.
            let cols: Vec<Vec<u8>> = streams.iter().map(|s| [&[0xA5u8; 8][..], s].concat()).collect();
            let mut buf = Vec::new();
            let laid = lay_out([&cols[0][..], &cols[1][..], &cols[2][..]], &mut buf).unwrap();
            for (bytes, (col, region)) in streams.iter().zip(cols.iter().zip(laid)) {
                prop_assert_eq!(region.len(), col.len() + reversed::PAD);
                prop_assert_eq!(&region[..8], &col[..8]);
                let mut r = ReversedReader::new(&region[8..]);
                let bit = |i: usize| bytes.get(i / 8).map_or(0, |b| u64::from(b >> (7 - i % 8) & 1));
                let bits_from = |from: u32, n: u32| (0..n).fold(0u64, |acc, i| (acc << 1) | bit((from + i) as usize));
                prop_assert!(!r.overran());
                r.skip(start);
                prop_assert_eq!(r.overran(), start as usize > bytes.len() * 8);
                prop_assert_eq!(r.ahead(&Tail::of(&[])).head(), bits_from(start, 64));
                prop_assert_eq!(r.lookahead().after(skip), bits_from(start + skip, 64));
                prop_assert_eq!(r.lookahead().field(skip, width), bits_from(start + skip, width));
            }
            // A column too short for a first value is laid out as stored.
            let laid = lay_out([&[1u8, 2, 3][..]], &mut buf).unwrap();
            prop_assert_eq!(laid[0], &[1u8, 2, 3][..]);
        }

        /// `Chunk` (through `Tail` within 16 bytes of the end and past it)
        /// reads what a plain bit-by-bit reader reads.
        #[cfg(target_arch = "x86_64")]
        #[test]
        fn chunk_head_and_field_match_bit_by_bit(
            bytes in prop::collection::vec(any::<u8>(), 0..40),
            start in 0u32..400,
            skip in 0u32..=56,
            width in 1u32..=64,
        ) {
            let bit = |i: usize| bytes.get(i / 8).map_or(0, |b| u64::from(b >> (7 - i % 8) & 1));
            let bits_from = |from: u32, n: u32| (0..n).fold(0u64, |acc, i| (acc << 1) | bit((from + i) as usize));
            let mut r = BitReader::new(&bytes);
            r.skip(start);
            let tail = Tail::of(&bytes);
            let chunk = r.chunk(&tail);
            prop_assert_eq!(chunk.head() >> 7, bits_from(start, 57));
            prop_assert_eq!(chunk.field(skip, width), bits_from(start + skip, width));
        }
    }
}
