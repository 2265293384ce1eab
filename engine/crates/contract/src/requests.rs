//! Requests: what the wrapper sends, decoded as it is (checks and defaults of meaning are
//! `request.rs`'s, `ingest.rs`'s and `merge.rs`'s).

use super::{CountCache, RawRecordMode, SearchMode, WatchStrategy};
use serde::Deserialize;

/// `search` and `searchText`.
#[derive(Deserialize, Debug, Clone)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SearchArgs {
    pub query: String,
    pub mode: SearchMode,
    /// From 1.
    pub page: u64,
    /// At most 10,000, and page × size at most `maxWindow`.
    pub size: u64,
    /// Deepest hit the search may page to (page × size), 1 to 50,000.
    pub max_window: u64,
    /// Each distinct record once (dedup keys), or every hit.
    pub dedup: bool,
    pub time_budget_ms: u64,
    /// Field searched by bare terms: a field name, or `all` (or empty) for every field.
    #[serde(rename = "type")]
    pub default_field: String,
    pub count_cache: CountCache,
    pub raw_record: RawRecordMode,
    /// The searcher may not see values: one exact term only, anything more refused with
    /// `subscription_required` before it runs.
    pub one_term: bool,
}

/// `searchReply`: a search and the caller's balance after it (the reply's `balance`).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct SearchReplyArgs {
    pub balance: i64,
    pub search: SearchArgs,
}

/// `parse`: a query checked as a search would check it, without an index.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ParseArgs {
    pub query: String,
    pub mode: SearchMode,
    #[serde(rename = "type")]
    pub default_field: String,
    /// The paging is checked when both `page` and `size` are given.
    pub page: Option<u64>,
    pub size: Option<u64>,
    pub max_window: u64,
    pub one_term: bool,
}

/// `getMany` and `getManyText`: entries by id.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetManyArgs {
    pub ids: Vec<String>,
    pub raw_record: RawRecordMode,
}

/// `passwordCount`: a hash, 1 to 128 hex digits, any case.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PasswordCountArgs {
    pub hash: String,
}

/// `passwordRange`: a hash prefix, 5 to 64 hex digits, any case.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PasswordRangeArgs {
    pub prefix: String,
}

/// `wellCounts`: a query, read as a search reads it (same language, modes, default field and
/// time budget), answered per data well instead of with entries.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WellCountsArgs {
    pub query: String,
    pub mode: SearchMode,
    pub time_budget_ms: u64,
    /// Field searched by bare terms: a field name, or `all` (or empty) for every field.
    #[serde(rename = "type")]
    pub default_field: String,
    /// The searcher may not see values: one exact term only, as for `search`.
    pub one_term: bool,
    /// Also count the distinct values matching the query (`WellCountsReply::distinct`):
    /// the query must then be one term of one field (`email:*@example.com`).
    pub distinct: bool,
}

/// The first line of a `matchWatches` argument; the watches follow on the next line.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MatchWatchesHead {
    /// An ingest's segment id (after a merge, the merged segment holding its records).
    pub segment_id: String,
    /// Record ids per watch at most; `total` counts every match.
    pub limit: u64,
    pub strategy: WatchStrategy,
}

/// The watches of `matchWatches` as `[field, value]` pairs (a public field name, the value as
/// the user typed it), answered by position.
pub type WatchPairs = Vec<(String, String)>;

/// `editWells`: operator edits of data wells, by source (an ingest's segment id).
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct EditWellsArgs {
    /// Sources taken down.
    pub delete: Vec<String>,
    /// `[source id, new well name]` pairs.
    pub rename: Vec<(String, String)>,
}

/// `ingest(arg, progress)`: files into a new segment of `indexDir`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IngestArgs {
    pub index_dir: String,
    pub well: String,
    pub files: Vec<String>,
    /// auto, jsonl (or json), json-array, csv (or tsv), combo, sql. Absent: `auto`, which
    /// only picks how lines are read.
    #[serde(default = "auto_format")]
    pub format: String,
    /// Column or JSON key → field name, for names the built-in aliases do not know. Absent:
    /// none, the aliases alone.
    #[serde(default)]
    pub map: std::collections::BTreeMap<String, String>,
    /// Where the bad-line report goes. Absent: `reports/` in the index directory.
    pub report_path: Option<String>,
    /// Records per part. Absent: 500,000, a memory bound of the ingest.
    #[serde(default = "default_part_records")]
    pub part_records: u64,
    /// Longer lines are skipped unread. Absent: 1 MiB, a cap.
    #[serde(default = "default_max_line_bytes")]
    pub max_line_bytes: u64,
    /// Larger compressed files are skipped. Absent: 64 GiB, a cap.
    #[serde(default = "default_max_compressed_bytes")]
    pub max_compressed_bytes: u64,
    /// Largest expansion of a compressed input. Absent: 200, a cap.
    #[serde(default = "default_max_ratio")]
    pub max_ratio: u64,
    /// Most bytes a compressed input expands to. Absent: 1 TiB, a cap.
    #[serde(default = "default_max_expanded_bytes")]
    pub max_expanded_bytes: u64,
    /// Kept verbatim in segment.json (the catalogue metadata of this ingest). Absent: null.
    #[serde(default)]
    pub catalogue: serde_json::Value,
    /// After publishing, merge when there are more segments than this (0: never). Absent: 8,
    /// which only bounds the segments a search visits.
    #[serde(default = "default_max_segments")]
    pub max_segments: u64,
    /// Parse and summarise only; publish nothing. Absent: an ingest, what the call is for.
    #[serde(default)]
    pub dry_run: bool,
    /// SQL dumps: only these tables. Absent: every table whose columns map to a field.
    #[serde(default)]
    pub tables: Vec<String>,
}

fn auto_format() -> String {
    "auto".to_string()
}

fn default_part_records() -> u64 {
    500_000
}

fn default_max_line_bytes() -> u64 {
    1 << 20
}

fn default_max_compressed_bytes() -> u64 {
    64 << 30
}

fn default_max_ratio() -> u64 {
    200
}

fn default_max_expanded_bytes() -> u64 {
    1 << 40
}

fn default_max_segments() -> u64 {
    super::DEFAULT_MAX_SEGMENTS
}

/// `merge(arg)`: segments of `indexDir` merged into one.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MergeArgs {
    pub index_dir: String,
    /// Every segment into one; false: only past `maxSegments`.
    pub all: bool,
    /// Absent: 8 (`all: false` merges only past it; a bound on segments, not on access).
    #[serde(default = "default_max_segments")]
    pub max_segments: u64,
    /// Documents per part of the merged segment. Absent: 4,000,000, a part size.
    #[serde(default = "default_merge_part_docs")]
    pub part_records: u64,
}

fn default_merge_part_docs() -> u64 {
    super::DEFAULT_MERGE_PART_DOCS
}

/// `upgrade(arg)`: every segment of `indexDir` older than the engine's format rewritten.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UpgradeArgs {
    pub index_dir: String,
}
