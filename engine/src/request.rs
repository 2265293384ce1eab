//! Requests as the TypeScript wrapper sends them (one JSON argument per call), decoded and
//! checked before any index is touched.

use crate::error::{EngineError, Result};
use crate::fields::field_index;
use crate::query::{self, Mode, ParsedQuery};
use crate::render::RawRecord;
use crate::watch::Strategy;
use serde_json::Value;

/// Deepest hit a search pages to (`page × size`) unless the request says otherwise, and the
/// largest page size.
pub const MAX_RESULT_WINDOW: u64 = 10_000;
/// The deepest a request may ask for (`maxWindow`; the public API's `API_MAX_DEPTH`).
pub const MAX_RESULT_WINDOW_LIMIT: u64 = 50_000;
pub const DEFAULT_BUDGET_MS: u64 = 5_000;
/// A part's evaluation is remembered (its count) past this time.
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

/// `maxWindow`: MAX_RESULT_WINDOW when absent, never past MAX_RESULT_WINDOW_LIMIT.
fn max_window(v: &Value) -> u64 {
    v["maxWindow"].as_u64().unwrap_or(MAX_RESULT_WINDOW).clamp(1, MAX_RESULT_WINDOW_LIMIT)
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

pub fn parse_default_field(t: Option<&str>) -> Result<Option<usize>> {
    match t {
        None | Some("all") | Some("") => Ok(None),
        Some(name) => field_index(name)
            .map(Some)
            .ok_or_else(|| EngineError::query("unknown_field", format!("Unknown search type \"{}\".", name))),
    }
}

impl SearchRequest {
    pub fn from_json(v: &Value) -> Result<SearchRequest> {
        let query = v["query"].as_str().ok_or_else(|| EngineError::InvalidArgument("query must be a string".into()))?;
        Ok(SearchRequest {
            query: query.to_string(),
            mode: Mode::parse(v["mode"].as_str().unwrap_or("exact"))?,
            page: v["page"].as_u64().unwrap_or(1),
            size: v["size"].as_u64().unwrap_or(20),
            dedup: v["dedup"].as_bool().unwrap_or(true),
            budget_ms: v["timeBudgetMs"].as_u64().unwrap_or(DEFAULT_BUDGET_MS),
            default_field: parse_default_field(v["type"].as_str())?,
            count_cache: match &v["countCache"] {
                Value::Bool(false) => None,
                Value::Number(n) => n.as_u64(),
                _ => Some(COUNT_CACHE_MIN_MICROS),
            },
            raw_record: parse_raw_record(v["rawRecord"].as_str()),
            one_term: v["oneTerm"].as_bool().unwrap_or(false),
            max_window: max_window(v),
        })
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
    pub fn from_json(v: &Value) -> Result<ParseRequest> {
        let query = v["query"].as_str().ok_or_else(|| EngineError::InvalidArgument("query must be a string".into()))?;
        Ok(ParseRequest {
            query: query.to_string(),
            mode: Mode::parse(v["mode"].as_str().unwrap_or("exact"))?,
            default_field: parse_default_field(v["type"].as_str())?,
            paging: v["page"].as_u64().zip(v["size"].as_u64()),
            max_window: max_window(v),
            one_term: v["oneTerm"].as_bool().unwrap_or(false),
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

/// Record ids a watch returns at most by default (`total` counts them all).
pub const DEFAULT_WATCH_LIMIT: usize = 1000;

/// `matchWatches`: which watches match records of one segment (monitoring).
pub struct MatchWatchesRequest {
    pub segment_id: String,
    /// Answered by position: the wrapper keeps the watches' ids.
    pub watches: Vec<Watch>,
    /// Record ids per watch at most (default 1,000); `total` counts every match.
    pub limit: usize,
    /// `"auto"` (default), or `"lookup"` / `"walk"` to force one strategy for exact kinds
    /// (tests and the benchmark compare them).
    pub strategy: Strategy,
}

impl MatchWatchesRequest {
    /// A JSON line `{segmentId, limit?, strategy?}`, a newline, then the watches as a JSON
    /// array of `[field, value]` pairs: decoded straight into strings, without building a
    /// JSON object per watch (100,000 watches are 100,000 objects otherwise).
    pub fn from_text(arg: &str) -> Result<MatchWatchesRequest> {
        let (head, list) = arg.split_once('\n').ok_or_else(|| EngineError::InvalidArgument("matchWatches: header line and watches expected".into()))?;
        let v: Value = serde_json::from_str(head)?;
        let limit = match &v["limit"] {
            Value::Null => DEFAULT_WATCH_LIMIT,
            l => l.as_u64().ok_or_else(|| EngineError::InvalidArgument("limit must be a whole number of 0 or more".into()))?.min(u32::MAX as u64) as usize,
        };
        let strategy = match v["strategy"].as_str() {
            None | Some("auto") => Strategy::Auto,
            Some("lookup") => Strategy::Lookup,
            Some("walk") => Strategy::Walk,
            Some(other) => return Err(EngineError::InvalidArgument(format!("unknown strategy {:?}", other))),
        };
        let pairs: Vec<(String, String)> = serde_json::from_str(list)?;
        Ok(MatchWatchesRequest {
            segment_id: v["segmentId"].as_str().unwrap_or("").to_string(),
            watches: pairs.into_iter().map(|(field, value)| Watch { field, value }).collect(),
            limit,
            strategy,
        })
    }
}

/// `getMany`: entries by id, in one call.
pub struct GetManyRequest {
    pub ids: Vec<String>,
    pub raw_record: RawRecord,
}

impl GetManyRequest {
    pub fn from_json(v: &Value) -> Result<GetManyRequest> {
        let ids = v["ids"]
            .as_array()
            .ok_or_else(|| EngineError::InvalidArgument("ids must be an array of strings".into()))?
            .iter()
            .map(|x| x.as_str().map(str::to_string).ok_or_else(|| EngineError::InvalidArgument("ids must be an array of strings".into())))
            .collect::<Result<Vec<_>>>()?;
        Ok(GetManyRequest { ids, raw_record: parse_raw_record(v["rawRecord"].as_str()) })
    }
}

fn parse_raw_record(v: Option<&str>) -> RawRecord {
    match v {
        Some("omit") => RawRecord::Omit,
        Some("le") => RawRecord::LawEnforcement,
        _ => RawRecord::Line,
    }
}

/// `passwordCount` (`{hash}`: 1 to 128 hex digits) and `passwordRange` (`{prefix}`: 5 to
/// 64 hex digits), the password-check lookups; the hex is lower-cased here.
pub struct PasswordRequest {
    pub hex: String,
}

impl PasswordRequest {
    pub fn from_json(v: &Value, key: &str, len: std::ops::RangeInclusive<usize>) -> Result<PasswordRequest> {
        let hex = v[key].as_str().unwrap_or("");
        if !len.contains(&hex.len()) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(EngineError::InvalidArgument(format!("{} must be {} to {} hex digits", key, len.start(), len.end())));
        }
        Ok(PasswordRequest { hex: hex.to_ascii_lowercase() })
    }
}
