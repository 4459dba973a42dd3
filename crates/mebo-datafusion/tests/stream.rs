//! Streams of blobs as files (`.mbs`: `MBS1`, then a length and a blob a
//! frame): `COPY … TO 'x.mbs'` writes one, and a table reads one by its name
//! or a glob. Every stream written is read back frame by frame with the
//! core's own readers and compared point for point (floats by bits).

mod common;

use std::path::{Path, PathBuf};

use arrow::array::{Array, AsArray, RecordBatch};
use arrow::datatypes::{Float64Type, Int64Type, UInt64Type};
use common::{copy_a_million_points, files, fixture, numeric_points, per_metric, same_points, NAMES};
use datafusion::execution::memory_pool::MemoryPool;
use datafusion::prelude::{SessionConfig, SessionContext};
use mebo::numeric::NumericBlob;
use mebo::stream::{write_stream, Frames};
use mebo_datafusion::{query, scan_counter, FileError, MeboContextExt, MeboOptions};

async fn context() -> SessionContext {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    ctx.enable_mebo().unwrap();
    ctx.register_mebo("m", fixture().numeric_dir.to_str().unwrap()).await.unwrap();
    ctx
}

/// An empty directory of this test's own.
fn out_dir(name: &str) -> PathBuf {
    common::write_dir(&format!("stream-{name}"))
}

/// The blobs of a stream file, each its frame's bytes.
fn frames(path: &Path) -> Vec<Vec<u8>> {
    let bytes = std::fs::read(path).unwrap();
    Frames::new(&bytes).unwrap().map(|blob| blob.unwrap().to_vec()).collect()
}

fn i64s(batches: &[RecordBatch], column: usize) -> Vec<i64> {
    batches.iter().flat_map(|b| b.column(column).as_primitive::<Int64Type>().values().to_vec()).collect()
}

#[tokio::test]
async fn copy_to_an_mbs_file_writes_a_stream_of_blobs_read_back_as_a_table() {
    let ctx = context().await;
    let f = fixture();
    let dir = out_dir("copy");
    let stream = dir.join("all.mbs");
    let sql = format!("COPY (SELECT * FROM m) TO '{}' STORED AS MEBO OPTIONS ('max_points_per_blob' '500')", stream.display());
    let r = query(&ctx, &sql).await.unwrap();
    assert_eq!(r.batches[0].column(0).as_primitive::<UInt64Type>().value(0), f.numeric.len() as u64);
    // One file: the stream, of full blobs but the last.
    assert_eq!(files(&dir).len(), 1);
    let blobs = frames(&stream);
    assert_eq!(blobs.len(), f.numeric.len().div_ceil(500));
    for blob in &blobs[..blobs.len() - 1] {
        assert_eq!(NumericBlob::open(blob).unwrap().total_points(), 500);
    }
    same_points(numeric_points(&blobs), numeric_points(files(&f.numeric_dir).values()));

    // The stream named as a table gives the answers the blobs' table gives.
    ctx.register_mebo("s", stream.to_str().unwrap()).await.unwrap();
    let per = |table: &str| {
        format!("SELECT metric_id, count(*) AS n, sum(value) AS s, min(ts) AS lo, max(ts) AS hi FROM {table} GROUP BY 1 ORDER BY 1")
    };
    let (a, b) = (query(&ctx, &per("m")).await.unwrap(), query(&ctx, &per("s")).await.unwrap());
    assert_eq!(a.batches.iter().map(RecordBatch::num_rows).sum::<usize>(), NAMES.len());
    let pretty = |batches: &[RecordBatch]| arrow::util::pretty::pretty_format_batches(batches).unwrap().to_string();
    assert_eq!(pretty(&a.batches), pretty(&b.batches));
    let expected = per_metric(&f.numeric);
    let sums: Vec<f64> = b.batches.iter().flat_map(|b| b.column(2).as_primitive::<Float64Type>().values().to_vec()).collect();
    assert_eq!(sums, expected.iter().map(|m| m.4).collect::<Vec<_>>());

    // A filter on a metric reads each frame's head, and the blobs that
    // hold the metric alone, decoding that metric.
    let cpu = mebo::metric_id(NAMES[2]);
    let one = query(&ctx, &format!("SELECT count(*), sum(value) FROM s WHERE metric_id = {cpu}")).await.unwrap();
    assert_eq!(i64s(&one.batches, 0), vec![f.numeric.iter().filter(|p| p.id == cpu).count() as i64]);
    let holding = blobs.iter().filter(|b| NumericBlob::open(b).unwrap().position(cpu).is_some()).count();
    assert!(holding < blobs.len());
    assert_eq!(scan_counter(&one.plan, "blobs_opened"), holding);
    assert_eq!(scan_counter(&one.plan, "files_pruned"), blobs.len() - holding);
    assert_eq!(scan_counter(&one.plan, "metrics_decoded"), holding);
}

