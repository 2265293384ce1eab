//! A part's dedup keys and first-occurrence bits (FORMAT.md, "Dedup key" and `first.dat`).
//!
//! Formats 1 to 9, and parts being built, have `dedup.dat`: the whole key (u64) of every
//! document. Format 10 keeps, once a part's first-occurrence bits are known (when it is
//! published, or merged from parts that have them), `dedup.top`: the short key of every
//! document (u32, the key's top bits, `keys::short_key`), and `dedup.rest`: the whole key
//! of every document that is not the first with its key, in document order (a small share
//! of the records). A first record's whole key is computed again from its stored line
//! (`line_key`) when an equality of short keys has to be confirmed: a tombstone's, a
//! later hit's (dedup by hash set), a record being published's.

use crate::bytes::Bytes;
use crate::error::{EngineError, Result};
use crate::fields::FIELD_COUNT;
use crate::keys::{dedup_key, short_key};
use crate::source::{normalize_record, LineContext, SourceRecord};
use crate::store::{Block, StoreReader};
use std::path::Path;

/// Whole keys, u64 per document (formats 6-9; parts being built).
pub const WHOLE: &str = "dedup.dat";
/// Format 10: short keys, u32 per document.
pub const TOP: &str = "dedup.top";
/// Format 10: the whole keys of the documents whose first-occurrence bit is clear.
pub const REST: &str = "dedup.rest";
/// Bit per document: first in global search order with its dedup key.
pub const FIRST: &str = "first.dat";

pub struct DedupKeys {
    docs: u32,
    first: Option<Bytes>,
    form: Form,
}

enum Form {
    Whole(Bytes),
    /// `zeros[w]`: the documents before word `w` of `first.dat` whose bit is clear (their
    /// whole keys come before in `rest`).
    Short { top: Bytes, rest: Bytes, zeros: Vec<u32> },
}

impl DedupKeys {
    pub fn open(dir: &Path) -> Result<DedupKeys> {
        let corrupt = |what: &str| EngineError::Corrupt(format!("{}: {}", dir.display(), what));
        let first = match dir.join(FIRST) {
            p if p.exists() => Some(Bytes::open(&p)?),
            _ => None,
        };
        let top = dir.join(TOP);
        let (docs, form) = if top.exists() {
            let top = Bytes::open(&top)?;
            let rest = Bytes::open(&dir.join(REST))?;
            let docs = u32::try_from(top.len() / 4).map_err(|_| corrupt("dedup.top length"))?;
            let Some(bits) = first.as_ref().filter(|b| top.len() % 4 == 0 && b.len() == words(docs) * 8) else {
                return Err(corrupt("dedup.top without first.dat of its length"));
            };
            let mut zeros = Vec::with_capacity(words(docs));
            let mut z = 0u32;
            for w in 0..words(docs) {
                zeros.push(z);
                let valid = (docs - w as u32 * 64).min(64);
                z += valid - (bits.u64_at(w) & low_bits(valid)).count_ones();
            }
            if rest.len() != z as usize * 8 {
                return Err(corrupt("dedup.rest length"));
            }
            (docs, Form::Short { top, rest, zeros })
        } else {
            let whole = Bytes::open(&dir.join(WHOLE))?;
            let docs = u32::try_from(whole.len() / 8).map_err(|_| corrupt("dedup.dat length"))?;
            if whole.len() % 8 != 0 {
                return Err(corrupt("dedup.dat length"));
            }
            (docs, Form::Whole(whole))
        };
        if first.as_ref().map(|b| b.len() != words(docs) * 8).unwrap_or(false) {
            return Err(corrupt("first.dat length"));
        }
        Ok(DedupKeys { docs, first, form })
    }

    pub fn docs(&self) -> u32 {
        self.docs
    }

    /// `first.dat` as bytes (bit d of the little-endian words = bit d%8 of byte d/8).
    pub fn first_bytes(&self) -> Option<&[u8]> {
        self.first.as_deref()
    }

    pub fn has_first_bits(&self) -> bool {
        self.first.is_some() || self.docs == 0
    }

    /// Whether `doc` is the first record with its dedup key in global order (true without
    /// `first.dat`).
    #[inline]
    pub fn is_first(&self, doc: u32) -> bool {
        match &self.first {
            Some(b) => b.u64_at((doc >> 6) as usize) >> (doc & 63) & 1 == 1,
            None => true,
        }
    }

    /// The short key of `doc` (`keys::short_key` of its whole key).
    #[inline]
    pub fn short(&self, doc: u32) -> u32 {
        match &self.form {
            Form::Whole(b) => short_key(b.u64_at(doc as usize)),
            Form::Short { top, .. } => top.u32_at(doc as usize),
        }
    }

