//! The boundary between the TypeScript wrapper (`engine/index.ts`) and the engine: every
//! request the wrapper sends and every reply the engine answers, as serde-derived types, and
//! the calls (`Op`). `engine/contract-gen.ts` reads these files and writes their TypeScript
//! twins to `engine/contract.generated.ts` (`npm run gen:engine-contract`; a test fails when
//! the two differ), so both sides are compiled against one definition.
//!
//! The generator reads a restricted Rust: `pub struct`s with named fields, `pub enum`s of
//! unit variants (string unions) or of one-value variants under `untagged` (unions of their
//! types), `pub type` aliases (a `ts:` line in the doc comment gives the TypeScript type
//! when the Rust one is opaque), integer `pub const`s, and the serde attributes
//! `rename_all`, `rename`, `deny_unknown_fields`, `untagged`, `default` and
//! `skip_serializing_if`; `impl` blocks and functions are skipped. Doc comments become the
//! TypeScript comments.
//!
//! Requests refuse unknown fields (`deny_unknown_fields`: a renamed key is an error, not a
//! silently ignored one). A request field without `default` is required: every field that
//! limits what a caller may see or do (`oneTerm`, `rawRecord`, `maxWindow`) is, so a
//! missing one is an `invalid_argument` error, never a default that opens. The few tuning
//! fields with a default say beside it why its absence opens nothing.

mod ingest;
mod replies;
mod requests;

pub use ingest::*;
pub use replies::*;
pub use requests::*;

use serde::{Deserialize, Serialize};

/// Deepest hit a search pages to (page × size) unless it asks for more (`maxWindow`), and the
/// largest page size.
pub const MAX_RESULT_WINDOW: u64 = 10_000;
/// The deepest a request may ask for (`maxWindow`; the public API's `API_MAX_DEPTH`).
pub const MAX_RESULT_WINDOW_LIMIT: u64 = 50_000;
/// A search's time budget unless it gives one (`timeBudgetMs`).
pub const DEFAULT_BUDGET_MS: u64 = 5_000;
/// Record ids a watch answers at most unless the request says otherwise (`total` counts them all).
pub const DEFAULT_WATCH_LIMIT: u64 = 1_000;
/// Automatic merges keep about this many segments (an ingest that leaves more merges).
pub const DEFAULT_MAX_SEGMENTS: u64 = 8;
/// Documents per part of a merged segment.
pub const DEFAULT_MERGE_PART_DOCS: u64 = 4_000_000;

/// The calls of `call(handle, op, arg)` on an open index. `arg` is the op's request as
/// JSON (`SearchArgs`, `GetManyArgs`, …), the record id (`get`, `remove`), the email address
/// (`suppress`, `unsuppress`, `suppression`), or empty (`refresh`, `stats`, `purge`,
/// `close`); `matchWatches` takes a `MatchWatchesHead` line, a newline, then the watches
/// (`WatchPairs`).
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "camelCase")]
pub enum Op {
    /// `SearchArgs` → `SearchReply`.
    Search,
    /// `SearchArgs` → a `SearchTextHead` line, a newline, the entries' JSON array.
    SearchText,
    /// `SearchReplyArgs` → the /v2/search reply's whole body, as a Buffer.
    SearchReply,
    /// A record id → `Entry`, or null when unknown or removed.
    Get,
    /// `GetManyArgs` → `(Entry | null)[]`, in the order asked.
    GetMany,
    /// `GetManyArgs` → a `GetManyTextHead` line, a newline, the entries' JSON array.
    GetManyText,
    /// A record id → whether it was removed now.
    Remove,
    /// An email address → `SuppressReply`.
    Suppress,
    /// An email address → whether it was suppressed.
    Unsuppress,
    /// An email address → `SuppressionReply`.
    Suppression,
    /// → whether a new index generation was loaded.
    Refresh,
    /// → `StatsReply`.
    Stats,
    /// `PasswordCountArgs` → `PasswordCountReply`.
    PasswordCount,
    /// `PasswordRangeArgs` → `PasswordRangeReply`.
    PasswordRange,
    /// `WellCountsArgs` → `WellCountsReply`.
    WellCounts,
    /// `MatchWatchesHead` and `WatchPairs` → `WatchHit[]`.
    MatchWatches,
    /// `EditWellsArgs` → `EditWellsReply`.
    EditWells,
    /// → `PurgeReply`.
    Purge,
    /// → null; the handle answers `closed` afterwards.
    Close,
}

impl Op {
    /// The op named `name` (its serde name, the one the wrapper sends).
    pub fn parse(name: &str) -> Option<Op> {
        use serde::de::{value::Error, IntoDeserializer};
        Op::deserialize(IntoDeserializer::<Error>::into_deserializer(name)).ok()
    }
}

/// The 16 fields of a public API entry, in the engine's field order (`fields::FIELDS`).
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
#[serde(rename_all = "snake_case")]
pub enum FieldName {
    Email,
    Username,
    Password,
    HashedPassword,
    IpAddress,
    Name,
    Dob,
    LicensePlate,
    Vin,
    Address,
    Phone,
    Company,
    Url,
    Social,
    CryptocurrencyAddress,
    Domain,
}

impl FieldName {
    /// Every field, by field number.
    pub const ALL: [FieldName; 16] = [
        FieldName::Email,
        FieldName::Username,
        FieldName::Password,
        FieldName::HashedPassword,
        FieldName::IpAddress,
        FieldName::Name,
        FieldName::Dob,
        FieldName::LicensePlate,
        FieldName::Vin,
        FieldName::Address,
        FieldName::Phone,
        FieldName::Company,
        FieldName::Url,
        FieldName::Social,
        FieldName::CryptocurrencyAddress,
        FieldName::Domain,
    ];
}

/// How a query is read: exact values, wildcards (`*`, `?`), or a regex.
#[derive(Serialize, Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    Exact,
    Wildcard,
    Regex,
}

/// How an entry carries its original line: `line` as `raw_record` (the wrapper's `Entry`),
/// `omit` (the public API, for everyone but law enforcement), or `le` as `raw_record:
/// {le_only: true, unstructured}` (the public API, law enforcement).
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
pub enum RawRecordMode {
    Line,
    Omit,
    Le,
}

/// The per-part count cache of a search: `true` remembers a part's count when evaluating it
/// took at least 20 µs, a number sets that threshold in µs, `false` bypasses the cache.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(untagged)]
pub enum CountCache {
    Enabled(bool),
    MinMicros(u64),
}

/// How `matchWatches` finds exact kinds: `auto` picks per part and field by estimated cost;
/// `lookup` (one dictionary lookup per watched value) and `walk` (one walk of the field's
/// terms) force one, for tests and the benchmark.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
pub enum WatchStrategy {
    Auto,
    Lookup,
    Walk,
}

/// One record as the public API shows it: `id`, `database_name`, `raw_record` (the stored
/// line) and each field that has values. Written by `render.rs` (`entry_json`, and as text by
/// `EntryWriter`) with its keys sorted, not derived: its keys are the record's fields.
/// ts: { id: string; database_name: string; raw_record: string } & Partial<Record<FieldName, string[]>>
pub type Entry = serde_json::Value;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_are_parsed_by_their_serde_names() {
        assert_eq!(Op::parse("searchReply"), Some(Op::SearchReply));
        assert_eq!(Op::parse("getManyText"), Some(Op::GetManyText));
        assert_eq!(Op::parse("close"), Some(Op::Close));
        assert_eq!(Op::parse("wellCounts"), Some(Op::WellCounts));
        assert_eq!(Op::parse("Search"), None);
        assert_eq!(Op::parse(""), None);
    }
}