#[tokio::test]
async fn rows_with_and_without_names_go_to_frames_of_their_own() {
    let ctx = context().await;
    let f = fixture();
    let dir = out_dir("named");
    let stream = dir.join("named.mbs");
    let name = NAMES[0];
    let sql = format!(
        "COPY (SELECT metric_id, CASE WHEN metric_id = mebo_id('{name}') THEN '{name}' END AS metric, ts, value, tag FROM m) \
         TO '{}' STORED AS MEBO",
        stream.display()
    );
    query(&ctx, &sql).await.unwrap();
    // Where one blob file cannot hold both, a stream holds a blob of each.
    let blobs = frames(&stream);
    let named: Vec<bool> = blobs.iter().map(|b| NumericBlob::open(b).unwrap().metric_ids() == [mebo::metric_id(name)]).collect();
    assert_eq!(named, [true, false]);
    assert_eq!(NumericBlob::open(&blobs[0]).unwrap().metric_by_name(name).unwrap().id(), mebo::metric_id(name));
    same_points(numeric_points(&blobs), numeric_points(files(&f.numeric_dir).values()));
}

#[tokio::test]
async fn a_glob_of_streams_is_one_table_and_a_bad_frame_names_its_file_and_frame() {
    let f = fixture();
    let dir = out_dir("glob");
    // The fixture's blobs as three streams by hand, beside a blob file the glob leaves out.
    let blobs: Vec<Vec<u8>> = files(&f.numeric_dir).into_values().collect();
    for (k, part) in blobs.chunks(blobs.len().div_ceil(3)).enumerate() {
        std::fs::write(dir.join(format!("part{k}.mbs")), write_stream(part.iter().map(Vec::as_slice)).unwrap()).unwrap();
    }
    std::fs::write(dir.join("not-in-the-glob.mebo"), &blobs[0]).unwrap();
    let ctx = context().await;
    let glob = format!("{}/*.mbs", dir.display());
    ctx.register_mebo("s", &glob).await.unwrap();
    let r = query(&ctx, "SELECT count(*) FROM s").await.unwrap();
    assert_eq!(i64s(&r.batches, 0), vec![f.numeric.len() as i64]);
    // A stream's rows are not in its statistics: the scan counts them from
    // each frame's head, opening no blob.
    assert_eq!(scan_counter(&r.plan, "blobs_opened"), 0);
    assert_eq!(scan_counter(&r.plan, "rows_from_index"), f.numeric.len());

    // A stream cut inside its second frame: the file and the frame named.
    let part1 = std::fs::read(dir.join("part1.mbs")).unwrap();
    let second_frame_ends = 4 + Frames::new(&part1).unwrap().take(2).map(|b| 4 + b.unwrap().len()).sum::<usize>();
    std::fs::write(dir.join("part1.mbs"), &part1[..second_frame_ends - 3]).unwrap();
    let ctx = context().await;
    ctx.register_mebo("s", &glob).await.unwrap();
    let e = query(&ctx, "SELECT sum(value) FROM s").await.err().expect("a bad stream fails the query");
    let found = FileError::find(&e).unwrap_or_else(|| panic!("{e}"));
    assert_eq!((found.path.ends_with("part1.mbs#1"), found.code), (true, "TRUNCATED"), "{found}");

    // A frame whose blob is spoiled: the blob's own error, at its frame.
    let foreign = [&b"PAR1"[..], &[7u8; 60]].concat(); // a header's length, a foreign magic
    let mut spoiled = write_stream([blobs[0].as_slice(), blobs[1].as_slice(), &foreign]).unwrap();
    std::fs::write(dir.join("part1.mbs"), &spoiled).unwrap();
    let ctx = context().await;
    ctx.register_mebo("s", &glob).await.unwrap();
    let e = query(&ctx, "SELECT sum(value) FROM s").await.err().expect("a bad stream fails the query");
    let found = FileError::find(&e).unwrap_or_else(|| panic!("{e}"));
    assert_eq!((found.path.ends_with("part1.mbs#2"), found.code), (true, "BAD_MAGIC"), "{found}");

    // skip_bad_files skips the spoiled frame and reads the others (a frame
    // past it: `a_stream_is_read_in_byte_ranges_each_frame_once`).
    let ctx = context().await;
    ctx.register_mebo_with("s", &glob, MeboOptions { skip_bad_files: true, ..Default::default() }).await.unwrap();
    let r = query(&ctx, "SELECT count(*) FROM s").await.unwrap();
    let in_part1 = points(blobs.chunks(blobs.len().div_ceil(3)).nth(1).unwrap());
    assert_eq!(i64s(&r.batches, 0), vec![(f.numeric.len() - in_part1 + points(&blobs[..2])) as i64]);
    assert_eq!(scan_counter(&r.plan, "files_skipped"), 1);
    assert_eq!(scan_counter(&r.plan, "rows_from_index"), f.numeric.len() - in_part1 + points(&blobs[..2]));
    let r = query(&ctx, "SELECT count(value) FROM s").await.unwrap();
    assert_eq!(i64s(&r.batches, 0), vec![(f.numeric.len() - in_part1 + points(&blobs[..2])) as i64]);
    assert_eq!(scan_counter(&r.plan, "blobs_opened"), blobs.len() - blobs.len().div_ceil(3) + 2);

    // An empty stream is a file of no rows; a stream's first blob tells the kind.
    spoiled.truncate(4);
    std::fs::write(dir.join("part1.mbs"), &spoiled).unwrap();
    let ctx = context().await;
    ctx.register_mebo("s", &glob).await.unwrap();
    let r = query(&ctx, "SELECT count(*) FROM s").await.unwrap();
    assert_eq!(i64s(&r.batches, 0), vec![(f.numeric.len() - in_part1) as i64]);
}

