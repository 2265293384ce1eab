//! API rendering: hits as the JSON entries of the public API (fields parsed again from the
//! stored line with its context) and the search replies built from them.
//!
//! Two renderings of the same entry: `entry_json` builds a `serde_json::Value` (the `search`,
//! `get` and `getMany` calls), `EntryWriter::write` writes its JSON text straight from the
//! stored line, without a value per field (the text calls, `searchText` and `getManyText`:
//! the /v2/search hot path). Both give the same text: keys in the order of a serialised
//! `Value` (sorted), the same escaping (serde_json's). Tests hold them to it.

use crate::contract::{Entry, SearchReply, SearchTextHead};
use crate::error::Result;
use crate::fields::{same_value, EMAIL, FIELDS, FIELD_COUNT, HASHED_PASSWORD, PASSWORD, URL, USERNAME};
use crate::segment::{ContextPlan, Segment};
use crate::store::Line;
use crate::source::{combo_parts, hashed_under, is_email, Format, LineContext, SourceRecord};
use serde_json::{json, Map, Value};
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

/// `s` as a JSON string, escaped as serde_json escapes it (`"`, `\\`, the short escapes
/// `\b \f \n \r \t`, other control characters as `\u00xx`; everything else as it is).
/// Written by hand: most values need no escape, so runs of plain bytes are copied whole,
/// without `serde_json::to_writer`'s `io::Write` call per piece.
#[inline]
fn put_str(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        // Eight plain bytes at a time (none below 0x20, no quote, no backslash).
        if i + 8 <= b.len() && plain8(u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))) {
            i += 8;
            continue;
        }
        let c = b[i];
        i += 1;
        if c >= 0x20 && c != b'"' && c != b'\\' {
            continue;
        }
        let i = i - 1;
        out.extend_from_slice(&b[start..i]);
        start = i + 1;
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(c >> 4) as usize]);
                out.push(HEX[(c & 15) as usize]);
            }
        }
    }
    out.extend_from_slice(&b[start..]);
    out.push(b'"');
}

/// Whether none of the 8 bytes of `x` needs escaping in a JSON string: the bit tricks
/// "has a byte below n" and "has a zero byte" (of `x` xor the byte repeated), exact as a yes/no.
#[inline]
fn plain8(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |v: u64, n: u64| v.wrapping_sub(ONES * n) & !v & HIGH;
    (below(x, 0x20) | below(x ^ (ONES * b'"' as u64), 1) | below(x ^ (ONES * b'\\' as u64), 1)) == 0
}

/// `n` in decimal (what `write!(out, "{}", n)` gives, without the formatting machinery).
fn put_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// The keys of an entry in the order a serialised `Value` has them (sorted).
#[derive(Clone, Copy)]
enum Key {
    Field(usize),
    DatabaseName,
    Id,
    RawRecord,
}

