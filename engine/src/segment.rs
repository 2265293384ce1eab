//! Segments: the immutable output of one ingest. A segment directory holds
//! `segment.json` and one or more parts (`part-N/`), each a self-contained index over
//! its documents (term dictionaries + postings per field, dedup keys, record store).
//! Parts bound the writer's memory: a part is flushed every `part_docs` records.

use crate::bytes::Bytes;
use crate::error::{EngineError, Result};
use crate::fields::{email_domain, email_local, index_name, DOMAIN, EMAIL, EMAIL_DOMAIN, EMAIL_LOCAL, FIELD_COUNT, INDEXED_FIELDS};
use crate::postings;
use crate::store::{StoreReader, StoreWriter};
use crate::termdict::{self, prefix8, TermDict};
use serde_json::json;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Written by this engine. 2 added trigram indexes (`<field>.tri`) and merged segments
/// (`sources` in segment.json); format 1 indexes are read as they are (see FORMAT.md).
pub const FORMAT_VERSION: u64 = 2;
/// The oldest format this engine reads.
pub const MIN_FORMAT_VERSION: u64 = 1;

pub fn readable_version(v: Option<u64>) -> bool {
    matches!(v, Some(x) if (MIN_FORMAT_VERSION..=FORMAT_VERSION).contains(&x))
}

/// A hasher for term keys: xxh3 of the bytes.
#[derive(Default)]
pub struct TermHasher(u64);
impl Hasher for TermHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = xxhash_rust::xxh3::xxh3_64_with_seed(bytes, self.0);
    }
    fn write_usize(&mut self, n: usize) {
        self.0 ^= (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}
/// A term's bytes in an `Arena` chunk: chunks are never moved nor freed before the map
/// holding these keys, so the pointer stays valid.
struct ArenaKey(*const u8, u32);
unsafe impl Send for ArenaKey {}
impl ArenaKey {
    #[inline]
    fn bytes(&self) -> &[u8] {
        unsafe { std::slice::from_raw_parts(self.0, self.1 as usize) }
    }
}
impl PartialEq for ArenaKey {
    fn eq(&self, o: &Self) -> bool {
        self.bytes() == o.bytes()
    }
}
impl Eq for ArenaKey {}
impl std::hash::Hash for ArenaKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.bytes().hash(h)
    }
}
impl std::borrow::Borrow<[u8]> for ArenaKey {
    fn borrow(&self) -> &[u8] {
        self.bytes()
    }
}

/// Term bytes in 1 MiB chunks (one allocation per chunk instead of one per term).
#[derive(Default)]
struct Arena {
    chunks: Vec<Vec<u8>>,
}
impl Arena {
    fn put(&mut self, t: &[u8]) -> ArenaKey {
        let need = t.len().max(1);
        match self.chunks.last() {
            Some(c) if c.capacity() - c.len() >= need => {}
            _ => self.chunks.push(Vec::with_capacity((1 << 20).max(need))),
        }
        let c = self.chunks.last_mut().unwrap();
        let start = c.len();
        c.extend_from_slice(t);
        ArenaKey(unsafe { c.as_ptr().add(start) }, t.len() as u32)
    }
}

/// Distinct terms of one field -> term number; postings are collected as (term, doc)
/// pairs and grouped at flush (one allocation per term instead of two).
#[derive(Default)]
struct FieldTerms {
    // Declared before `arena`: dropped first.
    ids: HashMap<ArenaKey, u32, BuildHasherDefault<TermHasher>>,
    arena: Arena,
    pairs: Vec<u64>,
}

pub struct PartWriter {
    dir: PathBuf,
    store: StoreWriter,
    terms: Vec<FieldTerms>,
    dedup: Vec<u8>,
    docs: u32,
    pub present: [bool; FIELD_COUNT],
}

impl PartWriter {
    pub fn create(dir: &Path) -> Result<PartWriter> {
        std::fs::create_dir_all(dir)?;
        Ok(PartWriter {
            dir: dir.to_path_buf(),
            store: StoreWriter::create(dir)?,
            terms: (0..INDEXED_FIELDS).map(|_| FieldTerms::default()).collect(),
            dedup: Vec::new(),
            docs: 0,
            present: [false; FIELD_COUNT],
        })
    }

    pub fn docs(&self) -> u32 {
        self.docs
    }