/// Every row of table `s` as the core's points are: id, ts, value's bits, tag.
async fn table_points(ctx: &SessionContext) -> Vec<(u64, i64, u64, String)> {
    let r = query(ctx, "SELECT metric_id, ts, value, tag FROM s").await.unwrap();
    let mut points = Vec::new();
    for b in &r.batches {
        let ts = b.column(1).as_primitive::<arrow::datatypes::TimestampMicrosecondType>();
        let tags = arrow::compute::cast(b.column(3), &arrow::datatypes::DataType::Utf8).unwrap();
        let tags = tags.as_string::<i32>();
        for i in 0..b.num_rows() {
            let tag = if tags.is_null(i) { String::new() } else { tags.value(i).to_owned() };
            let value = b.column(2).as_primitive::<Float64Type>().value(i).to_bits();
            points.push((b.column(0).as_primitive::<UInt64Type>().value(i), ts.value(i), value, tag));
        }
    }
    points.sort();
    points
}

/// A session of `partitions` that cuts any stream into byte ranges.
async fn ranged_context(partitions: usize, glob: &str, options: MeboOptions) -> SessionContext {
    let mut config = SessionConfig::new().with_target_partitions(partitions);
    config.options_mut().optimizer.repartition_file_min_size = 0;
    let ctx = SessionContext::new_with_config(config);
    ctx.enable_mebo().unwrap();
    ctx.register_mebo_with("s", glob, options).await.unwrap();
    ctx
}

/// The points of `blobs`, from their headers.
fn points(blobs: &[Vec<u8>]) -> usize {
    blobs.iter().map(|b| NumericBlob::open(b).unwrap().total_points()).sum()
}

