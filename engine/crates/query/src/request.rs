//! Requests as the TypeScript wrapper sends them (one JSON argument per call), decoded and
//! checked before any index is touched.

use crate::contract::{CountCache, GetManyArgs, MatchWatchesHead, ParseArgs, RawRecordMode, SearchArgs, SearchMode, WatchPairs, WatchStrategy, WellCountsArgs};
use crate::error::{EngineError, Result};
use crate::fields::field_index;
use crate::query::{self, Mode, ParsedQuery};
use crate::render::RawRecord;
use crate::watch::Strategy;

pub use crate::contract::{DEFAULT_BUDGET_MS, MAX_RESULT_WINDOW, MAX_RESULT_WINDOW_LIMIT};
/// A part's evaluation is remembered (its count) past this time (`countCache: true`).
const COUNT_CACHE_MIN_MICROS: u64 = 20;

/// `search` and `searchText`.
pub struct SearchRequest {
    pub query: String,
    pub mode: Mode,
    pub page: u64,
    pub size: u64,
    pub dedup: bool,
    pub budget_ms: u64,
    pub default_field: Option<usize>,
    /// The per-part count cache: a part's count is remembered when evaluating it took at
    /// least this many microseconds; `None` (`countCache: false`) bypasses the cache.
    pub count_cache: Option<u64>,
    pub raw_record: RawRecord,
    /// The searcher may not see values: one exact term only (`query::parse_one_term`).
    pub one_term: bool,
    /// Deepest hit this search may page to (`page × size`): `max_window`.
    pub max_window: u64,
}

/// `maxWindow` within 1 to MAX_RESULT_WINDOW_LIMIT.
fn max_window(asked: u64) -> u64 {
    asked.clamp(1, MAX_RESULT_WINDOW_LIMIT)
}

pub fn mode(m: SearchMode) -> Mode {
    match m {
        SearchMode::Exact => Mode::Exact,
        SearchMode::Wildcard => Mode::Wildcard,
        SearchMode::Regex => Mode::Regex,
    }
}

/// A parsed query's mode as the contract names it (`parse`'s reply).
pub fn search_mode(m: Mode) -> SearchMode {
    match m {
        Mode::Exact => SearchMode::Exact,
        Mode::Wildcard => SearchMode::Wildcard,
        Mode::Regex => SearchMode::Regex,
    }
}

fn raw_record(r: RawRecordMode) -> RawRecord {
    match r {
        RawRecordMode::Line => RawRecord::Line,
        RawRecordMode::Omit => RawRecord::Omit,
        RawRecordMode::Le => RawRecord::LawEnforcement,
    }
}

/// The query as a search reads it: `query::parse`, or `parse_one_term` for a searcher
/// without the right to see values.
pub fn parse_query(query: &str, mode: Mode, default_field: Option<usize>, one_term: bool) -> Result<ParsedQuery> {
    if one_term {
        query::parse_one_term(query, mode, default_field)
    } else {
        query::parse(query, mode, default_field)
    }
}

/// `type`: a field name, or `all` (or empty) for every field.
pub fn parse_default_field(t: &str) -> Result<Option<usize>> {
    match t {
        "all" | "" => Ok(None),
        name => field_index(name)
            .map(Some)
            .ok_or_else(|| EngineError::query("unknown_field", format!("Unknown search type \"{}\".", name))),
    }
}

impl SearchRequest {
    pub fn from_args(a: SearchArgs) -> Result<SearchRequest> {
        Ok(SearchRequest {
            default_field: parse_default_field(&a.default_field)?,
            query: a.query,
            mode: mode(a.mode),
            page: a.page,
            size: a.size,
            dedup: a.dedup,
            budget_ms: a.time_budget_ms,
            count_cache: match a.count_cache {
                CountCache::Enabled(true) => Some(COUNT_CACHE_MIN_MICROS),
                CountCache::Enabled(false) => None,
                CountCache::MinMicros(n) => Some(n),
            },
            raw_record: raw_record(a.raw_record),
            one_term: a.one_term,
            max_window: max_window(a.max_window),
        })
    }

    /// The request from its JSON text (`SearchArgs`).
    pub fn from_text(arg: &str) -> Result<SearchRequest> {
        Self::from_args(serde_json::from_str(arg)?)
    }