    fn post_bytes(&mut self, field: usize, term: &[u8], doc: u32) {
        let ft = &mut self.terms[field];
        let id = match ft.ids.get(term) {
            Some(&id) => id,
            None => {
                let id = ft.ids.len() as u32;
                let k = ft.arena.put(term);
                ft.ids.insert(k, id);
                id
            }
        };
        ft.pairs.push(((id as u64) << 32) | doc as u64);
    }

    /// Add a record from a flat ingest batch: `vals` are (field, start, end) in `bytes`.
    pub fn add_flat(&mut self, bytes: &[u8], vals: &[(u8, u32, u32)], key: u64, ctx: u16, line: &str) -> Result<()> {
        let doc = self.docs;
        for &(f, s, e) in vals {
            let f = f as usize;
            let v = &bytes[s as usize..e as usize];
            self.present[f] = true;
            self.post_bytes(f, v, doc);
            // An email's domain is searchable on its own, under `domain`.
            if f == EMAIL {
                if let Ok(e) = std::str::from_utf8(v) {
                    if let Some(d) = email_domain(e) {
                        self.post_bytes(DOMAIN, d.as_bytes(), doc);
                        self.post_bytes(EMAIL_DOMAIN, d.as_bytes(), doc);
                    }
                    if let Some(l) = email_local(e) {
                        self.post_bytes(EMAIL_LOCAL, l.as_bytes(), doc);
                    }
                }
            }
        }
        self.dedup.extend_from_slice(&key.to_le_bytes());
        self.store.add(ctx, line)?;
        self.docs += 1;
        Ok(())
    }

    pub fn finish(self) -> Result<u32> {
        let PartWriter { dir, store, terms, dedup, docs, .. } = self;
        store.finish()?;
        for (i, ft) in terms.into_iter().enumerate() {
            if ft.ids.is_empty() {
                continue;
            }
            let FieldTerms { ids, arena: _arena, mut pairs } = ft;
            // Sort by an 8-byte prefix first: most comparisons never reach memcmp.
            let mut entries: Vec<(u64, &[u8], u32)> = ids.iter().map(|(k, &id)| (prefix8(k.bytes()), k.bytes(), id)).collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(b.1)));
            // Rename term numbers to ordinals, then sort (ordinal, doc) pairs.
            let mut rank = vec![0u32; entries.len()];
            for (ord, (_, _, id)) in entries.iter().enumerate() {
                rank[*id as usize] = ord as u32;
            }
            for p in pairs.iter_mut() {
                let id = (*p >> 32) as usize;
                *p = ((rank[id] as u64) << 32) | (*p & 0xffff_ffff);
            }
            pairs.sort_unstable();
            pairs.dedup();
            let keys: Vec<&[u8]> = entries.iter().map(|e| e.1).collect();
            termdict::write(&dir, index_name(i), &keys)?;
            if crate::trigram::has_trigrams(i) {
                crate::trigram::write(&dir, index_name(i), keys.iter().copied())?;
            }
            let mut post = std::io::BufWriter::new(std::fs::File::create(dir.join(format!("{}.post", index_name(i))))?);
            let mut pix = postings::PixBuilder::default();
            let mut pos = 0u64;
            let mut buf = Vec::new();
            let mut docs: Vec<u32> = Vec::new();
            let mut k = 0usize;
            for ord in 0..entries.len() as u64 {
                docs.clear();
                while k < pairs.len() && pairs[k] >> 32 == ord {
                    docs.push((pairs[k] & 0xffff_ffff) as u32);
                    k += 1;
                }
                buf.clear();
                postings::encode(&docs, &mut buf);
                pix.add(buf.len());
                post.write_all(&buf)?;
                pos += buf.len() as u64;
                if pos > u32::MAX as u64 {
                    return Err(EngineError::InvalidArgument("more than 4 GiB of postings in one part; lower partRecords".into()));
                }
            }
            post.flush()?;
            std::fs::write(dir.join(format!("{}.pix", index_name(i))), pix.finish())?;
        }
        // Made durable with the whole segment before it is published (`sync_tree`).
        std::fs::write(dir.join("dedup.dat"), &dedup)?;
        let meta = json!({ "format_version": FORMAT_VERSION, "docs": docs });
        std::fs::write(dir.join("part.json"), meta.to_string())?;
        Ok(docs)
    }
}