/// The stream at `path`, bad at `frame` (`code`), in 1, 3 and 16 ranges:
/// the error names that frame whether the stream is read as it arrives (a
/// sum) or from its heads (a count); with `skip_bad_files`, the points of
/// `kept` and one skip.
async fn a_bad_frame_in_every_range(path: &Path, frame: usize, code: &str, kept: &[Vec<u8>]) {
    let name = format!("{}#{frame}", path.file_name().unwrap().to_str().unwrap());
    for partitions in [1, 3, 16] {
        let ctx = ranged_context(partitions, path.to_str().unwrap(), MeboOptions::default()).await;
        for sql in ["SELECT sum(value) FROM s", "SELECT count(*) FROM s"] {
            let e = query(&ctx, sql).await.err().unwrap_or_else(|| panic!("{sql}: a bad frame fails the query"));
            let found = FileError::find(&e).unwrap_or_else(|| panic!("{e}"));
            assert!(found.path.ends_with(&name) && found.code == code, "{sql}, {partitions} partitions: {found}");
        }
        let skipping = MeboOptions { skip_bad_files: true, ..Default::default() };
        let ctx = ranged_context(partitions, path.to_str().unwrap(), skipping).await;
        same_points(table_points(&ctx).await, numeric_points(kept));
        let r = query(&ctx, "SELECT count(*), sum(value) FROM s").await.unwrap();
        assert_eq!((scan_counter(&r.plan, "blobs_opened"), scan_counter(&r.plan, "files_skipped")), (kept.len(), 1));
        let r = query(&ctx, "SELECT count(*) FROM s").await.unwrap();
        assert_eq!((i64s(&r.batches, 0), scan_counter(&r.plan, "files_skipped")), (vec![points(kept) as i64], 1));
    }
}

