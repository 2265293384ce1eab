//! Reading a part: its field indexes (term tables, postings, trigrams, derived password tables) and store.

use super::*;

/// Bytes of each digest kept in a format 6 `.dig`: enough that a lookup rarely meets a
/// candidate of another password (a part of a million distinct passwords: one in 4,000
/// lookups), each such candidate costing one SHA of a short password to rule out.
pub(super) const DIG_PREFIX: usize = 4;

/// A derived password table of format 6 being written: its digests' prefixes, ascending
/// (`.dig`: u32 `DIG_PREFIXES | DIG_PREFIX`, u32 the whole digests' width, then the
/// prefixes), and per entry the ordinal of the password it stands for (`.pord`).
pub(super) struct PordTable {
    pub(super) dig: Vec<u8>,
    pub(super) pord: Vec<u8>,
}

impl PordTable {
    pub(super) fn new(whole: usize, terms: usize) -> Self {
        let mut dig = Vec::with_capacity(8 + terms * DIG_PREFIX);
        dig.extend_from_slice(&(termdict::DIG_PREFIXES | DIG_PREFIX as u32).to_le_bytes());
        dig.extend_from_slice(&(whole as u32).to_le_bytes());
        PordTable { dig, pord: Vec::with_capacity(terms * 4) }
    }

    /// The next prefix (ascending) and its password ordinal.
    pub(super) fn push(&mut self, head: &[u8], ord: u32) {
        self.dig.extend_from_slice(head);
        self.pord.extend_from_slice(&ord.to_le_bytes());
    }

    pub(super) fn write(self, dir: &Path, name: &str) -> Result<()> {
        std::fs::write(dir.join(format!("{}.pord", name)), &self.pord)?;
        std::fs::write(dir.join(format!("{}.dig", name)), &self.dig)?;
        Ok(())
    }
}

pub struct FieldIndex {
    pub dict: TermDict,
    /// Absent for fields without one (then infix queries scan).
    pub tri: Option<crate::trigram::TrigramIndex>,
    /// `email.ltri` (format 11): the local parts' trigrams that domains make common.
    pub ltri: Option<crate::trigram::TrigramIndex>,
    pub(super) post: Bytes,
    /// `.pix`, the sampled postings index.
    pub(super) poff: Bytes,
    /// A derived password table (`.pord`): u32 per term, the ordinal of the password whose
    /// postings it has; `post` and `poff` are then the password table's.
    pub(super) via: Option<Bytes>,
}

impl FieldIndex {
    /// The field's files in a part directory; `None` when the part has none.
    pub fn open(dir: &Path, f: &str) -> Result<Option<FieldIndex>> {
        Ok(match TermDict::open(dir, f)? {
            None => None,
            Some(dict) if dir.join(format!("{}.pord", f)).exists() => {
                let via = Bytes::open(&dir.join(format!("{}.pord", f)))?;
                let pw = index_name(PASSWORD);
                let post = Bytes::open(&dir.join(format!("{}.post", pw)))?;
                let poff = Bytes::open(&dir.join(format!("{}.pix", pw)))?;
                let passwords = postings::pix_check(&poff, post.len());
                let ok = via.len() == dict.len() * 4 && passwords.map(|n| (0..dict.len()).all(|i| (via.u32_at(i) as usize) < n)).unwrap_or(false);
                if !ok {
                    return Err(EngineError::Corrupt(format!("{}: {} password ordinals", dir.display(), f)));
                }
                Some(FieldIndex { dict, tri: None, ltri: None, post, poff, via: Some(via) })
            }
            Some(dict) => {
                let post = Bytes::open(&dir.join(format!("{}.post", f)))?;
                let poff = Bytes::open(&dir.join(format!("{}.pix", f)))?;
                if postings::pix_check(&poff, post.len()) != Some(dict.len()) {
                    return Err(EngineError::Corrupt(format!("{}: {} postings index length", dir.display(), f)));
                }
                let tri = crate::trigram::TrigramIndex::open(dir, f)?;
                let ltri = crate::trigram::TrigramIndex::open_local(dir, f)?;
                Some(FieldIndex { dict, tri, ltri, post, poff, via: None })
            }
        })
    }