pub struct FieldIndex {
    pub dict: TermDict,
    /// Absent in format 1 parts and for fields without one (then infix queries scan).
    pub tri: Option<crate::trigram::TrigramIndex>,
    post: Bytes,
    /// `.pix` (format 2, sampled) or `.poff` (format 1, u32 per term).
    poff: Bytes,
    sampled: bool,
}

impl FieldIndex {
    /// Postings of `ord` with `base` added to every document number.
    pub fn postings_shifted(&self, ord: u32, base: u32, out: &mut Vec<u32>) {
        let from = out.len();
        self.postings_into(ord, out);
        if base != 0 {
            for d in &mut out[from..] {
                *d += base;
            }
        }
    }

    /// Postings of many ascending ordinals, likely scattered (an infix scan's hits): read
    /// with prefetches running ahead, so that the cache misses overlap.
    pub fn postings_many(&self, ords: &[u32], out: &mut Vec<u32>) {
        if !self.sampled {
            return self.postings_sorted(ords.iter().copied(), out);
        }
        let mut ranges = Vec::with_capacity(ords.len());
        postings::pix_ranges_scattered(&self.poff, ords, &mut ranges);
        const AHEAD: usize = 16;
        for r in ranges.iter().take(AHEAD) {
            postings::prefetch(&self.post, r.start);
        }
        for (k, r) in ranges.iter().enumerate() {
            if let Some(a) = ranges.get(k + AHEAD) {
                postings::prefetch(&self.post, a.start);
            }
            postings::decode_into(&self.post[r.clone()], out);
        }
    }

    /// Postings of every ordinal of `ords` (ascending), appended to `out` one after another.
    pub fn postings_sorted(&self, ords: impl Iterator<Item = u32>, out: &mut Vec<u32>) {
        if self.sampled {
            postings::pix_ranges_sorted(&self.poff, ords, |r| postings::decode_into(&self.post[r], out));
        } else {
            for o in ords {
                self.postings_into(o, out);
            }
        }
    }

    /// The encoded postings of `ord`.
    pub fn postings_bytes(&self, ord: u32) -> &[u8] {
        if self.sampled {
            return &self.post[postings::pix_range(&self.poff, ord)];
        }
        let s = self.poff.u32_at(ord as usize) as usize;
        let e = self.poff.u32_at(ord as usize + 1) as usize;
        &self.post[s..e]
    }

    pub fn postings_into(&self, ord: u32, out: &mut Vec<u32>) {
        postings::decode_into(self.postings_bytes(ord), out);
    }
}

pub struct Part {
    pub docs: u32,
    pub fields: Vec<Option<FieldIndex>>,
    dedup: Bytes,
    /// Bit per document: first in global order with its dedup key (`first.dat`).
    first: Option<Bytes>,
    pub store: StoreReader,
    /// Hit counts of recent expensive queries in this (immutable) part, keyed by a hash of
    /// the query: see `Part::cached_count`.
    counts: std::sync::Mutex<std::collections::HashMap<u128, (usize, u32)>>,
}

/// Queries whose counts a part remembers, at most.
const COUNT_CACHE: usize = 4096;

impl Part {
    /// The hit count of query `key` in this part, when it was computed against a removal
    /// set of `removed` keys. Tombstones are only ever added, so their number identifies
    /// the set; the part's documents and first-occurrence bits never change.
    pub fn cached_count(&self, key: u128, removed: usize) -> Option<u32> {
        let map = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        match map.get(&key) {
            Some(&(r, n)) if r == removed => Some(n),
            _ => None,
        }
    }

    pub fn remember_count(&self, key: u128, removed: usize, count: u32) {
        let mut map = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= COUNT_CACHE {
            map.clear();
        }
        map.insert(key, (removed, count));
    }

