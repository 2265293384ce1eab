//! Ingestion: read operator files (JSON lines, JSON arrays, CSV/TSV with a header,
//! combolists and stealer logs, SQL dumps through `sql`; plain, compressed or in
//! archives, see `archive`), turn lines and rows into records, write them into a new
//! segment built in a temporary
//! directory, then publish it (`publish`: one atomic manifest swap) and, past
//! `maxSegments` segments, merge (`merge`).
//!
//! Memory is bounded whatever the input: lines longer than `max_line_bytes` are skipped
//! without being buffered, compressed input has size and expansion-ratio caps, and the
//! segment writer flushes a part every `part_docs` records.

mod archive;
mod indexer;
mod json_array;
mod lines;
mod report;
mod sql_dump;

use indexer::{Batch, Indexer, BATCH};
use report::Report;

use crate::contract::{AutoMerge, BadLine, ColumnMapping, FieldName, FileSummary, IngestArgs, IngestReply, IngestTiming, MergeFailure, Sample};
use crate::error::{EngineError, Result};
use crate::fields::{field_index, FIELDS, FIELD_COUNT};
use crate::manifest::{IndexLock, Manifest, ManifestEntry};
use crate::publish::{self, make_durable, make_visible, new_segment_id, recover};
use crate::dedup::record_key;
use crate::segment::{PartWriter, SegmentMeta, FORMAT_VERSION};
use crate::source::{detect_delimiter, finish_record, norm_col, push_json_str, split_delimited, Format, LineContext, SourceRecord};
use crate::sql::{Event, SqlReader};
use serde_json::Value;
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

pub struct IngestOptions {
    pub index_dir: PathBuf,
    pub well: String,
    pub format: Format,
    pub files: Vec<PathBuf>,
    pub map: HashMap<String, usize>,
    pub report_path: Option<PathBuf>,
    pub part_docs: u32,
    pub max_line_bytes: usize,
    pub max_compressed_bytes: u64,
    pub max_ratio: u64,
    pub max_expanded_bytes: u64,
    /// Opaque catalogue metadata (date, description, sensitive flag) kept in segment.json,
    /// so a catalogue update lost to a crash can be replayed from the index.
    pub catalogue: Value,
    /// After publishing, merge when the index has more segments than this (0: never).
    pub max_segments: usize,
    /// Parse and summarise (formats, mappings, sample records) without publishing.
    pub dry_run: bool,
    /// SQL dumps: only these tables (lower case); empty: every table that maps a field.
    pub tables: Vec<String>,
}

impl IngestOptions {
    pub fn from_args(a: IngestArgs) -> Result<IngestOptions> {
        if a.well.trim().is_empty() {
            return Err(EngineError::InvalidArgument("well is required".into()));
        }
        let format = Format::parse(&a.format).ok_or_else(|| EngineError::InvalidArgument(format!("unknown format {:?} (auto, jsonl, json-array, csv, combo, sql)", a.format)))?;
        if a.files.is_empty() {
            return Err(EngineError::InvalidArgument("no input files".into()));
        }
        let mut map = HashMap::new();
        for (col, fname) in &a.map {
            let idx = field_index(fname).ok_or_else(|| EngineError::InvalidArgument(format!("--map {}={}: unknown field (fields: {})", col, fname, FIELDS.join(", "))))?;
            map.insert(norm_col(col), idx);
        }
        Ok(IngestOptions {
            index_dir: PathBuf::from(a.index_dir),
            well: a.well.trim().to_string(),
            format,
            files: a.files.into_iter().map(PathBuf::from).collect(),
            map,
            report_path: a.report_path.map(PathBuf::from),
            part_docs: a.part_records.clamp(1, u32::MAX as u64) as u32,
            max_line_bytes: a.max_line_bytes as usize,
            max_compressed_bytes: a.max_compressed_bytes,
            max_ratio: a.max_ratio,
            max_expanded_bytes: a.max_expanded_bytes,
            catalogue: a.catalogue,
            max_segments: a.max_segments as usize,
            dry_run: a.dry_run,
            tables: a.tables.iter().map(|t| t.trim().to_lowercase()).collect(),
        })
    }

