//! API rendering: hits as the JSON entries of the public API (fields parsed again from the
//! stored line with its context) and the search replies built from them.

use crate::error::Result;
use crate::fields::FIELDS;
use crate::segment::Segment;
use crate::source::SourceRecord;
use crate::store::StoredRecord;
use serde_json::{json, Map, Value};
use std::time::Instant;

/// How an entry carries its original line.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum RawRecord {
    /// `raw_record`: the line (the wrapper's `Entry`).
    Line,
    /// No `raw_record` (the public API, for everyone but law enforcement).
    Omit,
    /// `raw_record: {le_only: true, unstructured: line}` (the public API, law enforcement).
    LawEnforcement,
}

/// The entry of document `doc` of part `part`, from its stored record.
pub fn entry_json(seg: &Segment, part: usize, doc: u32, stored: &StoredRecord, raw: RawRecord) -> Value {
    let rec = match seg.meta.contexts.get(stored.ctx as usize).map(|c| c.parse(&stored.line)) {
        Some(Ok(r)) => r,
        // Cannot happen for lines the ingest accepted; show the line rather than fail.
        _ => SourceRecord { raw: stored.line.clone(), ..Default::default() },
    };
    let mut m = Map::new();
    m.insert("id".into(), Value::String(format!("{}-{}-{}", seg.meta.id, part, doc)));
    m.insert("database_name".into(), Value::String(seg.source_of(part, doc).well.clone()));
    for (f, vals) in rec.fields.iter().enumerate() {
        if !vals.is_empty() {
            m.insert(FIELDS[f].into(), Value::Array(vals.iter().map(|s| Value::String(s.clone())).collect()));
        }
    }
    match raw {
        RawRecord::Line => {
            m.insert("raw_record".into(), Value::String(rec.raw));
        }
        RawRecord::Omit => {}
        RawRecord::LawEnforcement => {
            m.insert("raw_record".into(), json!({ "le_only": true, "unstructured": rec.raw }));
        }
    }
    Value::Object(m)
}

/// The reply of `search`; `tookMicros` counts from `t0` to now.
pub fn search_json(total: u64, t0: Instant, segments_searched: usize, entries: Vec<Value>) -> Value {
    json!({
        "total": total,
        "tookMicros": t0.elapsed().as_micros() as u64,
        "segmentsSearched": segments_searched,
        "entries": entries,
    })
}

/// The reply of `searchText`: a JSON line `{"total","tookMicros"}`, a newline, then the
/// entries' JSON array (serialised JSON holds no raw newline), so that the server embeds
/// the entries in its reply without parsing them again. `tookMicros` counts from `t0` to
/// now, the serialisation included.
pub fn search_text(total: u64, t0: Instant, entries: &[Value]) -> Result<String> {
    let entries = serde_json::to_string(entries)?;
    Ok(format!("{}\n{}", json!({ "total": total, "tookMicros": t0.elapsed().as_micros() as u64 }), entries))
}