    pub fn open(dir: &Path) -> Result<Part> {
        let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("part.json"))?)
            .map_err(|e| EngineError::Corrupt(format!("{}: {}", dir.display(), e)))?;
        if !readable_version(meta["format_version"].as_u64()) {
            return Err(EngineError::Corrupt(format!("{}: unsupported format version", dir.display())));
        }
        let docs = meta["docs"].as_u64().unwrap_or(0) as u32;
        let mut fields = Vec::with_capacity(INDEXED_FIELDS);
        for f in (0..INDEXED_FIELDS).map(index_name) {
            fields.push(match TermDict::open(dir, f)? {
                None => None,
                Some(dict) => {
                    let post = Bytes::open(&dir.join(format!("{}.post", f)))?;
                    let pix = dir.join(format!("{}.pix", f));
                    let sampled = pix.exists();
                    let poff = Bytes::open(&if sampled { pix } else { dir.join(format!("{}.poff", f)) })?;
                    let ok = if sampled { postings::pix_check(&poff, post.len()) == Some(dict.len()) } else { poff.len() == (dict.len() + 1) * 4 };
                    if !ok {
                        return Err(EngineError::Corrupt(format!("{}: {} postings index length", dir.display(), f)));
                    }
                    let tri = crate::trigram::TrigramIndex::open(dir, f)?;
                    Some(FieldIndex { dict, tri, post, poff, sampled })
                }
            });
        }
        let dedup = Bytes::open(&dir.join("dedup.dat"))?;
        if dedup.len() != docs as usize * 8 {
            return Err(EngineError::Corrupt(format!("{}: dedup.dat length", dir.display())));
        }
        let first = match dir.join("first.dat") {
            p if p.exists() => {
                let b = Bytes::open(&p)?;
                if b.len() != (docs as usize + 63) / 64 * 8 {
                    return Err(EngineError::Corrupt(format!("{}: first.dat length", dir.display())));
                }
                Some(b)
            }
            _ => None,
        };
        Ok(Part { docs, fields, dedup, first, store: StoreReader::open(dir)?, counts: std::sync::Mutex::new(std::collections::HashMap::new()) })
    }

    /// `first.dat` as bytes (bit d of the little-endian words = bit d%8 of byte d/8).
    pub fn first_bytes(&self) -> Option<&[u8]> {
        self.first.as_deref()
    }

    pub fn has_first_bits(&self) -> bool {
        self.first.is_some() || self.docs == 0
    }

    /// Whether `doc` is the first record with its dedup key in global order.
    #[inline]
    pub fn is_first(&self, doc: u32) -> bool {
        match &self.first {
            Some(b) => b.u64_at((doc >> 6) as usize) >> (doc & 63) & 1 == 1,
            None => true,
        }
    }

    #[inline]
    pub fn dedup_key(&self, doc: u32) -> u64 {
        self.dedup.u64_at(doc as usize)
    }

    /// `dedup.dat` as it is on disk (u64 LE per document).
    pub fn dedup_bytes(&self) -> &[u8] {
        &self.dedup
    }
}

/// One original ingest inside a segment: its data well and its documents, a contiguous
/// range of the segment's global document numbers (parts concatenated).
#[derive(Debug, Clone)]
pub struct SourceRange {
    pub id: String,
    pub well: String,
    pub well_lower: String,
    pub start: u64,
    pub records: u64,
}

/// A segment id whose record ids (`<id>-<part>-<doc>`) resolve into this (merged)
/// segment: its documents start at `start` and its parts had `part_docs` documents.
#[derive(Debug, Clone)]
pub struct Alias {
    pub id: String,
    pub start: u64,
    pub part_docs: Vec<u32>,
}

pub struct Segment {
    pub contexts: Vec<crate::source::LineContext>,
    pub id: String,
    /// The data well of an ingest's segment; empty for a merged segment (see `sources`).
    pub well: String,
    pub well_lower: String,
    pub parts: Vec<Part>,
    pub records: u64,
    /// Global document number of each part's first document.
    pub part_start: Vec<u64>,
    /// The ingests in this segment, in document order (one for an unmerged segment).
    pub sources: Vec<SourceRange>,
    /// Earlier segment ids merged into this one (empty for an unmerged segment).
    pub aliases: Vec<Alias>,
    /// The raw segment.json (a merge copies the source metadata from it).
    pub meta: serde_json::Value,
}

impl Alias {
    /// (global document number) of `<alias id>-<part>-<doc>`, if in range.
    pub fn locate(&self, part: usize, doc: u32) -> Option<u64> {
        let docs = *self.part_docs.get(part)?;
        if doc >= docs {
            return None;
        }
        Some(self.start + self.part_docs[..part].iter().map(|&d| d as u64).sum::<u64>() + doc as u64)
    }
}