    /// For tests (of this crate and of the searches above it): the options of an `IngestArgs`
    /// given as JSON.
    #[doc(hidden)]
    pub fn from_json(v: &Value) -> Result<IngestOptions> {
        Self::from_args(serde_json::from_value(v.clone())?)
    }
}

/// Progress counters, read by the caller while the ingest runs.
#[derive(Default)]
pub struct Progress {
    pub records: AtomicU64,
    pub bytes_read: AtomicU64,
    pub bytes_total: AtomicU64,
    pub bad_lines: AtomicU64,
    pub files_done: AtomicU64,
}

/// The reading half: decompresses, splits lines, parses them, reports bad ones, and
/// hands batches of records to the indexer through a bounded channel.
struct Ingest<'a> {
    opts: &'a IngestOptions,
    progress: &'a Progress,
    report: Report,
    tx: Option<std::sync::mpsc::SyncSender<Batch>>,
    /// Processed batches come back to be freed on this thread: freeing memory allocated
    /// by another thread is slow in glibc's malloc.
    back: Option<std::sync::mpsc::Receiver<Batch>>,
    batch: Batch,
    records: u64,
    bad: u64,
    files: Vec<FileSummary>,
    contexts: Vec<LineContext>,
    /// Dry run: up to `SAMPLES` parsed records of each context.
    samples: HashMap<u16, Vec<Sample>>,
    /// The current file's first bad lines (number and reason), for its summary.
    bad_lines: Vec<BadLine>,
    /// JSON keys of the current file's first records, with their field, for its summary.
    keys: std::collections::BTreeMap<String, Option<usize>>,
    keyed_records: u32,
}

/// JSON records whose keys are listed in a file's summary, and most keys listed.
const KEYED_RECORDS: u32 = 1000;
const MAX_KEYS: usize = 256;

/// Records shown per file or table by a dry run.
const SAMPLES: usize = 10;
/// Bad lines named (with their numbers) in each file's summary; the report has them all.
const BAD_IN_SUMMARY: usize = 20;

/// The mapping of a file's or a table's columns, for its summary: each column with its
/// field, and the columns without one.
fn column_summary(c: &LineContext) -> (Vec<ColumnMapping>, Vec<String>) {
    let cols = c.header.iter().zip(c.columns()).map(|(h, f)| ColumnMapping { column: h.clone(), field: f.map(|f| FieldName::ALL[f]) }).collect();
    let unmapped = c.header.iter().zip(c.columns()).filter(|(_, f)| f.is_none()).map(|(h, _)| h.clone()).collect();
    (cols, unmapped)
}

/// An input left out, with why.
fn skipped_input(path: &Path, reason: &str, bad_lines: u64) -> FileSummary {
    FileSummary { path: path.display().to_string(), format: "skipped".into(), bad_lines, reason: Some(reason.to_string()), ..Default::default() }
}