    /// For tests and measurements: the request the wrapper sends for a search with only the
    /// keys of `v` set (the others as `engine/index.ts` sends them by default).
    #[doc(hidden)]
    pub fn with_defaults(v: &serde_json::Value) -> Result<SearchRequest> {
        let mut all = serde_json::json!({
            "query": "", "mode": "exact", "page": 1, "size": 20, "maxWindow": MAX_RESULT_WINDOW, "dedup": true,
            "timeBudgetMs": DEFAULT_BUDGET_MS, "type": "all", "countCache": true, "rawRecord": "line", "oneTerm": false,
        });
        for (k, x) in v.as_object().into_iter().flatten() {
            all[k] = x.clone();
        }
        Self::from_args(serde_json::from_value(all)?)
    }

    pub fn parsed(&self) -> Result<ParsedQuery> {
        parse_query(&self.query, self.mode, self.default_field, self.one_term)
    }
}

/// `1234567` as `1,234,567`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A page of `size` hits at `page` (from 1), at most `window` deep.
pub fn check_paging(page: u64, size: u64, window: u64) -> Result<()> {
    if page < 1 {
        return Err(EngineError::query("bad_page", "page must be 1 or more."));
    }
    if size < 1 || size > MAX_RESULT_WINDOW {
        return Err(EngineError::query("bad_size", format!("size must be between 1 and {}.", grouped(MAX_RESULT_WINDOW))));
    }
    if page.saturating_mul(size) > window {
        return Err(EngineError::query("too_deep", format!("page × size must not exceed {}.", grouped(window))));
    }
    Ok(())
}

/// `parse`: a query checked without an index, by the same parser and checks as a search.
pub struct ParseRequest {
    pub query: String,
    pub mode: Mode,
    pub default_field: Option<usize>,
    /// Checked when both are given, against `max_window`.
    pub paging: Option<(u64, u64)>,
    pub max_window: u64,
    /// As `SearchRequest::one_term`.
    pub one_term: bool,
}

impl ParseRequest {
    pub fn from_args(a: ParseArgs) -> Result<ParseRequest> {
        Ok(ParseRequest {
            default_field: parse_default_field(&a.default_field)?,
            query: a.query,
            mode: mode(a.mode),
            paging: a.page.zip(a.size),
            max_window: max_window(a.max_window),
            one_term: a.one_term,
        })
    }

    /// The parsed query, or the search's refusal.
    pub fn check(&self) -> Result<ParsedQuery> {
        if let Some((page, size)) = self.paging {
            check_paging(page, size, self.max_window)?;
        }
        let parsed = parse_query(&self.query, self.mode, self.default_field, self.one_term)?;
        crate::planner::plan(&parsed)?;
        Ok(parsed)
    }
}

/// One watch of `matchWatches`: a value to look for in one field.
pub struct Watch {
    pub field: String,
    pub value: String,
}

/// `matchWatches`: which watches match records of one segment (monitoring).
pub struct MatchWatchesRequest {
    pub segment_id: String,
    /// Answered by position: the wrapper keeps the watches' ids.
    pub watches: Vec<Watch>,
    /// Record ids per watch at most; `total` counts every match.
    pub limit: usize,
    /// `Auto`, or `Lookup` / `Walk` to force one strategy for exact kinds (tests and the
    /// benchmark compare them).
    pub strategy: Strategy,
}

impl MatchWatchesRequest {
    /// A JSON line `MatchWatchesHead`, a newline, then the watches as a JSON array of
    /// `[field, value]` pairs (`WatchPairs`): decoded straight into strings, without building
    /// a JSON object per watch (100,000 watches are 100,000 objects otherwise).
    pub fn from_text(arg: &str) -> Result<MatchWatchesRequest> {
        let (head, list) = arg.split_once('\n').ok_or_else(|| EngineError::InvalidArgument("matchWatches: header line and watches expected".into()))?;
        let head: MatchWatchesHead = serde_json::from_str(head)?;
        let pairs: WatchPairs = serde_json::from_str(list)?;
        Ok(MatchWatchesRequest {
            segment_id: head.segment_id,
            watches: pairs.into_iter().map(|(field, value)| Watch { field, value }).collect(),
            limit: head.limit.min(u32::MAX as u64) as usize,
            strategy: match head.strategy {
                WatchStrategy::Auto => Strategy::Auto,
                WatchStrategy::Lookup => Strategy::Lookup,
                WatchStrategy::Walk => Strategy::Walk,
            },
        })
    }
}

/// `getMany`: entries by id, in one call.
pub struct GetManyRequest {
    pub ids: Vec<String>,
    pub raw_record: RawRecord,
}

impl GetManyRequest {
    pub fn from_args(a: GetManyArgs) -> GetManyRequest {
        GetManyRequest { ids: a.ids, raw_record: raw_record(a.raw_record) }
    }
}

