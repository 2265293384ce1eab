//! Segments: the immutable output of one ingest. A segment directory holds
//! `segment.json` and one or more parts (`part-N/`), each a self-contained index over
//! its documents (term dictionaries + postings per field, dedup keys, record store).
//! Parts bound the writer's memory: a part is flushed every `part_docs` records.

use crate::bytes::Bytes;
use crate::error::{EngineError, Result};
use crate::fields::{email_domain, index_name, normalize, DOMAIN, EMAIL, EMAIL_DOMAIN, FIELD_COUNT, INDEXED_FIELDS};
use crate::postings;
use crate::store::{StoreReader, StoreWriter};
use crate::termdict::{self, TermDict};
use serde_json::json;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

pub const FORMAT_VERSION: u64 = 1;

/// A record as parsed from the input, before normalisation.
#[derive(Debug, Default, Clone)]
pub struct SourceRecord {
    pub fields: [Vec<String>; FIELD_COUNT],
    pub raw: String,
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
/// Distinct terms of one field -> term number; postings are collected as (term, doc)
/// pairs and grouped at flush (one allocation per term instead of two).
#[derive(Default)]
struct FieldTerms {
    ids: HashMap<Box<[u8]>, u32, BuildHasherDefault<TermHasher>>,
    pairs: Vec<u64>,
}

/// The dedup key: a hash of every field's sorted, distinct normalised values. Identical
/// records from different sources share it; the source and the raw line do not count.
pub fn dedup_key(normalized: &[Vec<String>; FIELD_COUNT]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for (i, vals) in normalized.iter().enumerate() {
        if vals.is_empty() {
            continue;
        }
        h.update(&[0xfe, i as u8]);
        if vals.len() == 1 {
            h.update(vals[0].as_bytes());
            h.update(&[0xff]);
            continue;
        }
        let mut v: Vec<&String> = vals.iter().collect();
        v.sort();
        v.dedup();
        for s in v {
            h.update(s.as_bytes());
            h.update(&[0xff]);
        }
    }
    h.digest()
}

pub fn normalize_record(rec: &SourceRecord) -> [Vec<String>; FIELD_COUNT] {
    let mut out: [Vec<String>; FIELD_COUNT] = Default::default();
    for (i, vals) in rec.fields.iter().enumerate() {
        for v in vals {
            if let Some(n) = normalize(i, v) {
                out[i].push(n);
            }
        }
    }
    out
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

    fn post(&mut self, field: usize, term: &str, doc: u32) {
        let ft = &mut self.terms[field];
        let id = match ft.ids.get(term.as_bytes()) {
            Some(&id) => id,
            None => {
                let id = ft.ids.len() as u32;
                ft.ids.insert(term.as_bytes().into(), id);
                id
            }
        };
        ft.pairs.push(((id as u64) << 32) | doc as u64);
    }

    pub fn add(&mut self, rec: &SourceRecord, ctx: u16, line: &str) -> Result<()> {
        let norm = normalize_record(rec);
        let key = dedup_key(&norm);
        self.add_normalized(&norm, key, ctx, line)
    }

    /// Add a record already normalised (the ingest normalises on its reader thread).
    pub fn add_normalized(&mut self, norm: &[Vec<String>; FIELD_COUNT], key: u64, ctx: u16, line: &str) -> Result<()> {
        let doc = self.docs;
        for (i, vals) in norm.iter().enumerate() {
            if !vals.is_empty() {
                self.present[i] = true;
            }
            for v in vals {
                self.post(i, v, doc);
            }
        }
        // An email's domain is searchable on its own, under `domain`.
        for e in &norm[EMAIL] {
            if let Some(d) = email_domain(e) {
                self.post(DOMAIN, d, doc);
                self.post(EMAIL_DOMAIN, d, doc);
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
            let FieldTerms { ids, mut pairs } = ft;
            let mut entries: Vec<(Box<[u8]>, u32)> = ids.into_iter().collect();
            entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            // Rename term numbers to ordinals, then sort (ordinal, doc) pairs.
            let mut rank = vec![0u32; entries.len()];
            for (ord, (_, id)) in entries.iter().enumerate() {
                rank[*id as usize] = ord as u32;
            }
            for p in pairs.iter_mut() {
                let id = (*p >> 32) as usize;
                *p = ((rank[id] as u64) << 32) | (*p & 0xffff_ffff);
            }
            pairs.sort_unstable();
            pairs.dedup();
            let keys: Vec<&[u8]> = entries.iter().map(|e| &e.0[..]).collect();
            termdict::write(&dir, index_name(i), &keys)?;
            let mut post = std::io::BufWriter::new(std::fs::File::create(dir.join(format!("{}.post", index_name(i))))?);
            let mut poff = Vec::with_capacity((entries.len() + 1) * 4);
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
                poff.extend_from_slice(&(pos as u32).to_le_bytes());
                post.write_all(&buf)?;
                pos += buf.len() as u64;
                if pos > u32::MAX as u64 {
                    return Err(EngineError::InvalidArgument("more than 4 GiB of postings in one part; lower partRecords".into()));
                }
            }
            poff.extend_from_slice(&(pos as u32).to_le_bytes());
            post.flush()?;
            post.get_ref().sync_all()?;
            let p = dir.join(format!("{}.poff", index_name(i)));
            std::fs::write(&p, &poff)?;
            std::fs::File::open(&p)?.sync_all()?;
        }
        let p = dir.join("dedup.dat");
        std::fs::write(&p, &dedup)?;
        std::fs::File::open(&p)?.sync_all()?;
        let meta = json!({ "format_version": FORMAT_VERSION, "docs": docs });
        std::fs::write(dir.join("part.json"), meta.to_string())?;
        std::fs::File::open(dir.join("part.json"))?.sync_all()?;
        Ok(docs)
    }
}

pub struct FieldIndex {
    pub dict: TermDict,
    post: Bytes,
    poff: Bytes,
}

impl FieldIndex {
    pub fn postings_into(&self, ord: u32, out: &mut Vec<u32>) {
        let s = self.poff.u32_at(ord as usize) as usize;
        let e = self.poff.u32_at(ord as usize + 1) as usize;
        postings::decode_into(&self.post[s..e], out);
    }
}

pub struct Part {
    pub docs: u32,
    pub fields: Vec<Option<FieldIndex>>,
    dedup: Bytes,
    /// Bit per document: first in global order with its dedup key (`first.dat`).
    first: Option<Bytes>,
    pub store: StoreReader,
}

impl Part {
    pub fn open(dir: &Path) -> Result<Part> {
        let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("part.json"))?)
            .map_err(|e| EngineError::Corrupt(format!("{}: {}", dir.display(), e)))?;
        if meta["format_version"].as_u64() != Some(FORMAT_VERSION) {
            return Err(EngineError::Corrupt(format!("{}: unsupported format version", dir.display())));
        }
        let docs = meta["docs"].as_u64().unwrap_or(0) as u32;
        let mut fields = Vec::with_capacity(INDEXED_FIELDS);
        for f in (0..INDEXED_FIELDS).map(index_name) {
            fields.push(match TermDict::open(dir, f)? {
                None => None,
                Some(dict) => {
                    let post = Bytes::open(&dir.join(format!("{}.post", f)))?;
                    let poff = Bytes::open(&dir.join(format!("{}.poff", f)))?;
                    if poff.len() != (dict.len() + 1) * 4 {
                        return Err(EngineError::Corrupt(format!("{}: {}.poff length", dir.display(), f)));
                    }
                    Some(FieldIndex { dict, post, poff })
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
        Ok(Part { docs, fields, dedup, first, store: StoreReader::open(dir)? })
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
}

pub struct Segment {
    pub contexts: Vec<crate::source::LineContext>,
    pub id: String,
    pub well: String,
    pub well_lower: String,
    pub parts: Vec<Part>,
    pub records: u64,
}

impl Segment {
    pub fn open(dir: &Path) -> Result<Segment> {
        let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("segment.json"))?)
            .map_err(|e| EngineError::Corrupt(format!("{}: {}", dir.display(), e)))?;
        if meta["format_version"].as_u64() != Some(FORMAT_VERSION) {
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
        Ok(Segment { contexts, id, well_lower: well.to_lowercase(), well, parts, records })
    }
}