    /// The documents whose short key `keep` accepts, ascending (one pass over the keys).
    pub fn docs_with_short(&self, mut keep: impl FnMut(u32) -> bool) -> Vec<u32> {
        let mut out = Vec::new();
        match &self.form {
            Form::Whole(b) => {
                for (d, c) in b.chunks_exact(8).enumerate() {
                    if keep(short_key(u64::from_le_bytes(c.try_into().unwrap()))) {
                        out.push(d as u32);
                    }
                }
            }
            Form::Short { top, .. } => {
                for (d, c) in top.chunks_exact(4).enumerate() {
                    if keep(u32::from_le_bytes(c.try_into().unwrap())) {
                        out.push(d as u32);
                    }
                }
            }
        }
        out
    }

    /// The whole key of `doc` when the part holds it: always in formats 6-9; in format 10,
    /// for a record that is not the first with its key.
    #[inline]
    pub fn stored(&self, doc: u32) -> Option<u64> {
        match &self.form {
            Form::Whole(b) => Some(b.u64_at(doc as usize)),
            Form::Short { rest, zeros, .. } => {
                let word = self.first.as_ref()?.u64_at((doc >> 6) as usize);
                let bit = doc & 63;
                if word >> bit & 1 == 1 {
                    return None;
                }
                let rank = zeros[(doc >> 6) as usize] + bit - (word & low_bits(bit)).count_ones();
                Some(rest.u64_at(rank as usize))
            }
        }
    }

    /// Whether the part has whole keys (`dedup.dat`); for tests.
    #[doc(hidden)]
    pub fn is_whole(&self) -> bool {
        matches!(self.form, Form::Whole(_))
    }

    /// Appends the part's keys in the format 10 form: the short key of every document to
    /// `top`, the whole key of every document whose first bit is clear to `rest`. Only for
    /// a part with first-occurrence bits (a merge of such parts).
    pub fn append_short(&self, top: &mut Vec<u8>, rest: &mut Vec<u8>) {
        match &self.form {
            Form::Short { top: t, rest: r, .. } => {
                top.extend_from_slice(t);
                rest.extend_from_slice(r);
            }
            Form::Whole(b) => push_short((0..self.docs).map(|d| (b.u64_at(d as usize), self.is_first(d))), top, rest),
        }
    }
}

/// The format 10 form of whole keys given with their first-occurrence bits, appended.
pub fn push_short(keys: impl Iterator<Item = (u64, bool)>, top: &mut Vec<u8>, rest: &mut Vec<u8>) {
    for (k, first) in keys {
        top.extend_from_slice(&short_key(k).to_le_bytes());
        if !first {
            rest.extend_from_slice(&k.to_le_bytes());
        }
    }
}

/// Writes a part's format 10 key files (`push_short`); the caller makes them durable.
pub fn write_short(dir: &Path, top: &[u8], rest: &[u8]) -> Result<()> {
    std::fs::write(dir.join(TOP), top)?;
    std::fs::write(dir.join(REST), rest)?;
    Ok(())
}

fn words(docs: u32) -> usize {
    (docs as usize).div_ceil(64)
}

/// The low `n` bits set (n <= 64).
#[inline]
fn low_bits(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// A parsed record's normalised values and its dedup key (the ingest's, and `line_key`'s).
pub fn record_key(rec: &SourceRecord) -> ([Vec<String>; FIELD_COUNT], u64) {
    let norm = normalize_record(rec);
    let key = dedup_key(&norm);
    (norm, key)
}

/// The dedup key of a stored line, computed again as the ingest computed it: parsed with
/// its line context, normalised, hashed. Format 10 parts keep only the short key of a record
/// that is the first with its key; this gives the whole one.
pub fn line_key(ctx: &LineContext, line: &[u8]) -> Result<u64> {
    let text = std::str::from_utf8(line).map_err(|_| EngineError::Corrupt("stored line is not UTF-8".into()))?;
    let rec = ctx.parse_with(text, false).map_err(|e| EngineError::Corrupt(format!("stored line does not parse: {}", e)))?;
    Ok(record_key(&rec).1)
}

/// The whole key of document `doc` of `block`, from its stored line.
pub fn block_key(block: &Block, doc: u32, contexts: &[LineContext]) -> Result<u64> {
    let (ctx, line) = block.record(doc)?;
    let c = contexts.get(ctx as usize).ok_or_else(|| EngineError::Corrupt("stored record with an unknown line context".into()))?;
    line_key(c, line)
}

/// Whole keys computed again from a part's stored lines, the last block decoded kept (for
/// callers going in document order; not through the block cache).
pub struct KeyLines<'a> {
    store: &'a StoreReader,
    contexts: &'a [LineContext],
    block: Option<Block>,
}

impl<'a> KeyLines<'a> {
    pub fn new(store: &'a StoreReader, contexts: &'a [LineContext]) -> KeyLines<'a> {
        KeyLines { store, contexts, block: None }
    }

    pub fn key(&mut self, doc: u32) -> Result<u64> {
        if !self.block.as_ref().map(|b| b.holds(doc)).unwrap_or(false) {
            self.block = Some(self.store.load(self.store.block_of(doc))?);
        }
        block_key(self.block.as_ref().unwrap(), doc, self.contexts)
    }
}