/// `passwordCount` (`hash`: 1 to 128 hex digits) and `passwordRange` (`prefix`: 5 to 64 hex
/// digits), the password-check lookups; the hex is lower-cased here.
pub struct PasswordRequest {
    pub hex: String,
}

/// `wellCounts`: a query read as a search reads it.
pub struct WellCountsRequest {
    pub query: String,
    pub mode: Mode,
    pub budget_ms: u64,
    pub default_field: Option<usize>,
    pub one_term: bool,
    /// Also count the distinct values (one term of one field).
    pub distinct: bool,
}

impl WellCountsRequest {
    pub fn from_text(arg: &str) -> Result<WellCountsRequest> {
        let a: WellCountsArgs = serde_json::from_str(arg)?;
        Ok(WellCountsRequest { default_field: parse_default_field(&a.default_field)?, query: a.query, mode: mode(a.mode), budget_ms: a.time_budget_ms, one_term: a.one_term, distinct: a.distinct })
    }

    pub fn parsed(&self) -> Result<ParsedQuery> {
        parse_query(&self.query, self.mode, self.default_field, self.one_term)
    }
}

impl PasswordRequest {
    /// `hex` (the request's `key`) checked: `len` hex digits, any case.
    pub fn new(hex: &str, key: &str, len: std::ops::RangeInclusive<usize>) -> Result<PasswordRequest> {
        if !len.contains(&hex.len()) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(EngineError::InvalidArgument(format!("{} must be {} to {} hex digits", key, len.start(), len.end())));
        }
        Ok(PasswordRequest { hex: hex.to_ascii_lowercase() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn search(v: serde_json::Value) -> Result<SearchRequest> {
        SearchRequest::from_text(&v.to_string())
    }

    fn full() -> serde_json::Value {
        json!({
            "query": "email:a@b.com", "mode": "exact", "page": 1, "size": 20, "maxWindow": 10_000, "dedup": true,
            "timeBudgetMs": 5_000, "type": "all", "countCache": true, "rawRecord": "omit", "oneTerm": true,
        })
    }

    #[test]
    fn a_search_request_is_read_whole() {
        let r = search(full()).unwrap();
        assert!(r.one_term);
        assert!(r.raw_record == RawRecord::Omit);
        assert_eq!((r.count_cache, r.max_window), (Some(COUNT_CACHE_MIN_MICROS), 10_000));
        let mut v = full();
        v["countCache"] = json!(false);
        v["maxWindow"] = json!(1_000_000);
        let r = search(v).unwrap();
        assert_eq!((r.count_cache, r.max_window), (None, MAX_RESULT_WINDOW_LIMIT));
    }

    /// A key the engine does not know is refused, not ignored: a renamed key would otherwise
    /// leave the field it meant at a default.
    #[test]
    fn unknown_fields_are_refused() {
        let mut v = full();
        v["onlyOneTerm"] = json!(true);
        let e = search(v).err().expect("refused");
        assert_eq!(e.code(), "invalid_argument");
        assert!(e.message().contains("unknown field `onlyOneTerm`"), "{}", e.message());
        let parse = json!({ "query": "x", "mode": "exact", "type": "all", "maxWindow": 1, "oneTerm": false, "extra": 1 });
        assert!(serde_json::from_value::<ParseArgs>(parse).unwrap_err().to_string().contains("unknown field `extra`"));
    }

    /// Every field that limits what a caller sees is required: without it the request is
    /// refused, never read with a default.
    #[test]
    fn a_missing_security_field_is_an_error() {
        for key in ["oneTerm", "rawRecord", "maxWindow"] {
            let mut v = full();
            v.as_object_mut().unwrap().remove(key);
            let e = search(v).err().unwrap_or_else(|| panic!("{} missing: accepted", key));
            assert_eq!(e.code(), "invalid_argument");
            assert!(e.message().contains(&format!("missing field `{}`", key)), "{}", e.message());
        }
        let parse = json!({ "query": "x", "mode": "exact", "type": "all", "maxWindow": 10 });
        assert!(serde_json::from_value::<ParseArgs>(parse).unwrap_err().to_string().contains("missing field `oneTerm`"));
        assert!(serde_json::from_value::<GetManyArgs>(json!({ "ids": [] })).unwrap_err().to_string().contains("missing field `rawRecord`"));
        let mut v = full();
        v["rawRecord"] = json!("everything");
        assert_eq!(search(v).err().map(|e| e.code()), Some("invalid_argument"));
    }
}