/// Each key with its text as it follows another key: `,"name":`.
fn key_order() -> &'static [(Key, Vec<u8>)] {
    static ORDER: OnceLock<Vec<(Key, Vec<u8>)>> = OnceLock::new();
    ORDER.get_or_init(|| {
        let mut v: Vec<(Key, &'static str)> = FIELDS.iter().enumerate().map(|(i, n)| (Key::Field(i), *n)).collect();
        v.extend([(Key::DatabaseName, "database_name"), (Key::Id, "id"), (Key::RawRecord, "raw_record")]);
        v.sort_by(|a, b| a.1.cmp(b.1));
        v.into_iter().map(|(k, n)| (k, format!(",\"{}\":", n).into_bytes())).collect()
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
    /// JSON lines: (key start, key end, field, value start, value end) before sorting.
    json: Vec<(u32, u32, u8, u32, u32)>,
    /// JSON keys seen with their field, for contexts without `--map` (where the field of a
    /// key depends on the key alone): `LineContext::key` allocates twice a call.
    key_fields: Vec<(Box<str>, Option<usize>)>,
}

/// At most this many JSON keys are remembered (a line's keys are few; a source's too).
const KEY_FIELDS: usize = 64;

/// The values of a parsed line: slices of the line (the common case) or a record parsed
/// the general way (quoted CSV, JSON lines).
enum Vals<'a> {
    Slices(&'a str),
    Parsed(SourceRecord),
}

impl EntryWriter {
    /// Append the entry of document `doc` of part `part` (context `ctx`, stored `line`).
    #[allow(clippy::too_many_arguments)]
    pub fn write(&mut self, out: &mut Vec<u8>, seg: &Segment, part: usize, doc: u32, ctx: u16, line: Line<'_>, raw: RawRecord) {
        let text = match line.text() {
            Some(t) => t,
            None => return self.write_parsed(out, seg, part, doc, ctx, &String::from_utf8_lossy(line.bytes()), raw),
        };
        let plan = seg.plans.get(ctx as usize);
        let rules = seg.meta.contexts.get(ctx as usize).map(|c| c.rules).unwrap_or(1);
        let fast = match plan {
            Some(p) if p.format == Format::Combo && rules >= 2 => self.split_combo2(text, rules),
            Some(p) if p.format == Format::Combo => self.split_combo(text),
            Some(p) if p.format == Format::Csv && !text.contains('"') => self.split_csv(p, text),
            Some(p) if matches!(p.format, Format::Jsonl | Format::Sql | Format::JsonArray) => match seg.meta.contexts.get(ctx as usize) {
                Some(c) => self.split_json(c, text),
                None => false,
            },
            _ => false,
        };
        // A hash in a password column is shown as `hashed_password` (rules 2): the general
        // way moves it.
        let fast = fast && !(rules >= 2 && plan.map(|p| p.format != Format::Combo).unwrap_or(false) && self.vals.iter().any(|&(f, s, e)| f as usize == PASSWORD && hashed_under(rules, &text[s as usize..e as usize])));
        if !fast {
            return self.write_parsed(out, seg, part, doc, ctx, text, raw);
        }
        self.keep_once(text);
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
        // The separators are ASCII: their first byte is the first char (`str::find` of the
        // three chars gives the same, a char at a time).
        let Some(p) = memchr::memchr3(b':', b';', b'\t', text.as_bytes()) else { return false };
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

    /// `source::keep_once` over the slices: each field's values once, the first of each
    /// in its place (`vals` are in the order `LineContext::parse` gives them).
    fn keep_once(&mut self, text: &str) {
        if self.vals.len() < 2 {
            return;
        }
        let mut kept = 1;
        for i in 1..self.vals.len() {
            let (f, s, e) = self.vals[i];
            let v = &text[s as usize..e as usize];
            if !self.vals[..kept].iter().any(|&(g, ks, ke)| g == f && same_value(f as usize, &text[ks as usize..ke as usize], v)) {
                self.vals[kept] = self.vals[i];
                kept += 1;
            }
        }
        self.vals.truncate(kept);
    }

    /// `LineContext::parse` of a combo or stealer-log line under rules 2 and later, as slices.
    fn split_combo2(&mut self, text: &str, rules: u8) -> bool {
        self.vals.clear();
        let Some(c) = combo_parts(text) else { return false };
        if let Some((s, e)) = c.url {
            self.vals.push((URL as u8, s as u32, e as u32));
        }
        let login = &text[c.login.0..c.login.1];
        self.vals.push((if is_email(login) { EMAIL } else { USERNAME } as u8, c.login.0 as u32, c.login.1 as u32));
        let pass = if hashed_under(rules, &text[c.pass.0..c.pass.1]) { HASHED_PASSWORD } else { PASSWORD };
        self.vals.push((pass as u8, c.pass.0 as u32, c.pass.1 as u32));
        true
    }

    /// `LineContext::parse` of a CSV line without quotes, as slices. False when it would
    /// fail (column count, no value).
    fn split_csv(&mut self, plan: &ContextPlan, text: &str) -> bool {
        self.vals.clear();
        self.cols.clear();
        let mut start = 0usize;
        if plan.delim.is_ascii() {
            // An ASCII byte is never inside another char's UTF-8 bytes.
            for i in memchr::memchr_iter(plan.delim as u8, text.as_bytes()) {
                self.cols.push((start as u32, i as u32));
                start = i + 1;
            }
        } else {
            for (i, c) in text.char_indices() {
                if c == plan.delim {
                    self.cols.push((start as u32, i as u32));
                    start = i + c.len_utf8();
                }
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

    /// `LineContext::parse` of a JSON line, as slices: for a flat object whose mapped
    /// values are strings without escapes, unsigned integers or booleans, each the text
    /// that `json_scalar` would give. False for anything else (escapes, arrays, objects,
    /// other numbers, a repeated key), which then takes the general way.
    fn split_json(&mut self, c: &LineContext, text: &str) -> bool {
        self.vals.clear();
        self.json.clear();
        let b = text.as_bytes();
        let mut p = skip_space(b, 0);
        if b.get(p) != Some(&b'{') {
            return false;
        }
        p = skip_space(b, p + 1);
        if b.get(p) == Some(&b'}') {
            return false;
        }
        loop {
            let Some((ks, ke)) = json_plain_string(b, p) else { return false };
            p = skip_space(b, ke + 1);
            if b.get(p) != Some(&b':') {
                return false;
            }
            p = skip_space(b, p + 1);
            let field = self.key_field(c, &text[ks..ke]);
            let Some((vs, ve, next)) = json_scalar_text(b, p, field.is_some()) else { return false };
            if let Some(f) = field {
                // Empty values too: a repeated key must be seen whatever its value.
                self.json.push((ks as u32, ke as u32, f as u8, vs as u32, ve as u32));
            }
            p = skip_space(b, next);
            match b.get(p) {
                Some(b',') => p = skip_space(b, p + 1),
                Some(b'}') => break,
                _ => return false,
            }
        }
        if skip_space(b, p + 1) != b.len() {
            return false;
        }
        // serde_json's object keeps its keys sorted: values of one field come in key order.
        self.json.sort_by(|x, y| b[x.0 as usize..x.1 as usize].cmp(&b[y.0 as usize..y.1 as usize]));
        if self.json.windows(2).any(|w| b[w[0].0 as usize..w[0].1 as usize] == b[w[1].0 as usize..w[1].1 as usize]) {
            return false;
        }
        self.vals.extend(self.json.iter().filter(|v| !text[v.3 as usize..v.4 as usize].trim().is_empty()).map(|&(_, _, f, s, e)| (f, s, e)));
        !self.vals.is_empty()
    }

    /// `LineContext::key`, remembered when the context has no `--map`.
    fn key_field(&mut self, c: &LineContext, key: &str) -> Option<usize> {
        if !c.map.is_empty() {
            return c.key(key);
        }
        if let Some((_, f)) = self.key_fields.iter().find(|(k, _)| &**k == key) {
            return *f;
        }
        let f = c.key(key);
        if self.key_fields.len() < KEY_FIELDS {
            self.key_fields.push((key.into(), f));
        }
        f
    }

    #[allow(clippy::too_many_arguments)]
    fn write_object(&mut self, out: &mut Vec<u8>, seg: &Segment, part: usize, doc: u32, vals: &Vals, raw: RawRecord, plan: Option<&ContextPlan>, text: &str) {
        let mut first = true;
        // `,"name":` in one piece; the object's first key opens it instead.
        let mut key = |out: &mut Vec<u8>, name: &[u8]| {
            out.extend_from_slice(name);
            if first {
                let at = out.len() - name.len();
                out[at] = b'{';
                first = false;
            }
        };
        // The fields holding a value: the others are skipped without a look at the values.
        let present: u32 = match vals {
            Vals::Slices(_) => self.vals.iter().fold(0, |m, v| m | 1 << v.0),
            Vals::Parsed(r) => r.fields.iter().enumerate().filter(|(_, v)| !v.is_empty()).fold(0, |m, (f, _)| m | 1 << f),
        };
        for (k, name) in key_order() {
            let (k, name) = (*k, name.as_slice());
            match k {
                Key::Field(f) if present & (1 << f) == 0 => continue,
                Key::Id => {
                    key(out, name);
                    out.push(b'"');
                    // Segment ids are hex and `-`: nothing to escape.
                    out.extend_from_slice(seg.meta.id.as_bytes());
                    out.push(b'-');
                    put_u64(out, part as u64);
                    out.push(b'-');
                    put_u64(out, doc as u64);
                    out.push(b'"');
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
                        (Vals::Slices(_), Some(p)) if matches!(p.format, Format::Jsonl | Format::Sql | Format::JsonArray) => put_str(out, text.trim()),
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

fn skip_space(b: &[u8], mut p: usize) -> usize {
    // JSON's whitespace.
    while matches!(b.get(p), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        p += 1;
    }
    p
}

/// The bytes inside the JSON string that starts at `p`, when it has no escape and no
/// control character (then the bytes are the value).
fn json_plain_string(b: &[u8], p: usize) -> Option<(usize, usize)> {
    if b.get(p) != Some(&b'"') {
        return None;
    }
    let len = b[p + 1..].iter().position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
    (b[p + 1 + len] == b'"').then_some((p + 1, p + 1 + len))
}

/// The value at `p`: (start, end) of the text `json_scalar` makes of it and where the
/// value ends. For a `wanted` value only plain strings, unsigned integers and booleans;
/// `null` gives an empty range (no value). Anything else: None.
fn json_scalar_text(b: &[u8], p: usize, wanted: bool) -> Option<(usize, usize, usize)> {
    match *b.get(p)? {
        b'"' => {
            if let Some((s, e)) = json_plain_string(b, p) {
                return Some((s, e, e + 1));
            }
            if wanted {
                return None;
            }
            // An unmapped string with escapes: skipped, escapes and all.
            let mut q = p + 1;
            loop {
                match *b.get(q)? {
                    b'"' => return Some((q, q, q + 1)),
                    b'\\' => q += 2,
                    _ => q += 1,
                }
            }
        }
        b'-' | b'0'..=b'9' if !wanted => {
            let len = b[p..].iter().position(|c| !matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')).unwrap_or(b.len() - p);
            Some((p, p, p + len))
        }
        b'0'..=b'9' => {
            let len = b[p..].iter().position(|c| !c.is_ascii_digit()).unwrap_or(b.len() - p);
            let canonical = len <= 18 && (len == 1 || b[p] != b'0');
            let end = p + len;
            let number_goes_on = matches!(b.get(end), Some(b'.' | b'e' | b'E'));
            (canonical && !number_goes_on).then_some((p, end, end))
        }
        b't' if b[p..].starts_with(b"true") => Some((p, p + 4, p + 4)),
        b'f' if b[p..].starts_with(b"false") => Some((p, p + 5, p + 5)),
        b'n' if b[p..].starts_with(b"null") => Some((p, p, p + 4)),
        _ => None,
    }
}

/// Field count check at compile time: `Vals` indexes `SourceRecord::fields` by field.
const _: () = assert!(FIELD_COUNT == FIELDS.len());

/// Buffers of large pages kept for the next ones: a page of 10,000 entries writes a
/// megabyte or two, and a new buffer of that size is a fresh mapping from the allocator,
/// each of its pages faulted in again, a cost paid by every large page. Given
/// back once the text has been copied out (`napi.rs`, into the JS string) or merged
/// (a chunk of a page written on several threads).
static PAGE_BUFFERS: std::sync::Mutex<Vec<Vec<u8>>> = std::sync::Mutex::new(Vec::new());
/// Smaller buffers are allocated as usual (cheap), larger ones not kept.
const POOLED_MIN: usize = 64 << 10;
const POOLED_MAX: usize = 16 << 20;
/// At most this many are kept (about one page in flight per core).
const POOLED_COUNT: usize = 8;

/// An empty buffer with room for `cap` bytes, a kept one when the page is large.
pub fn page_buffer(cap: usize) -> Vec<u8> {
    if cap >= POOLED_MIN {
        let mut kept = PAGE_BUFFERS.lock().unwrap_or_else(|p| p.into_inner());
        // The smallest that holds `cap`, else the largest (a chunk's buffer is kept beside
        // a whole page's: growing one is a fresh mapping again).
        let fits = kept.iter().enumerate().filter(|(_, b)| b.capacity() >= cap).min_by_key(|(_, b)| b.capacity()).map(|(i, _)| i);
        let pick = fits.or_else(|| kept.iter().enumerate().max_by_key(|(_, b)| b.capacity()).map(|(i, _)| i));
        let buf = pick.map(|i| kept.swap_remove(i));
        drop(kept);
        if let Some(mut b) = buf {
            b.clear();
            b.reserve(cap);
            return b;
        }
    }
    Vec::with_capacity(cap)
}

/// Keeps `buf` for a later `page_buffer` when it is a large page's and few are kept.
pub fn give_back(buf: Vec<u8>) {
    if (POOLED_MIN..=POOLED_MAX).contains(&buf.capacity()) {
        let mut kept = PAGE_BUFFERS.lock().unwrap_or_else(|p| p.into_inner());
        if kept.len() < POOLED_COUNT {
            kept.push(buf);
        } else if let Some(small) = kept.iter_mut().min_by_key(|b| b.capacity()) {
            // Full (of chunks' buffers, say): a whole page's buffer is worth more.
            if small.capacity() < buf.capacity() {
                *small = buf;
            }
        }
    }
}

/// The reply of `search`; `tookMicros` counts from `t0` to now.
pub fn search_reply(total: u64, t0: Instant, segments_searched: usize, entries: Vec<Entry>) -> SearchReply {
    SearchReply { total, took_micros: t0.elapsed().as_micros() as u64, segments_searched: segments_searched as u64, entries }
}

/// The reply of `searchText`: a JSON line `{"total","tookMicros"}`, a newline, then the
/// entries' JSON array (`entries`, written by `EntryWriter`; serialised JSON holds no raw
/// newline), so that the server embeds the entries in its reply without parsing them
/// again. `tookMicros` counts from `t0` to now, the entries' writing included.
pub fn search_text(total: u64, t0: Instant, entries: Vec<u8>) -> Result<String> {
    let mut head = serde_json::to_vec(&SearchTextHead { total, took_micros: t0.elapsed().as_micros() as u64 })?;
    head.push(b'\n');
    // The head goes in front of the entries in their own buffer (written with room to
    // spare): a page's megabyte of text moves within pages already touched instead of
    // being copied into a new buffer (a few hundred page faults a page).
    let mut out = entries;
    let len = out.len();
    out.resize(len + head.len(), 0);
    out.copy_within(0..len, head.len());
    out[..head.len()].copy_from_slice(&head);
    // Only JSON text and UTF-8 lines went in.
    String::from_utf8(out).map_err(|e| crate::error::EngineError::Internal(e.to_string()))
}

/// `took` as API clients expect it: "179µs", "12ms", "1.25s" (whole microseconds under a
/// millisecond, whole milliseconds under a second, else seconds to two places).
pub fn format_took(micros: u64) -> String {
    if micros < 1000 {
        format!("{}µs", micros)
    } else if micros < 1_000_000 {
        format!("{}ms", (micros + 500) / 1000)
    } else {
        let centis = (micros + 5000) / 10_000;
        format!("{}.{:02}s", centis / 100, centis % 100)
    }
}

/// The body of a public API search reply around its entries' JSON array (`entries`, written
/// by `EntryWriter`): `{"balance":…,"entries":[…],"took":"…","total":…}`, the key order
/// of the documented reply. `reply_head` is written first in the page's buffer
/// (`write_entries`), the entries after it, then `reply_end`: the page's bytes are not
/// moved.
#[cfg(test)]
pub fn reply_bytes(balance: i64, entries: Vec<u8>, took_micros: u64, total: u64) -> Vec<u8> {
    let mut out = reply_head(balance);
    out.extend_from_slice(&entries);
    reply_end(out, took_micros, total)
}

/// Room left after a page's entries for `reply_end` (`"took"` at most about 20 bytes, a
/// u64 total at most 20).
pub const TAIL_ROOM: usize = 64;

/// The reply up to its entries: `{"balance":…,"entries":`.
pub fn reply_head(balance: i64) -> Vec<u8> {
    let mut head = Vec::with_capacity(48);
    head.extend_from_slice(b"{\"balance\":");
    head.extend_from_slice(balance.to_string().as_bytes());
    head.extend_from_slice(b",\"entries\":");
    head
}

/// `out` (the head and entries) with the reply's end: `,"took":"…","total":…}`.
pub fn reply_end(mut out: Vec<u8>, took_micros: u64, total: u64) -> Vec<u8> {
    out.extend_from_slice(b",\"took\":\"");
    out.extend_from_slice(format_took(took_micros).as_bytes());
    out.extend_from_slice(b"\",\"total\":");
    put_u64(&mut out, total);
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_is_the_documented_object_around_its_entries() {
        let body = reply_bytes(-3, b"[{\"id\":\"a\"}]".to_vec(), 1_234, 7);
        assert_eq!(std::str::from_utf8(&body).unwrap(), r#"{"balance":-3,"entries":[{"id":"a"}],"took":"1ms","total":7}"#);
        let v: serde_json::Value = serde_json::from_slice(&reply_bytes(12, b"[]".to_vec(), 0, 0)).unwrap();
        assert_eq!(v, serde_json::json!({ "balance": 12, "entries": [], "took": "0µs", "total": 0 }));
        for (micros, took) in [(0, "0µs"), (999, "999µs"), (1_000, "1ms"), (1_499, "1ms"), (1_500, "2ms"), (999_499, "999ms"), (999_500, "1000ms"), (1_000_000, "1.00s"), (1_254_999, "1.25s"), (1_255_000, "1.26s"), (61_000_000, "61.00s")] {
            assert_eq!(format_took(micros), took, "{}", micros);
        }
    }

    #[test]
    fn strings_and_numbers_are_written_as_serde_json_writes_them() {
        let mut all: String = (0u8..128).map(|b| b as char).collect();
        all.push_str("é€😀\u{7f}\u{2028}");
        for s in [all.as_str(), "", "plain", "\"", "a\\b", "\u{1}x\u{1f}"] {
            let mut out = Vec::new();
            put_str(&mut out, s);
            assert_eq!(out, serde_json::to_vec(s).unwrap(), "{:?}", s);
        }
        // Each escaped byte at each place of the 8-byte steps, and bytes >= 0x80 beside it.
        for c in ['"', '\\', '\n', '\u{1}', '\u{1f}', ' ', '~', '\u{7f}', 'é'] {
            for at in 0..18 {
                let s: String = (0..20).map(|i| if i == at { c } else if i % 3 == 0 { 'ÿ' } else { 'a' }).collect();
                let mut out = Vec::new();
                put_str(&mut out, &s);
                assert_eq!(out, serde_json::to_vec(&s).unwrap(), "{:?}", s);
            }
        }
        for n in [0u64, 7, 10, 99, 4_294_967_295, u64::MAX] {
            let mut out = Vec::new();
            put_u64(&mut out, n);
            assert_eq!(out, n.to_string().into_bytes());
        }
    }

    #[test]
    fn plain_json_lines_take_the_fast_way_and_the_rest_do_not() {
        let c = LineContext::new(Format::Jsonl, Vec::new(), ',', Default::default());
        let mut w = EntryWriter::default();
        for line in [r#"{"email":"a@b.c","password":"p","n":null}"#, r#" {"user":"u","phone":12,"ok":true,"z":-1.5} "#, r#"{"email":"a@b.c","note":"q\"x"}"#] {
            assert!(w.split_json(&c, line), "{}", line);
        }
        for line in [r#"{"email":"a\"b@c"}"#, r#"{"email":"a@b.c","email":"x"}"#, r#"{"email":"a@b.c","phone":-1}"#, r#"{"email":"a@b.c","phone":1.5}"#, r#"{"email":["a@b.c"]}"#, r#"{"email":"a@b.c","n":{"x":[1]}}"#, r#"{"email":"a@b.c"} x"#, r#"{"note":"x"}"#, "{}"] {
            assert!(!w.split_json(&c, line), "{}", line);
        }
    }
}
