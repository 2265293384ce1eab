//! Replies of the calls on an open index and of the binding's own functions (the ingest's
//! summary is in `ingest.rs`).

use super::{Entry, SearchMode};
use serde::Serialize;
use std::collections::BTreeMap;

/// `search`.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SearchReply {
    /// Exact, whatever its size.
    pub total: u64,
    pub took_micros: u64,
    pub segments_searched: u64,
    pub entries: Vec<Entry>,
}

/// The first line of a `searchText` answer; the entries' JSON array follows on the next.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct SearchTextHead {
    pub total: u64,
    pub took_micros: u64,
}

/// The first line of a `getManyText` answer; the entries' JSON array follows on the next.
#[derive(Serialize, Debug)]
pub struct GetManyTextHead {
    /// Entries in the array (unknown and removed ids are left out).
    pub found: u64,
}

/// `parse`: the query's effective mode and its source filters.
#[derive(Serialize, Debug)]
pub struct ParseReply {
    pub mode: SearchMode,
    /// Data wells named by `database_name=` (lower case).
    pub sources: Vec<String>,
}

/// `wellCounts`: the records matching the query in each data well.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct WellCountsReply {
    /// Matching records in every well (the sum of `wells`' records): no dedup, removed and
    /// taken-down records left out.
    pub total: u64,
    /// The wells holding at least one, by records (most first), then by name.
    pub wells: Vec<WellCount>,
    /// Asked with `distinct`: the distinct values of the term's field, compared as the index
    /// compares them (normalised: emails lower-cased), that match the term and are held by
    /// a counted record (`a@example.com` of a record also holding `b@other.org`, for
    /// `email:*@example.com`). Null when not asked.
    pub distinct: Option<u64>,
    pub took_micros: u64,
}

/// A data well (its current name, renames applied) and its matching records.
#[derive(Serialize, Debug)]
pub struct WellCount {
    pub well: String,
    pub records: u64,
}

/// `passwordCount`: records holding the hash (dedup on, removed ones left out).
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct PasswordCountReply {
    pub total: u64,
    pub took_micros: u64,
}

/// `passwordRange`: every known hash with the prefix, as suffix and record count.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct PasswordRangeReply {
    pub prefix: String,
    /// By suffix. SHA-1 suffixes are 35 hex digits long, SHA-256 ones 59, NTLM ones (and
    /// stored 32-digit hashes) 27 (after a 5-digit prefix).
    pub suffixes: Vec<PasswordSuffix>,
    /// More than 100,000 distinct hashes had the prefix: the rest are left out.
    pub truncated: bool,
    pub took_micros: u64,
}

#[derive(Serialize, Debug)]
pub struct PasswordSuffix {
    /// Lower-case hex.
    pub suffix: String,
    pub count: u64,
}

/// `suppress`: how many records hold the address, removed ones included.
#[derive(Serialize, Debug)]
pub struct SuppressReply {
    pub records: u64,
}

/// `suppression`: whether the address is suppressed, and since when (unix seconds).
#[derive(Serialize, Debug)]
pub struct SuppressionReply {
    pub suppressed: bool,
    pub since: Option<u64>,
}

/// One watch of `matchWatches` with at least one match.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct WatchHit {
    /// The watch's position in the request.
    pub i: u64,
    /// Every matching record of the segment (removed ones left out).
    pub total: u64,
    /// The first `limit` of them, in document order.
    pub record_ids: Vec<String>,
}

/// `stats`.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct StatsReply {
    /// Live records (taken-down sources left out).
    pub records: u64,
    /// Records of taken-down sources still in the index (until a purge or merge drops them).
    pub hidden_records: u64,
    /// Every live ingest (source): its id (the ingest's segment id), well and records.
    pub sources: Vec<SourceStats>,
    pub segments: u64,
    pub parts: u64,
    pub generation: u64,
    /// Tombstoned dedup keys.
    pub removed: u64,
    /// Live records by well (taken-down sources left out, renames applied).
    pub wells: BTreeMap<String, u64>,
    pub segment_ids: Vec<String>,
}

#[derive(Serialize, Debug)]
pub struct SourceStats {
    pub id: String,
    pub well: String,
    pub records: u64,
}

/// `editWells`: how many edits were appended to `wells.log`.
#[derive(Serialize, Debug)]
pub struct EditWellsReply {
    pub edits: u64,
}

/// `purge`: the bytes of taken-down sources reclaimed.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct PurgeReply {
    /// Segments dropped whole (every source taken down).
    pub dropped: Vec<String>,
    /// Segments rewritten without their taken-down records.
    pub rewritten: Vec<Rewritten>,
    pub segments: u64,
    pub elapsed_ms: u64,
}

#[derive(Serialize, Debug)]
pub struct Rewritten {
    pub from: String,
    pub to: String,
}

/// `merge`, and an ingest's automatic merge.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct MergeReply {
    /// The new segment, or null when there was nothing to merge.
    pub segment_id: Option<String>,
    /// The segments it replaced (their record ids keep resolving).
    pub merged: Vec<String>,
    pub records: u64,
    pub parts: u64,
    /// Segments in the index afterwards.
    pub segments: u64,
    pub elapsed_ms: u64,
    /// Where the time went; absent when nothing was merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timing: Option<MergeTiming>,
}

#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct MergeTiming {
    pub built_ms: u64,
    pub durable_ms: u64,
    pub visible_ms: u64,
    /// The process's CPU time over the merge.
    pub cpu_ms: u64,
}

/// `upgrade`.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct UpgradeReply {
    /// Empty when every segment was in the current format already.
    pub upgraded: Vec<UpgradedSegment>,
    /// Segments wholly taken down, dropped on the way.
    pub dropped: Vec<String>,
    /// Segments in the index afterwards.
    pub segments: u64,
    /// The current format, every segment's afterwards.
    pub format: u64,
    pub elapsed_ms: u64,
}

/// One segment rewritten by `upgrade`.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct UpgradedSegment {
    /// The old segment, and the new one that replaced it at the same place.
    pub from: String,
    pub to: String,
    pub from_format: u64,
    pub to_format: u64,
    /// Records before, and after (fewer when taken-down records were left out).
    pub records: u64,
    pub records_after: u64,
}

/// `configure(threads)`: the quick and heavy lanes' threads in effect.
#[derive(Serialize, Debug)]
pub struct ConfigureReply {
    pub threads: u64,
}

/// `poolStats()`: one lane of the engine's threads.
#[derive(Serialize, Debug)]
pub struct LaneStats {
    pub lane: LaneName,
    pub threads: u64,
    /// Calls running.
    pub busy: u64,
    /// Calls waiting.
    pub queued: u64,
    /// Calls done.
    pub done: u64,
}

#[derive(Serialize, Clone, Copy, Debug)]
#[serde(rename_all = "lowercase")]
pub enum LaneName {
    Quick,
    Heavy,
    Bulk,
}

/// `version()`.
#[derive(Serialize, Debug)]
pub struct VersionReply {
    /// The crate's version.
    pub engine: String,
    /// The segment format it writes.
    pub format: u64,
}