#[tokio::test]
async fn a_stream_is_read_in_byte_ranges_each_frame_once() {
    let f = fixture();
    let dir = out_dir("ranges");
    // The fixture's 300 blobs, a few KB each, many to a 64 KiB read of the
    // frames' lengths; and beside them a stream of 10 frames of 1.6 MB.
    let blobs: Vec<Vec<u8>> = files(&f.numeric_dir).into_values().collect();
    let small = dir.join("small.mbs");
    std::fs::write(&small, write_stream(blobs.iter().map(Vec::as_slice)).unwrap()).unwrap();
    let expected = numeric_points(&blobs);
    let ctx = SessionContext::new();
    ctx.enable_mebo().unwrap();
    let large = dir.join("large.mbs");
    query(&ctx, &copy_a_million_points("CAST(v AS DOUBLE)", large.to_str().unwrap())).await.unwrap();
    for (path, frames, rows) in [(&small, blobs.len(), points(&blobs)), (&large, 10, 1_000_000)] {
        let size = std::fs::metadata(path).unwrap().len() as usize;
        for partitions in [1, 2, 3, 7, 16] {
            let ctx = ranged_context(partitions, path.to_str().unwrap(), MeboOptions::default()).await;
            // Each frame is opened by the one range it starts in.
            let r = query(&ctx, "SELECT count(*), sum(value) FROM s").await.unwrap();
            assert_eq!(scan_counter(&r.plan, "blobs_opened"), frames, "{partitions} partitions");
            // Counted, each frame's head alone: the large stream's 10 in a
            // 64 KiB read each, not its 16 MB (and each later range reads
            // the lengths of the frames before it).
            let c = query(&ctx, "SELECT count(*) FROM s").await.unwrap();
            assert_eq!((i64s(&c.batches, 0), scan_counter(&c.plan, "rows_from_index")), (vec![rows as i64], rows));
            assert_eq!(scan_counter(&c.plan, "blobs_opened"), 0);
            let scanned = scan_counter(&c.plan, "bytes_scanned");
            assert!(path != &large || scanned <= (partitions + 1) * frames * 64 * 1024, "{partitions} partitions: {scanned} of {size}");
            let plan = datafusion::physical_plan::displayable(r.plan.as_ref()).indent(true).to_string();
            // One range a partition, whether or not a frame starts in it.
            assert!(partitions == 1 || plan.contains(&format!("file_groups={{{partitions} groups")), "{plan}");
            if path == &small {
                same_points(table_points(&ctx).await, expected.clone());
            } else {
                let r = query(&ctx, "SELECT count(*), sum(value), min(ts), max(ts) FROM s").await.unwrap();
                assert_eq!(i64s(&r.batches, 0), vec![1_000_000]);
                assert_eq!(r.batches[0].column(1).as_primitive::<Float64Type>().value(0), 500_000_500_000.0);
            }
        }
    }

    // A frame cut in a later range: named by its place in the whole stream,
    // once; skip_bad_files keeps every frame before it, from every range.
    let bytes = std::fs::read(&small).unwrap();
    let cut_frame = 250;
    let cut_at = 4 + blobs[..cut_frame].iter().map(|b| 4 + b.len()).sum::<usize>() + 10;
    std::fs::write(&small, &bytes[..cut_at]).unwrap();
    a_bad_frame_in_every_range(&small, cut_frame, "TRUNCATED", &blobs[..cut_frame]).await;

    // A whole frame whose blob is spoiled: the blob's error, named by its
    // frame; skip_bad_files skips that frame alone, whatever the ranges.
    let spoiled_frame = 100;
    let mut spoiled = blobs.clone();
    spoiled[spoiled_frame] = [&b"PAR1"[..], &vec![7u8; blobs[spoiled_frame].len() - 4]].concat();
    std::fs::write(&small, write_stream(spoiled.iter().map(Vec::as_slice)).unwrap()).unwrap();
    let mut kept = blobs.clone();
    kept.remove(spoiled_frame);
    a_bad_frame_in_every_range(&small, spoiled_frame, "BAD_MAGIC", &kept).await;
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_metric_filter_reads_its_columns_of_each_frame() {
    use mebo::Layout::{V2Shared, V1, V2};
    // Frames of megabytes (timestamps and values as they are, the same
    // sharing one timestamp column, values zstd-compressed) and a small
    // blob without the metric.
    let f = fixture();
    let wide = [("delta-none-gorilla-none", V1), ("delta-none-gorilla-none", V2Shared), ("raw-none-gorilla-zstd", V2)]
        .map(|(config, layout)| common::wide_blob(1000, config, layout));
    let small = files(&f.numeric_dir).into_values().next().unwrap();
    let blobs = [&wide[0], &small, &wide[1], &wide[2]];
    let dir = out_dir("wide");
    let path = dir.join("wide.mbs");
    std::fs::write(&path, write_stream(blobs.iter().map(|b| b.as_slice())).unwrap()).unwrap();
    let ctx = ranged_context(1, path.to_str().unwrap(), MeboOptions::default()).await;

    let r = query(&ctx, "SELECT ts, value FROM s WHERE metric_id = mebo_id('m0500')").await.unwrap();
    let mut got: Vec<(i64, u64)> = Vec::new();
    for b in &r.batches {
        let ts = b.column(0).as_primitive::<arrow::datatypes::TimestampMicrosecondType>();
        let values = b.column(1).as_primitive::<Float64Type>();
        got.extend((0..b.num_rows()).map(|i| (ts.value(i), values.value(i).to_bits())));
    }
    let mut expected: Vec<(i64, u64)> = Vec::new();
    for bytes in &wide {
        let blob = NumericBlob::open(bytes).unwrap();
        let metric = blob.metric_by_name("m0500").unwrap();
        expected.extend(metric.timestamps().unwrap().into_iter().zip(metric.values().unwrap().iter().map(|v| v.to_bits())));
    }
    got.sort_unstable();
    expected.sort_unstable();
    assert_eq!(got, expected);
    // The small blob pruned; of the wide ones the metric's columns read,
    // the zstd payload whole, the rest of each frame left.
    assert_eq!((scan_counter(&r.plan, "files_pruned"), scan_counter(&r.plan, "blobs_opened")), (1, 3));
    let zstd_values = NumericBlob::open(&wide[2]).unwrap().sections().values.len();
    let scanned = scan_counter(&r.plan, "bytes_scanned");
    assert!(scanned < zstd_values + 4 * 2 * 64 * 1024 + small.len(), "{scanned} bytes taken");
    let size = std::fs::metadata(&path).unwrap().len() as usize;
    assert!(scan_counter(&r.plan, "bytes_skipped") > size - scanned - small.len() - 64 * 1024, "of {size}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn a_copy_to_a_stream_that_fails_late_leaves_no_file() {
    let ctx = context().await;
    let dir = out_dir("late");
    let stream = dir.join("late.mbs");
    // The 900,000th row's value is NULL: 14 MB of blobs are written before
    // it, past the 10 MB the upload buffers before it goes multipart.
    let sql = copy_a_million_points("CASE WHEN v = 900000 THEN NULL ELSE CAST(v AS DOUBLE) END", &stream.display().to_string());
    let e = query(&ctx, &sql).await.err().expect("a NULL value fails the copy");
    assert!(e.to_string().contains("value holds 1 null(s)"), "{e}");
    assert!(files(&dir).is_empty(), "{:?}", files(&dir).keys());
}

#[tokio::test]
async fn a_stream_of_many_chunks_reads_back_every_point() {
    let ctx = context().await;
    let dir = out_dir("big");
    let stream = dir.join("big.mbs");
    // 16 MB: read locally in 1 MiB chunks, frames of 1.6 MB across them.
    let sql = copy_a_million_points("CAST(v AS DOUBLE)", &stream.display().to_string());
    query(&ctx, &sql).await.unwrap();
    assert!(std::fs::metadata(&stream).unwrap().len() > 16_000_000);
    ctx.register_mebo("big", stream.to_str().unwrap()).await.unwrap();
    let r = query(&ctx, "SELECT count(*), sum(value), min(ts), max(ts) FROM big").await.unwrap();
    let b = &r.batches[0];
    assert_eq!(b.column(0).as_primitive::<Int64Type>().value(0), 1_000_000);
    assert_eq!(b.column(1).as_primitive::<Float64Type>().value(0), 500_000_500_000.0);
    assert_eq!(scan_counter(&r.plan, "blobs_opened"), 10);
}

#[tokio::test]
async fn a_stream_is_held_a_frame_at_a_time_in_the_session_memory_pool() {
    let dir = out_dir("memory");
    let stream = dir.join("million.mbs");
    let ctx = SessionContext::new();
    ctx.enable_mebo().unwrap();
    query(&ctx, &copy_a_million_points("CAST(v AS DOUBLE)", stream.to_str().unwrap())).await.unwrap();
    let frame = frames(&stream).iter().map(Vec::len).max().unwrap();
    let size = std::fs::metadata(&stream).unwrap().len() as usize;
    let sql = "SELECT sum(value), max(ts) FROM s";

    // Room for a few frames: the answer; the scan held a frame at least,
    // and at most a frame in progress and a 1 MiB chunk with a frame's
    // copy and its batch; and all was given back. With two partitions the
    // stream is read in two byte ranges at once, each held so.
    for partitions in [1, 2] {
        let pool = common::PeakPool::new(16 << 20);
        let ctx = pool.context(partitions);
        ctx.register_mebo("s", stream.to_str().unwrap()).await.unwrap();
        let r = query(&ctx, sql).await.unwrap();
        let f64s = |b: &RecordBatch| b.column(0).as_primitive::<Float64Type>().value(0);
        assert_eq!(f64s(&r.batches[0]), 500_000_500_000.0);
        let peak = pool.peak();
        let most = partitions * (3 * frame + (1 << 20) + 1024);
        assert!(peak >= frame && peak <= most, "peak {peak}, a frame {frame}, the file {size}, {partitions} partitions");
        assert_eq!(pool.reserved(), 0);
    }

    // Less room than a frame: the error names the stream.
    let pool = common::PeakPool::new(frame / 2);
    let ctx = pool.context(2);
    ctx.register_mebo("s", stream.to_str().unwrap()).await.unwrap();
    let error = query(&ctx, sql).await.err().unwrap().to_string();
    assert!(error.contains("Resources exhausted") && error.contains("MeboScan[file:///") && error.contains("million.mbs]"), "{error}");
    assert_eq!(pool.left_reserved().await, 0);
    std::fs::remove_dir_all(&dir).unwrap();
}
