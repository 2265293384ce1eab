//! API rendering: hits as the JSON entries of the public API (fields parsed again from the
//! stored line with its context) and the search replies built from them.
//!
//! Two renderings of the same entry: `entry_json` builds a `serde_json::Value` (the `search`,
//! `get` and `getMany` calls), `EntryWriter::write` writes its JSON text straight from the
//! stored line, without a value per field (the text calls, `searchText` and `getManyText`:
//! the /v2/search hot path). Both give the same text: keys in the order of a serialised
//! `Value` (sorted), the same escaping (serde_json's). Tests hold them to it.

use crate::error::Result;
use crate::fields::{FIELDS, FIELD_COUNT};
use crate::segment::{ContextPlan, Segment};
use crate::source::{Format, SourceRecord};
use serde_json::{json, Map, Value};
use std::io::Write as _;
use std::sync::OnceLock;
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
pub fn entry_json(seg: &Segment, part: usize, doc: u32, ctx: u16, line: &str, raw: RawRecord) -> Value {
    let rec = match seg.meta.contexts.get(ctx as usize).map(|c| c.parse(line)) {
        Some(Ok(r)) => r,
        // Cannot happen for lines the ingest accepted; show the line rather than fail.
        _ => SourceRecord { raw: line.to_string(), ..Default::default() },
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

/// `s` as a JSON string (serde_json's escaping).
#[inline]
fn put_str(out: &mut Vec<u8>, s: &str) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// The keys of an entry in the order a serialised `Value` has them (sorted).
#[derive(Clone, Copy)]
enum Key {
    Field(usize),
    DatabaseName,
    Id,
    RawRecord,
}

fn key_order() -> &'static [(Key, &'static str)] {
    static ORDER: OnceLock<Vec<(Key, &'static str)>> = OnceLock::new();
    ORDER.get_or_init(|| {
        let mut v: Vec<(Key, &'static str)> = FIELDS.iter().enumerate().map(|(i, n)| (Key::Field(i), *n)).collect();
        v.extend([(Key::DatabaseName, "database_name"), (Key::Id, "id"), (Key::RawRecord, "raw_record")]);
        v.sort_by(|a, b| a.1.cmp(b.1));
        v
    })
}

/// Writes entries as JSON text; keeps its buffers from one entry to the next.
#[derive(Default)]
pub struct EntryWriter {
    /// (field, start, end) of each value in the line, in column order.
    vals: Vec<(u8, u32, u32)>,
    /// (start, end) of each CSV column.
    cols: Vec<(u32, u32)>,
    raw: Vec<u8>,
}

/// The values of a parsed line: slices of the line (the common case) or a record parsed
/// the general way (quoted CSV, JSON lines).
enum Vals<'a> {
    Slices(&'a str),
    Parsed(SourceRecord),
}

impl EntryWriter {
    /// Append the entry of document `doc` of part `part` (context `ctx`, stored `line`).
    #[allow(clippy::too_many_arguments)]
    pub fn write(&mut self, out: &mut Vec<u8>, seg: &Segment, part: usize, doc: u32, ctx: u16, line: &[u8], raw: RawRecord) {
        let text = match std::str::from_utf8(line) {
            Ok(t) => t,
            Err(_) => return self.write_parsed(out, seg, part, doc, ctx, &String::from_utf8_lossy(line), raw),
        };
        let plan = seg.plans.get(ctx as usize);
        let fast = match plan {
            Some(p) if p.format == Format::Combo => self.split_combo(text),
            Some(p) if p.format == Format::Csv && !text.contains('"') => self.split_csv(p, text),
            _ => false,
        };
        if !fast {
            return self.write_parsed(out, seg, part, doc, ctx, text, raw);
        }
        self.write_object(out, seg, part, doc, &Vals::Slices(text), raw, plan, text);
    }

    fn write_parsed(&mut self, out: &mut Vec<u8>, seg: &Segment, part: usize, doc: u32, ctx: u16, text: &str, raw: RawRecord) {
        // Without `raw_record` (the public API), the raw record is not built.
        let rec = match seg.meta.contexts.get(ctx as usize).map(|c| c.parse_with(text, raw != RawRecord::Omit)) {
            Some(Ok(r)) => r,
            _ => SourceRecord { raw: text.to_string(), ..Default::default() },
        };
        self.write_object(out, seg, part, doc, &Vals::Parsed(rec), raw, None, text);
    }

    /// `LineContext::parse` of a combo line, as slices. False when it would fail.
    fn split_combo(&mut self, text: &str) -> bool {
        self.vals.clear();
        let Some(p) = text.find([':', ';', '\t']) else { return false };
        let left = text[..p].trim();
        let right = &text[p + 1..];
        if left.is_empty() || right.trim().is_empty() {
            return false;
        }
        let ls = left.as_ptr() as usize - text.as_ptr() as usize;
        let f = if left.contains('@') { 0 } else { 1 };
        self.vals.push((f, ls as u32, (ls + left.len()) as u32));
        self.vals.push((2, (p + 1) as u32, text.len() as u32));
        true
    }

    /// `LineContext::parse` of a CSV line without quotes, as slices. False when it would
    /// fail (column count, no value).
    fn split_csv(&mut self, plan: &ContextPlan, text: &str) -> bool {
        self.vals.clear();
        self.cols.clear();
        let mut start = 0usize;
        for (i, c) in text.char_indices() {
            if c == plan.delim {
                self.cols.push((start as u32, i as u32));
                start = i + c.len_utf8();
            }
        }
        self.cols.push((start as u32, text.len() as u32));
        if self.cols.len() != plan.columns.len() {
            return false;
        }
        for (&(s, e), m) in self.cols.iter().zip(plan.columns.iter()) {
            if let Some(f) = m {
                if !text[s as usize..e as usize].trim().is_empty() {
                    self.vals.push((*f as u8, s, e));
                }
            }
        }
        !self.vals.is_empty()
    }

    #[allow(clippy::too_many_arguments)]
    fn write_object(&mut self, out: &mut Vec<u8>, seg: &Segment, part: usize, doc: u32, vals: &Vals, raw: RawRecord, plan: Option<&ContextPlan>, text: &str) {
        let mut first = true;
        let mut key = |out: &mut Vec<u8>, name: &str| {
            out.push(if first { b'{' } else { b',' });
            first = false;
            out.push(b'"');
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":");
        };
        for &(k, name) in key_order() {
            match k {
                Key::Id => {
                    key(out, name);
                    out.push(b'"');
                    // Segment ids are hex and `-`: nothing to escape.
                    out.extend_from_slice(seg.meta.id.as_bytes());
                    let _ = write!(out, "-{}-{}\"", part, doc);
                }
                Key::DatabaseName => {
                    key(out, name);
                    put_str(out, &seg.source_of(part, doc).well);
                }
                Key::Field(f) => {
                    let mut n = 0;
                    let mut item = |out: &mut Vec<u8>, v: &str| {
                        if n == 0 {
                            key(out, name);
                            out.push(b'[');
                        } else {
                            out.push(b',');
                        }
                        n += 1;
                        put_str(out, v);
                    };
                    match vals {
                        Vals::Slices(t) => {
                            for &(vf, s, e) in &self.vals {
                                if vf as usize == f {
                                    item(out, &t[s as usize..e as usize]);
                                }
                            }
                        }
                        Vals::Parsed(r) => {
                            for v in &r.fields[f] {
                                item(out, v);
                            }
                        }
                    }
                    if n > 0 {
                        out.push(b']');
                    }
                }
                Key::RawRecord => {
                    if raw == RawRecord::Omit {
                        continue;
                    }
                    key(out, name);
                    if raw == RawRecord::LawEnforcement {
                        out.extend_from_slice(b"{\"le_only\":true,\"unstructured\":");
                    }
                    match (vals, plan) {
                        (Vals::Parsed(r), _) => put_str(out, &r.raw),
                        (Vals::Slices(_), Some(p)) if p.format == Format::Csv => {
                            self.raw.clear();
                            self.raw.push(b'{');
                            for (i, (col, name)) in p.raw_keys.iter().enumerate() {
                                if i > 0 {
                                    self.raw.push(b',');
                                }
                                self.raw.extend_from_slice(name.as_bytes());
                                self.raw.push(b':');
                                let (s, e) = self.cols[*col];
                                put_str(&mut self.raw, &text[s as usize..e as usize]);
                            }
                            self.raw.push(b'}');
                            // Built from JSON strings: UTF-8.
                            put_str(out, std::str::from_utf8(&self.raw).unwrap_or_default());
                        }
                        (Vals::Slices(_), _) => put_str(out, text),
                    }
                    if raw == RawRecord::LawEnforcement {
                        out.push(b'}');
                    }
                }
            }
        }
        out.push(b'}');
    }
}

/// Field count check at compile time: `Vals` indexes `SourceRecord::fields` by field.
const _: () = assert!(FIELD_COUNT == FIELDS.len());

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
/// entries' JSON array (`entries`, written by `EntryWriter`; serialised JSON holds no raw
/// newline), so that the server embeds the entries in its reply without parsing them
/// again. `tookMicros` counts from `t0` to now, the entries' writing included.
pub fn search_text(total: u64, t0: Instant, entries: Vec<u8>) -> Result<String> {
    let head = json!({ "total": total, "tookMicros": t0.elapsed().as_micros() as u64 }).to_string();
    let mut out = Vec::with_capacity(head.len() + 1 + entries.len());
    out.extend_from_slice(head.as_bytes());
    out.push(b'\n');
    out.extend_from_slice(&entries);
    // Only JSON text and UTF-8 lines went in.
    String::from_utf8(out).map_err(|e| crate::error::EngineError::Internal(e.to_string()))
}