impl<'a> Ingest<'a> {
    /// A reader with nothing read yet; `left_out` (inputs a directory walk skipped) are listed
    /// in the summary first. A dry run has no indexer (`tx`, `back`: None).
    fn new(
        opts: &'a IngestOptions,
        progress: &'a Progress,
        report: Report,
        tx: Option<std::sync::mpsc::SyncSender<Batch>>,
        back: Option<std::sync::mpsc::Receiver<Batch>>,
        left_out: &[(PathBuf, &'static str)],
    ) -> Ingest<'a> {
        let files = left_out.iter().map(|(p, reason)| skipped_input(p, reason, 0)).collect();
        Ingest {
            opts,
            progress,
            report,
            tx,
            back,
            batch: Batch::default(),
            records: 0,
            bad: 0,
            files,
            contexts: Vec::new(),
            samples: HashMap::new(),
            bad_lines: Vec::new(),
            keys: Default::default(),
            keyed_records: 0,
        }
    }

    fn bad(&mut self, file: &Path, line: u64, reason: &str, content: &[u8]) -> Result<()> {
        if self.bad_lines.len() < BAD_IN_SUMMARY {
            self.bad_lines.push(BadLine { line, reason: reason.to_string() });
        }
        self.bad += 1;
        self.progress.bad_lines.fetch_add(1, Ordering::Relaxed);
        self.report.add(file, line, reason, content)
    }

    fn add(&mut self, rec: SourceRecord, ctx: u16, line: &str) -> Result<()> {
        if self.opts.dry_run {
            self.records += 1;
            self.progress.records.fetch_add(1, Ordering::Relaxed);
            let s = self.samples.entry(ctx).or_default();
            if s.len() < SAMPLES {
                let fields: Sample = rec.fields.iter().enumerate().filter(|(_, v)| !v.is_empty()).map(|(f, v)| (FieldName::ALL[f], v.clone())).collect();
                s.push(fields);
            }
            return Ok(());
        }
        // Normalising here balances the two threads (the indexer is the busier one).
        let (norm, key) = record_key(&rec);
        self.batch.push(&norm, key, ctx, line);
        self.records += 1;
        self.progress.records.fetch_add(1, Ordering::Relaxed);
        if self.batch.len() >= BATCH {
            self.send()?;
        }
        Ok(())
    }

    fn send(&mut self) -> Result<()> {
        if self.batch.len() == 0 {
            return Ok(());
        }
        // Reuse a batch the indexer is done with, when there is one.
        let spare = match &self.back {
            Some(back) => back.try_recv().ok(),
            None => None,
        };
        let mut next = spare.unwrap_or_default();
        next.clear();
        let b = std::mem::replace(&mut self.batch, next);
        match &self.tx {
            Some(tx) => tx.send(b).map_err(|_| EngineError::Internal("the indexer stopped".into())),
            None => Err(EngineError::Internal("no indexer".into())),
        }
    }

    fn map_key(&self, k: &str) -> Option<usize> {
        self.opts.map.get(&norm_col(k)).copied().or_else(|| crate::source::alias(k))
    }

    fn context(&mut self, c: LineContext) -> Result<u16> {
        if self.contexts.len() >= u16::MAX as usize {
            return Err(EngineError::Input("too many input files in one ingest (65,535 at most)".into()));
        }
        self.contexts.push(c);
        Ok((self.contexts.len() - 1) as u16)
    }

    /// Parses one decompressed input stream (a file, or later one member of an archive)
    /// and records its summary line. `counter` counts the on-disk bytes consumed, for
    /// progress.
    fn stream(&mut self, path: &Path, reader: Box<dyn Read>, gz: bool, counter: &Arc<AtomicU64>, base_read: u64) -> Result<()> {
        self.bad_lines.clear();
        self.keys.clear();
        self.keyed_records = 0;
        let mut br = BufReader::with_capacity(256 << 10, reader);
        // The shape of the input, from its first bytes (an error shows again below).
        let head = br.fill_buf().map(|b| b.to_vec()).unwrap_or_default();
        let name = path.to_string_lossy().to_lowercase();
        let format = match self.opts.format {
            Format::Auto if name.ends_with(".sql") || name.ends_with(".sql.gz") || crate::sql::looks_like_sql(&head) => Format::Sql,
            Format::Auto if head.strip_prefix(&[0xef, 0xbb, 0xbf]).unwrap_or(&head).iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') => Format::JsonArray,
            f => f,
        };
        match format {
            Format::Sql => self.stream_sql(path, br, gz, counter, base_read),
            Format::JsonArray => self.stream_json_array(path, br, gz, counter, base_read),
            f => self.stream_lines(path, br, f, gz, counter, base_read),
        }
    }


    /// Notes the keys of one of a JSON file's first records (for the summary's mapping).
    fn note_keys(&mut self, ctx: u16, line: &str) {
        if self.keyed_records >= KEYED_RECORDS {
            return;
        }
        self.keyed_records += 1;
        if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(line) {
            for k in o.keys() {
                if self.keys.len() < MAX_KEYS && !self.keys.contains_key(k) {
                    let f = self.contexts[ctx as usize].key(k);
                    self.keys.insert(k.clone(), f);
                }
            }
        }
    }

    /// Records a file's summary (with its first bad lines) and its progress.
    fn finish_file(&mut self, mut info: FileSummary, error: Option<String>, counter: &Arc<AtomicU64>, base_read: u64) {
        if !self.keys.is_empty() {
            let keys = std::mem::take(&mut self.keys);
            info.columns = Some(keys.iter().map(|(k, f)| ColumnMapping { column: k.clone(), field: f.map(|f| FieldName::ALL[f]) }).collect());
            info.unmapped = Some(keys.into_iter().filter(|(_, f)| f.is_none()).map(|(k, _)| k).collect());
        }
        let consumed = counter.load(Ordering::Relaxed);
        self.progress.bytes_read.store(base_read + consumed, Ordering::Relaxed);
        self.progress.files_done.fetch_add(1, Ordering::Relaxed);
        if !self.bad_lines.is_empty() {
            info.bad_line_numbers = Some(std::mem::take(&mut self.bad_lines));
        }
        info.error = error;
        self.files.push(info);
    }

}

/// A dry run: every file parsed as an ingest would, nothing indexed or published, the index
/// untouched (the bad-line report only with an explicit `reportPath`). The summary has, per
/// file and table, the detected format, the column mapping and the first parsed records.
fn dry_run(opts: &IngestOptions, inputs: &[PathBuf], left_out: &[(PathBuf, &'static str)], progress: &Progress, t0: Instant) -> Result<IngestReply> {
    let report_path = opts.report_path.clone();
    let report = Report { enabled: report_path.is_some(), path: report_path.clone().unwrap_or_default(), file: None, written: 0 };
    let mut ing = Ingest::new(opts, progress, report, None, None, left_out);
    for f in inputs {
        ing.file(f)?;
    }
    if let Some(mut w) = ing.report.file.take() {
        w.flush()?;
    }
    Ok(IngestReply {
        dry_run: true,
        segment_id: None,
        well: opts.well.clone(),
        records: ing.records,
        bad_lines: ing.bad,
        report_path: report_path.filter(|_| ing.bad > 0).map(|p| p.display().to_string()),
        fields: vec![],
        parts: 0,
        bytes_read: progress.bytes_read.load(Ordering::Relaxed),
        elapsed_ms: t0.elapsed().as_millis() as u64,
        timing: None,
        files: ing.files,
        merge: None,
    })
}

/// Run one ingest; returns the summary the CLI prints and stores.
pub fn run(opts: &IngestOptions, progress: &Progress) -> Result<IngestReply> {
    let t0 = Instant::now();
    // Directories stand for the files below them (see archive::expand_inputs).
    let (inputs, left_out) = archive::expand_inputs(&opts.files)?;
    let total: u64 = inputs.iter().map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0)).sum();
    progress.bytes_total.store(total, Ordering::Relaxed);
    if opts.dry_run {
        return dry_run(opts, &inputs, &left_out, progress, t0);
    }
    std::fs::create_dir_all(&opts.index_dir)?;
    {
        let _lock = IndexLock::acquire(&opts.index_dir)?;
        let m = Manifest::read(&opts.index_dir)?;
        recover(&opts.index_dir, &m)?;
    }
    let id = new_segment_id();
    let tmp = publish::temp_dir(&opts.index_dir, &id);
    std::fs::create_dir_all(&tmp)?;
    let report_path = opts.report_path.clone().unwrap_or_else(|| opts.index_dir.join("reports").join(format!("{}-bad-lines.txt", id)));
    // Phase figures for the summary (`timing`): CPU per thread, wall of the steps after reading.
    let reader_cpu0 = crate::cpu_clock::thread();
    let (flush_cpu_us, indexer_cpu_us, tail_us) = (Arc::new(AtomicU64::new(0)), AtomicU64::new(0), AtomicU64::new(0));
    let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(8);
    let (back_tx, back_rx) = std::sync::mpsc::sync_channel::<Batch>(16);
    let report = Report { enabled: true, path: report_path.clone(), file: None, written: 0 };
    let mut ing = Ingest::new(opts, progress, report, Some(tx), Some(back_rx), &left_out);
    let mut reader_cpu_us = 0u64;
    let (read_res, index_res) = std::thread::scope(|s| {
        let indexer = s.spawn(|| -> Result<Indexer> {
            let mut ix = Indexer { tmp: tmp.clone(), part_docs: opts.part_docs, writer: None, parts: 0, present: [false; FIELD_COUNT], flushing: None, flush_cpu_us: Arc::clone(&flush_cpu_us) };
            for batch in rx {
                let mut v0 = 0usize;
                for &(vend, key, ctx, ls, le) in &batch.recs {
                    let vals = &batch.vals[v0..vend as usize];
                    v0 = vend as usize;
                    // Lines were valid UTF-8 (`String`s) when pushed.
                    let line = unsafe { std::str::from_utf8_unchecked(&batch.bytes[ls as usize..le as usize]) };
                    ix.add_flat(&batch.bytes, vals, key, ctx, line)?;
                }
                // Full return queue: free it here rather than wait.
                let _ = back_tx.try_send(batch);
            }
            ix.finish_part()?;
            indexer_cpu_us.store(crate::cpu_clock::thread().as_micros() as u64, Ordering::Relaxed);
            let tail = Instant::now();
            ix.wait_flush()?;
            tail_us.store(tail.elapsed().as_micros() as u64, Ordering::Relaxed);
            Ok(ix)
        });
        let r = (|| -> Result<()> {
            for f in &inputs {
                ing.file(f)?;
            }
            ing.send()
        })();
        drop(ing.tx.take());
        reader_cpu_us = (crate::cpu_clock::thread() - reader_cpu0).as_micros() as u64;
        let ix = indexer.join().unwrap_or_else(|p| Err(EngineError::Internal(format!("indexer panicked: {:?}", p.downcast_ref::<&str>()))));
        (r, ix)
    });
    if let Some(mut w) = ing.report.file.take() {
        w.flush()?;
    }
    // An indexer error explains a reader's "the indexer stopped".
    let res = match (read_res, index_res) {
        (_, Err(e)) => Err(e),
        (Err(e), _) => Err(e),
        (Ok(()), Ok(ix)) => Ok(ix),
    };
    let ix = match res {
        Ok(ix) => ix,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    let fields: Vec<&str> = FIELDS.iter().enumerate().filter(|(i, _)| ix.present[*i]).map(|(_, f)| *f).collect();
    let mut published = false;
    let indexed_ms = t0.elapsed().as_millis() as u64;
    let mut durable_ms = 0u64;
    if ing.records > 0 {
        let created = publish::utc_now();
        let meta = SegmentMeta {
            format_version: FORMAT_VERSION,
            id: id.clone(),
            well: opts.well.clone(),
            parts: ix.parts,
            records: ing.records,
            fields: fields.iter().map(|f| f.to_string()).collect(),
            created: created.clone(),
            bad_lines: ing.bad,
            catalogue: opts.catalogue.clone(),
            contexts: std::mem::take(&mut ing.contexts),
            sources: Vec::new(),
            aliases: Vec::new(),
        };
        let t = Instant::now();
        make_durable(&tmp, &meta)?;
        durable_ms = t.elapsed().as_millis() as u64;
        let _lock = IndexLock::acquire(&opts.index_dir)?;
        let m = Manifest::read(&opts.index_dir)?;
        let end = m.segments.len();
        make_visible(&opts.index_dir, &m, &tmp, ix.parts, false, end..end, ManifestEntry { id: id.clone(), well: opts.well.clone(), records: ing.records, created }, true)?;
        published = true;
    } else {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    // Keep the number of segments small: merge past the threshold. The ingest is already
    // published, so a failed merge is reported, not raised.
    let published_ms = t0.elapsed().as_millis() as u64;
    let mut merge = None;
    if published && opts.max_segments > 0 {
        let mo = crate::merge::MergeOptions { all: false, max_segments: opts.max_segments, part_docs: crate::merge::DEFAULT_MERGE_PART_DOCS };
        merge = match crate::merge::run(&opts.index_dir, &mo) {
            Ok(r) if r.segment_id.is_none() => None,
            Ok(r) => Some(AutoMerge::Done(r)),
            Err(e) => Some(AutoMerge::Failed(MergeFailure { error: e.to_string() })),
        };
    }
    Ok(IngestReply {
        dry_run: false,
        segment_id: Some(id).filter(|_| published),
        well: opts.well.clone(),
        records: ing.records,
        bad_lines: ing.bad,
        report_path: Some(report_path.display().to_string()).filter(|_| ing.bad > 0),
        fields: FieldName::ALL.iter().zip(ix.present).filter(|(_, present)| *present).map(|(f, _)| *f).collect(),
        parts: ix.parts as u64,
        bytes_read: progress.bytes_read.load(Ordering::Relaxed),
        elapsed_ms: t0.elapsed().as_millis() as u64,
        timing: Some(IngestTiming {
            reader_cpu_ms: reader_cpu_us / 1000,
            indexer_cpu_ms: indexer_cpu_us.load(Ordering::Relaxed) / 1000,
            flush_cpu_ms: flush_cpu_us.load(Ordering::Relaxed) / 1000,
            last_flush_wait_ms: tail_us.load(Ordering::Relaxed) / 1000,
            indexed_ms,
            durable_ms,
            published_ms,
        }),
        files: ing.files,
        merge,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A merge's `first.dat` (its sources' bits side by side) is the one publishing would
    /// compute against the segments before it: ingests of 3 records a part, sharing records
    /// within and across ingests, then merges of the last four and of everything.
    #[test]
    fn merged_first_bits_equal_recomputed_ones() {
        let dir = crate::test_dir("first-bits-test");
        let index = dir.join("index");
        for k in 0..5 {
            let n = if k == 0 { 200 } else { 20 };
            let lines: Vec<String> = (0..n).map(|i| format!(r#"{{"email":"u{}@x.com","password":"p{}"}}"#, (i * 7 + k * 5) % 23, k % 2)).collect();
            std::fs::write(dir.join("in.jsonl"), lines.join("\n")).unwrap();
            let opts = crate::ingest::IngestOptions::from_json(&json!({
                "indexDir": index.to_str().unwrap(), "well": format!("W{}", k), "files": [dir.join("in.jsonl").to_str().unwrap()], "partRecords": 3, "maxSegments": 0,
            }))
            .unwrap();
            crate::ingest::run(&opts, &Default::default()).unwrap();
        }
        let check = || {
            let m = Manifest::read(&index).unwrap();
            for (i, e) in m.segments.iter().enumerate() {
                let seg = crate::segment::segment_dir(&index, &e.id);
                let copy = dir.join("copy");
                let _ = std::fs::remove_dir_all(&copy);
                // The segment's whole keys (format 10: the first records' computed again from
                // their lines), as a new segment has them before it is published.
                let opened = crate::segment::Segment::open(&seg).unwrap();
                for (p, part) in opened.parts.iter().enumerate() {
                    std::fs::create_dir_all(copy.join(format!("part-{}", p))).unwrap();
                    let whole: Vec<u8> = part.dedup_keys().unwrap().iter().flat_map(|k| k.to_le_bytes()).collect();
                    std::fs::write(copy.join(format!("part-{}/dedup.dat", p)), whole).unwrap();
                }
                let parts = opened.parts.len() as u32;
                crate::publish::mark_first_occurrences(&index, &m.segments[..i], &copy, parts).unwrap();
                for p in 0..parts {
                    for name in ["first.dat", "dedup.top", "dedup.rest"] {
                        let f = format!("part-{}/{}", p, name);
                        assert_eq!(std::fs::read(seg.join(&f)).unwrap(), std::fs::read(copy.join(&f)).unwrap(), "segment {} {}", i, f);
                    }
                    assert!(!copy.join(format!("part-{}/dedup.dat", p)).exists());
                }
            }
        };
        let some = crate::merge::MergeOptions { all: false, max_segments: 3, part_docs: 10 };
        assert_eq!(crate::merge::run(&index, &some).unwrap().merged.len(), 4);
        check();
        assert!(crate::merge::run(&index, &crate::merge::MergeOptions { all: true, ..some }).unwrap().segment_id.is_some());
        check();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
