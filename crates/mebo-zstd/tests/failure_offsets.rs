//! Where a failure is: each hostile payload here is written byte by byte,
//! so the byte of the frame, block or section that fails is known without
//! the decoder, and the failure must name it.

use mebo_zstd::frames::{decompress, Error, Failure};

const CAP: usize = 1 << 20;

/// What decoding `data` fails with: the check's name and where.
fn failure(data: &[u8]) -> (&'static str, usize) {
    match decompress(data, CAP) {
        Ok(out) => panic!("decoded {} bytes", out.len()),
        Err(Error { failure: Failure::Corrupt(what), at }) => (std::str::from_utf8(what).unwrap(), at),
        Err(e) => panic!("{e:?}"),
    }
}

/// A frame header without a content size, a 128 KiB window (6 bytes), with
/// or without a content checksum.
fn header(checksum: bool) -> Vec<u8> {
    vec![0x28, 0xb5, 0x2f, 0xfd, if checksum { 4 } else { 0 }, (17 - 10) << 3]
}

/// A block header: last flag, type (0 raw, 1 RLE, 2 compressed, 3 reserved), size.
fn block(last: bool, kind: u32, size: usize) -> [u8; 3] {
    let value = u32::from(last) | kind << 1 | (size as u32) << 3;
    let [a, b, c, _] = value.to_le_bytes();
    [a, b, c]
}

/// A frame of raw blocks holding `blocks`.
fn raw_frame(blocks: &[&[u8]]) -> Vec<u8> {
    let mut frame = header(false);
    for (i, bytes) in blocks.iter().enumerate() {
        frame.extend(block(i + 1 == blocks.len(), 0, bytes.len()));
        frame.extend_from_slice(bytes);
    }
    frame
}

#[test]
fn a_frame_cut_inside_its_second_block_names_that_block() {
    let frame = raw_frame(&[&[1; 100], &[2; 50]]);
    // 6 header bytes, the first block's 3 + 100: the second block at 109.
    assert_eq!(failure(&frame[..frame.len() - 1]), ("truncated raw block", 109));
    assert_eq!(failure(&frame[..110]), ("truncated block header", 109));
    // The same frame after another one: every offset moves by its length.
    let mut two = raw_frame(&[&[9; 7]]);
    assert_eq!(two.len(), 16);
    two.extend_from_slice(&frame[..frame.len() - 1]);
    assert_eq!(failure(&two), ("truncated raw block", 16 + 109));
    // Output past the cap: where the block that passed it starts.
    assert_eq!(decompress(&frame, 120).err(), Some(Error { failure: Failure::SizeCap(150), at: 109 }));
}

#[test]
fn an_rle_block_cut_after_its_header_and_a_reserved_block_type() {
    let mut frame = header(false);
    frame.extend(block(false, 1, 1000));
    frame.push(7);
    frame.extend(block(true, 1, 10));
    assert_eq!(failure(&frame), ("truncated RLE block", 10));
    frame.push(8);
    frame.extend(block(true, 3, 0));
    // The second block is the last: what follows is read as a frame.
    assert_eq!(failure(&frame), ("bad frame header", 14));
    let mut reserved = header(false);
    reserved.extend(block(false, 0, 2));
    reserved.extend([1, 2]);
    reserved.extend(block(true, 3, 0));
    assert_eq!(failure(&reserved), ("reserved block type", 11));
}

#[test]
fn a_checksum_mismatch_names_the_checksum_of_the_frame_that_fails() {
    // A skippable frame (12 bytes), a good frame with its checksum, then one
    // whose checksum is wrong.
    let mut data = vec![0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4];
    for stored in [0xad77_0999_u32, 0] {
        let mut frame = header(true);
        frame.extend(block(true, 0, 3));
        frame.extend_from_slice(b"abc");
        frame.extend(stored.to_le_bytes());
        data.extend(frame);
    }
    // 12, then two frames of 6 + 3 + 3 + 4 bytes: the second checksum at 12 + 16 + 12.
    assert_eq!(failure(&data), ("checksum mismatch", 40));
    assert_eq!(failure(&data[..data.len() - 2]), ("truncated checksum", 40));
    // The first frame's checksum is xxh64("abc")'s low 32 bits: alone, it decodes.
    assert_eq!(decompress(&data[..28], CAP).map(|out| out.as_slice().to_vec()), Ok(b"abc".to_vec()));
}

#[test]
fn a_compressed_block_names_its_failing_section() {
    // A raw block (3 + 4 bytes) first, so the compressed block starts at 13.
    let mut first = header(false);
    first.extend(block(false, 0, 4));
    first.extend_from_slice(b"wxyz");
    assert_eq!(first.len(), 13);

    // Treeless literals before any tree: the literals section, at 13 + 3.
    let mut treeless = first.clone();
    let literals = [0x13, 0x40, 0x00, 0xff]; // treeless, one stream, 1 byte from 1
    treeless.extend(block(true, 2, literals.len()));
    treeless.extend(literals);
    assert_eq!(failure(&treeless), ("treeless literals without a previous tree", 16));

    // Raw literals "ab" (3 bytes: 1 header, 2 literals), then a sequences
    // section of one sequence whose modes byte has its reserved bits set:
    // the sequences section, at 16 + 3.
    let mut reserved = first.clone();
    let body = [2 << 3, b'a', b'b', 1, 0b11, 0x80];
    reserved.extend(block(true, 2, body.len()));
    reserved.extend(body);
    assert_eq!(failure(&reserved), ("reserved bits set in the sequence modes", 19));

    // The same, its literals section cut short: the literals section again.
    let mut cut = first;
    let body = [5 << 3, b'a', b'b'];
    cut.extend(block(true, 2, body.len()));
    cut.extend(body);
    assert_eq!(failure(&cut), ("truncated literals section", 16));
}

#[test]
fn the_first_frames_header_and_declared_size() {
    assert_eq!(failure(b"not a frame"), ("unknown frame magic number", 0));
    assert_eq!(failure(&[0x28, 0xb5, 0x2f, 0xfd, 0x08]), ("reserved bit set in the frame header", 0));
    // A later frame's header: at that frame's start.
    let mut data = raw_frame(&[b"abc"]);
    data.extend([0x28, 0xb5, 0x2f, 0xfd, 0x08]);
    assert_eq!(failure(&data), ("reserved bit set in the frame header", 12));
}