    /// A derived password table's `.pord` (u32 per term: its password's ordinal).
    pub fn password_ords(&self) -> Option<&Bytes> {
        self.via.as_ref()
    }

    /// A password-check lookup in a table of hashes (`hashed_password` or a derived table):
    /// `f(ord, hex)` for each term equal to the lower-case hex `hex` (`whole`) or starting
    /// with it, `hex` the term's own. A format 6 derived table holds only digest prefixes:
    /// each candidate's password (`passwords`, the part's `password` table) is hashed again
    /// (the table's own hash, told by its width) to confirm it and to give its whole digest.
    pub fn hash_terms(&self, passwords: Option<&FieldIndex>, hex: &[u8], whole: bool, mut f: impl FnMut(u32, &[u8]) -> Result<()>) -> Result<()> {
        let width = self.dict.prefix_of();
        let (Some(via), true) = (&self.via, width > 0) else {
            if whole {
                return self.dict.get(hex).map_or(Ok(()), |o| f(o, hex));
            }
            return self.dict.for_each(self.dict.prefix_range(hex), f);
        };
        let Some(pw) = passwords else { return Err(EngineError::Corrupt("a derived password table without passwords".into())) };
        if hex.len() > 2 * width || (whole && hex.len() != 2 * width) {
            return Ok(());
        }
        let mut term = Vec::with_capacity(64);
        for ord in self.dict.digest_candidates(hex) {
            let p = via.u32_at(ord as usize);
            term.clear();
            // SHA-256, SHA-1 or NTLM, by the table's width.
            pw.dict.for_each(p..p + 1, |_, t| {
                if crate::digest::derived_hex_into(width, t, &mut term) {
                    Ok(())
                } else {
                    Err(EngineError::Corrupt(format!("a derived password table of {}-byte digests", width)))
                }
            })?;
            if term.starts_with(hex) {
                f(ord, &term)?;
            }
        }
        Ok(())
    }

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
        if let Some(via) = &self.via {
            return self.postings_sorted(ords.iter().map(|&o| via.u32_at(o as usize)), out);
        }
        let mut ranges = Vec::with_capacity(ords.len());
        postings::pix_ranges_scattered(&self.poff, &self.post, ords, &mut ranges);
        const AHEAD: usize = 16;
        let ahead = |p: Option<&postings::Posting>| {
            if let Some(postings::Posting::Bytes(r)) = p {
                postings::prefetch(&self.post, r.start);
            }
        };
        for r in ranges.iter().take(AHEAD) {
            ahead(Some(r));
        }
        for (k, r) in ranges.iter().enumerate() {
            ahead(ranges.get(k + AHEAD));
            r.decode(&self.post, out);
        }
    }

    /// Postings of every ordinal of `ords` (ascending), appended to `out` one after another.
    pub fn postings_sorted(&self, ords: impl Iterator<Item = u32>, out: &mut Vec<u32>) {
        if let Some(via) = &self.via {
            // Password ordinals, in any order (`pix_ranges_sorted` restarts a block).
            return postings::pix_ranges_sorted(&self.poff, &self.post, ords.map(|o| via.u32_at(o as usize)), |r| r.decode(&self.post, out));
        }
        postings::pix_ranges_sorted(&self.poff, &self.post, ords, |r| r.decode(&self.post, out));
    }

    /// The postings of `ord` as stored: the delta varints in `.post`, or (format 7) the one
    /// document of a one-document term, which its `.pix` block holds.
    pub fn stored_postings(&self, ord: u32) -> StoredPostings<'_> {
        match self.posting(ord) {
            postings::Posting::Bytes(r) => StoredPostings::Varints(&self.post[r]),
            postings::Posting::One(d) => StoredPostings::One(d),
        }
    }

    /// Where the postings of `ord` are.
    pub(super) fn posting(&self, ord: u32) -> postings::Posting {
        let ord = self.via.as_ref().map(|v| v.u32_at(ord as usize)).unwrap_or(ord);
        postings::pix_range(&self.poff, &self.post, ord)
    }

    pub fn postings_into(&self, ord: u32, out: &mut Vec<u32>) {
        self.posting(ord).decode(&self.post, out);
    }
}

/// A term's postings as stored (`FieldIndex::stored_postings`).
pub enum StoredPostings<'a> {
    /// Delta varints, the first from 0.
    Varints(&'a [u8]),
    One(u32),
}