impl Segment {
    pub fn open(dir: &Path) -> Result<Segment> {
        let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("segment.json"))?)
            .map_err(|e| EngineError::Corrupt(format!("{}: {}", dir.display(), e)))?;
        if !readable_version(meta["format_version"].as_u64()) {
            return Err(EngineError::Corrupt(format!("{}: unsupported format version", dir.display())));
        }
        let id = meta["id"].as_str().unwrap_or_default().to_string();
        let well = meta["well"].as_str().unwrap_or_default().to_string();
        let nparts = meta["parts"].as_u64().unwrap_or(0) as usize;
        let mut parts = Vec::with_capacity(nparts);
        for i in 0..nparts {
            parts.push(Part::open(&dir.join(format!("part-{}", i)))?);
        }
        let records = parts.iter().map(|p| p.docs as u64).sum();
        let mut contexts = Vec::new();
        for c in meta["contexts"].as_array().cloned().unwrap_or_default() {
            contexts.push(
                crate::source::LineContext::from_json(&c)
                    .ok_or_else(|| EngineError::Corrupt(format!("{}: bad line context", dir.display())))?,
            );
        }
        let mut part_start = Vec::with_capacity(parts.len());
        let mut acc = 0u64;
        for p in &parts {
            part_start.push(acc);
            acc += p.docs as u64;
        }
        let mut sources = Vec::new();
        if let Some(list) = meta["sources"].as_array() {
            for x in list {
                let w = x["well"].as_str().unwrap_or_default().to_string();
                sources.push(SourceRange {
                    id: x["id"].as_str().unwrap_or_default().to_string(),
                    well_lower: w.to_lowercase(),
                    well: w,
                    start: x["start"].as_u64().unwrap_or(0),
                    records: x["records"].as_u64().unwrap_or(0),
                });
            }
        } else {
            sources.push(SourceRange { id: id.clone(), well: well.clone(), well_lower: well.to_lowercase(), start: 0, records });
        }
        let mut aliases = Vec::new();
        for x in meta["aliases"].as_array().cloned().unwrap_or_default() {
            aliases.push(Alias {
                id: x["id"].as_str().unwrap_or_default().to_string(),
                start: x["start"].as_u64().unwrap_or(0),
                part_docs: x["parts"].as_array().map(|a| a.iter().map(|d| d.as_u64().unwrap_or(0) as u32).collect()).unwrap_or_default(),
            });
        }
        Ok(Segment { contexts, id, well_lower: well.to_lowercase(), well, parts, records, part_start, sources, aliases, meta })
    }

    pub fn is_merged(&self) -> bool {
        !self.aliases.is_empty() || self.sources.len() != 1
    }

    /// (part, doc) of a global document number.
    pub fn locate_global(&self, g: u64) -> Option<(usize, u32)> {
        let p = self.part_start.partition_point(|&s| s <= g).checked_sub(1)?;
        let d = g - self.part_start[p];
        if d >= self.parts[p].docs as u64 {
            return None;
        }
        Some((p, d as u32))
    }

    /// The ingest holding document `doc` of part `part`.
    pub fn source_of(&self, part: usize, doc: u32) -> &SourceRange {
        if self.sources.len() == 1 {
            return &self.sources[0];
        }
        let g = self.part_start[part] + doc as u64;
        let i = self.sources.partition_point(|s| s.start <= g).saturating_sub(1);
        &self.sources[i]
    }

    /// Local document ranges of `part` that belong to wells named in `wells` (lower-case).
    pub fn well_ranges(&self, part: usize, wells: &[String]) -> Vec<std::ops::Range<u32>> {
        let ps = self.part_start[part];
        let pe = ps + self.parts[part].docs as u64;
        let mut out: Vec<std::ops::Range<u32>> = Vec::new();
        for s in &self.sources {
            if !wells.iter().any(|w| *w == s.well_lower) {
                continue;
            }
            let (a, b) = (s.start.max(ps), (s.start + s.records).min(pe));
            if a < b {
                let r = (a - ps) as u32..(b - ps) as u32;
                match out.last_mut() {
                    Some(l) if l.end == r.start => l.end = r.end,
                    _ => out.push(r),
                }
            }
        }
        out
    }
}
