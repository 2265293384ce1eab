//! The ingest's summary: what `ingest` answers, per input stream and per SQL table.

use super::{FieldName, MergeReply};
use serde::Serialize;
use std::collections::BTreeMap;

/// `ingest`: the summary the CLI prints and stores.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct IngestReply {
    /// A dry run: nothing was published.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dry_run: bool,
    /// null when no record was ingested (nothing published), and for a dry run.
    pub segment_id: Option<String>,
    pub well: String,
    pub records: u64,
    pub bad_lines: u64,
    /// The bad-line report, when there were bad lines.
    pub report_path: Option<String>,
    /// Fields that had at least one value: the data well's exposed data types.
    pub fields: Vec<FieldName>,
    pub parts: u64,
    pub bytes_read: u64,
    pub elapsed_ms: u64,
    /// Where the time went (not for a dry run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<IngestTiming>,
    /// One entry per input stream: a file, or an archive member (`path` is `archive!member`).
    pub files: Vec<FileSummary>,
    /// The automatic merge this ingest triggered (null: none); a failed merge leaves the
    /// ingest published.
    pub merge: Option<AutoMerge>,
}

/// CPU of the reading (decoding, parsing) and indexing threads and of the part flushes;
/// wall-clock marks from the start.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct IngestTiming {
    pub reader_cpu_ms: u64,
    pub indexer_cpu_ms: u64,
    pub flush_cpu_ms: u64,
    pub last_flush_wait_ms: u64,
    pub indexed_ms: u64,
    pub durable_ms: u64,
    pub published_ms: u64,
}

/// An ingest's automatic merge: done, or failed.
#[derive(Serialize, Debug)]
#[serde(untagged)]
pub enum AutoMerge {
    Done(MergeReply),
    Failed(MergeFailure),
}

#[derive(Serialize, Debug)]
pub struct MergeFailure {
    pub error: String,
}

/// One input stream of an ingest.
#[derive(Serialize, Debug, Default)]
#[serde(rename_all = "camelCase")]
pub struct FileSummary {
    /// A file, or an archive member (`archive!member`).
    pub path: String,
    /// jsonl, json-array, csv, combo, sql, empty, or skipped (what was left out: `reason`
    /// says why).
    pub format: String,
    pub gzip: bool,
    /// gzip, xz, bzip2 or zstd when decoded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compression: Option<String>,
    /// zip or tar for an archive member.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub records: u64,
    /// Records from combolist lines that began with a URL (`URL:login:password`, the
    /// stealer-log form); the server marks a well made mostly of them as a stealer log.
    pub stealer_lines: u64,
    pub bad_lines: u64,
    /// The first bad lines (all of them are in the report).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bad_line_numbers: Option<Vec<BadLine>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A CSV file's delimiter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delimiter: Option<String>,
    /// The mapping of a CSV file's columns, or of the keys of a JSON file's first records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<ColumnMapping>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmapped: Option<Vec<String>>,
    /// A SQL dump's tables.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tables: Option<Vec<TableSummary>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_tables: Option<Vec<SkippedTable>>,
    /// Dry run: the first parsed records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<Vec<Sample>>,
}

/// A parsed record's fields with values.
pub type Sample = BTreeMap<FieldName, Vec<String>>;

#[derive(Serialize, Debug, Clone)]
pub struct BadLine {
    pub line: u64,
    pub reason: String,
}

/// A column of a CSV file or a SQL table (or a JSON key), and the field it maps to (null: none).
#[derive(Serialize, Debug)]
pub struct ColumnMapping {
    pub column: String,
    pub field: Option<FieldName>,
}

/// One table of a SQL dump, as the ingest saw it.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct TableSummary {
    pub name: String,
    pub rows: u64,
    pub records: u64,
    pub bad_lines: u64,
    /// Why its rows were not ingested (no mapped column, not chosen with `tables`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// The mapping; a skipped table lists only its column names.
    pub columns: TableColumns,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmapped: Option<Vec<String>>,
    /// Dry run: the first parsed records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<Vec<Sample>>,
}

#[derive(Serialize, Debug)]
#[serde(untagged)]
pub enum TableColumns {
    Mapped(Vec<ColumnMapping>),
    Names(Vec<String>),
}

#[derive(Serialize, Debug)]
pub struct SkippedTable {
    pub name: String,
    pub reason: String,
}