pub struct Part {
    pub docs: u32,
    pub fields: Vec<Option<FieldIndex>>,
    /// Dedup keys and first-occurrence bits (`dedup.rs`).
    pub keys: DedupKeys,
    pub store: StoreReader,
    /// The segment's line contexts (its records' keys are computed again with them).
    pub(super) contexts: Arc<[LineContext]>,
    /// Hit counts of recent expensive queries in this (immutable) part, keyed by a hash of
    /// the query: see `Part::cached_count`.
    pub(super) counts: std::sync::Mutex<std::collections::HashMap<u128, (u64, u32)>>,
}

/// Queries whose counts a part remembers, at most.
pub(super) const COUNT_CACHE: usize = 4096;

impl Part {
    /// The hit count of query `key` in this part, when it was computed against the removal
    /// set of generation `removed` (`Removed::generation`: it names the set); the part's
    /// documents and first-occurrence bits never change.
    pub fn cached_count(&self, key: u128, removed: u64) -> Option<u32> {
        let map = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        match map.get(&key) {
            Some(&(r, n)) if r == removed => Some(n),
            _ => None,
        }
    }

    pub fn remember_count(&self, key: u128, removed: u64, count: u32) {
        let mut map = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= COUNT_CACHE {
            map.clear();
        }
        map.insert(key, (removed, count));
    }

    /// Part `dir` of a segment whose line contexts are `contexts`.
    pub fn open(dir: &Path, contexts: Arc<[LineContext]>) -> Result<Part> {
        let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("part.json"))?)
            .map_err(|e| EngineError::Corrupt(format!("{}: {}", dir.display(), e)))?;
        match meta["format_version"].as_u64() {
            Some(v) => super::check_version(v, &dir.display().to_string())?,
            None => return Err(EngineError::Corrupt(format!("{}: no format version", dir.display()))),
        }
        let docs = meta["docs"].as_u64().unwrap_or(0) as u32;
        let mut fields = Vec::with_capacity(INDEXED_FIELDS);
        for f in (0..INDEXED_FIELDS).map(index_name) {
            fields.push(FieldIndex::open(dir, f)?);
        }
        let keys = DedupKeys::open(dir)?;
        if keys.docs() != docs {
            return Err(EngineError::Corrupt(format!("{}: dedup keys of {} documents", dir.display(), keys.docs())));
        }
        Ok(Part { docs, fields, keys, store: StoreReader::open(dir)?, contexts, counts: std::sync::Mutex::new(std::collections::HashMap::new()) })
    }

    /// `first.dat` as bytes (bit d of the little-endian words = bit d%8 of byte d/8).
    pub fn first_bytes(&self) -> Option<&[u8]> {
        self.keys.first_bytes()
    }

    pub fn has_first_bits(&self) -> bool {
        self.keys.has_first_bits()
    }

    /// Whether `doc` is the first record with its dedup key in global order.
    #[inline]
    pub fn is_first(&self, doc: u32) -> bool {
        self.keys.is_first(doc)
    }

    /// The whole dedup key of `doc`: stored, or computed again from its line (a format 10
    /// part's first records; the block goes through the block cache).
    pub fn dedup_key(&self, doc: u32) -> Result<u64> {
        match self.keys.stored(doc) {
            Some(k) => Ok(k),
            None => crate::dedup::block_key(&*self.store.block(self.store.block_of(doc))?, doc, &self.contexts),
        }
    }

    /// Every document's whole dedup key, in document order.
    pub fn dedup_keys(&self) -> Result<Vec<u64>> {
        let mut lines = KeyLines::new(&self.store, &self.contexts);
        (0..self.docs).map(|d| self.keys.stored(d).map(Ok).unwrap_or_else(|| lines.key(d))).collect()
    }

    /// Whether `doc` is hidden by a tombstone: its short key first, its whole key only when
    /// a removed key shares the short one.
    #[inline]
    pub fn is_removed(&self, doc: u32, removed: &Removed) -> Result<bool> {
        if removed.is_empty() || !removed.may_contain(self.keys.short(doc)) {
            return Ok(false);
        }
        Ok(removed.contains(self.dedup_key(doc)?))
    }
}
