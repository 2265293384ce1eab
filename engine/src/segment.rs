//! Segments: the immutable output of one ingest. A segment directory holds
//! `segment.json` and one or more parts (`part-N/`), each a self-contained index over
//! its documents (term dictionaries + postings per field, dedup keys, record store).
//! Parts bound the writer's memory: a part is flushed every `part_docs` records.

use crate::bytes::Bytes;
use crate::dedup::{DedupKeys, KeyLines};
use crate::keys::Removed;
use crate::error::{EngineError, Result};
use crate::fields::{email_domain, index_name, DOMAIN, EMAIL, EMAIL_DOMAIN, FIELD_COUNT, INDEXED_FIELDS, PASSWORD, PASSWORD_SHA1, PASSWORD_SHA256, USERNAME};
use crate::postings;
use crate::store::{StoreReader, StoreWriter};
use crate::termdict::{self, prefix8, TermDict};
use crate::source::{Format, LineContext};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Written by this engine. 2 added trigram indexes (`<field>.tri`) and merged segments
/// (`sources` in segment.json); 3 added the derived password tables (`password_sha256`,
/// `password_sha1`, see `write_derived`); 4 changed the store (`store/`), front-codes the
/// term tables (`<field>.tfc`, see `termdict`) and more (FORMAT.md); 5 writes the derived
/// password tables' digests in binary (`.dig`, see `PordTable`); 6 keeps only their first
/// 4 bytes (`DIG_PREFIX`); 7 writes store blocks with varint lengths (`store/`) and
/// Rice-codes sparse trigram lists (`trigram::rice_encode`); 8 keeps store blocks as bare
/// zstd blocks with a grouped block map (`store/`, `zstd_block.rs`); 9 writes `.pix` blocks
/// of up to 64 terms, each with its `.post` offset (`postings::PixBuilder`); 10 keeps a short
/// dedup key per record and the whole key only of the records that are not the first with
/// theirs (`dedup.rs`); 11 writes no `email_local` table but the local parts' trigrams
/// beside the emails' (`email.ltri`, `trigram::write_local`). Formats 1 to 10 are read as
/// they are (parts of 1 and 2 have no
/// derived tables until a merge rewrites them).
pub const FORMAT_VERSION: u64 = 11;
/// The oldest format this engine reads.
pub const MIN_FORMAT_VERSION: u64 = 1;

/// The directory of published segment `id` in index `index`.
pub fn segment_dir(index: &Path, id: &str) -> PathBuf {
    index.join(format!("seg-{}", id))
}

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

/// A part's lines, kept until its flush stores them in the part's order: `(context, end in
/// bytes)` per line.
#[derive(Default)]
struct Lines {
    bytes: Vec<u8>,
    recs: Vec<(u16, usize)>,
}

pub struct PartWriter {
    dir: PathBuf,
    /// The part's lines, stored at `finish` in the part's order (`PartOrder`).
    lines: Lines,
    order: PartOrder,
    terms: Vec<FieldTerms>,
    dedup: Vec<u8>,
    docs: u32,
    pub present: [bool; FIELD_COUNT],
}

/// Bytes of a record's username (else its email) that order the records of a part.
const ORDER_KEY_BYTES: usize = 16;
/// A password is a part's own group when it is at least this share of the part's records
/// (1/1024: a password with a page of 10,000 per 10M records) and at least `GROUP_MIN` of them.
const GROUP_SHARE: u32 = 1024;
const GROUP_MIN: u32 = 64;

/// The order a part's records are numbered and stored in (not the input's): the records of
/// each of the part's popular passwords together, then every other record by username, or
/// email when it has none (their first `ORDER_KEY_BYTES`), the input's order breaking ties.
/// A page of 10,000 entries of a popular password or a username or email prefix then reads
/// a few hundred store blocks instead of one block per entry (a scattered page decodes one
/// 1 KiB zstd block per entry: BENCHMARKS.md, "10M records: every target"); similar lines side
/// by side also compress better. Readers do not depend on the order: a part's documents
/// are numbered in it, and merges copy parts' blocks as they are, keeping it.
#[derive(Default)]
struct PartOrder {
    /// Per record: its username's or email's first bytes, and its first password's term
    /// number (`u32::MAX`: none).
    keys: Vec<([u8; ORDER_KEY_BYTES], u32)>,
}

impl PartOrder {
    /// The part's records in the part's order: the input number of each document.
    fn order(&self, passwords: usize) -> Vec<u32> {
        let n = self.keys.len() as u32;
        let mut count = vec![0u32; passwords];
        for &(_, pw) in &self.keys {
            if let Some(c) = count.get_mut(pw as usize) {
                *c += 1;
            }
        }
        let min = (n / GROUP_SHARE).max(GROUP_MIN);
        let mut sorted: Vec<(u32, [u8; ORDER_KEY_BYTES], u32)> = self
            .keys
            .iter()
            .enumerate()
            .map(|(i, &(key, pw))| {
                let group = if count.get(pw as usize).is_some_and(|&c| c >= min) { pw } else { u32::MAX };
                (group, key, i as u32)
            })
            .collect();
        sorted.sort_unstable();
        sorted.into_iter().map(|(_, _, old)| old).collect()
    }
}

/// `f` on every item, the items taken in their order by this thread and one more (the first
/// error is returned once both are done). Parts' fields are written this way, by ingests
/// and merges, the largest first.
pub(crate) fn each_on_two_threads<T: Send>(items: Vec<T>, what: &str, f: impl Fn(T) -> Result<()> + Sync) -> Result<()> {
    let queue = std::sync::Mutex::new(items.into_iter());
    let work = || -> Result<()> {
        loop {
            let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
            let Some(item) = next else { return Ok(()) };
            f(item)?;
        }
    };
    std::thread::scope(|sc| {
        let h = sc.spawn(work);
        let mine = work();
        let theirs = h.join().unwrap_or_else(|_| Err(EngineError::Internal(format!("{} thread panicked", what))));
        mine.and(theirs)
    })
}

impl PartWriter {
    pub fn create(dir: &Path) -> Result<PartWriter> {
        std::fs::create_dir_all(dir)?;
        Ok(PartWriter {
            dir: dir.to_path_buf(),
            lines: Lines::default(),
            order: PartOrder::default(),
            terms: (0..INDEXED_FIELDS).map(|_| FieldTerms::default()).collect(),
            dedup: Vec::new(),
            docs: 0,
            present: [false; FIELD_COUNT],
        })
    }

    pub fn docs(&self) -> u32 {
        self.docs
    }

    /// Post `term` of `field` in `doc`; its term number.
    fn post_bytes(&mut self, field: usize, term: &[u8], doc: u32) -> u32 {
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
        id
    }

    /// Add a record from a flat ingest batch: `vals` are (field, start, end) in `bytes`.
    pub fn add_flat(&mut self, bytes: &[u8], vals: &[(u8, u32, u32)], dedup_key: u64, ctx: u16, line: &str) -> Result<()> {
        let doc = self.docs;
        let (mut key, mut keyed_by, mut password) = ([0u8; ORDER_KEY_BYTES], None, u32::MAX);
        for &(f, s, e) in vals {
            let f = f as usize;
            let v = &bytes[s as usize..e as usize];
            self.present[f] = true;
            let id = self.post_bytes(f, v, doc);
            if f == PASSWORD && password == u32::MAX {
                password = id;
            }
            // The username's first bytes, else the email's.
            if (f == USERNAME && keyed_by != Some(USERNAME)) || (f == EMAIL && keyed_by.is_none()) {
                let n = v.len().min(ORDER_KEY_BYTES);
                key = [0u8; ORDER_KEY_BYTES];
                key[..n].copy_from_slice(&v[..n]);
                keyed_by = Some(f);
            }
            // An email's domain is searchable on its own, under `domain`.
            if f == EMAIL {
                if let Ok(e) = std::str::from_utf8(v) {
                    if let Some(d) = email_domain(e) {
                        self.post_bytes(DOMAIN, d.as_bytes(), doc);
                        self.post_bytes(EMAIL_DOMAIN, d.as_bytes(), doc);
                    }
                }
            }
        }
        self.order.keys.push((key, password));
        self.dedup.extend_from_slice(&dedup_key.to_le_bytes());
        self.lines.bytes.extend_from_slice(line.as_bytes());
        self.lines.recs.push((ctx, self.lines.bytes.len()));
        self.docs += 1;
        Ok(())
    }

    pub fn finish(self) -> Result<u32> {
        let PartWriter { dir, lines, order, mut terms, dedup, docs, .. } = self;
        // Number the records in the part's order: their postings, dedup keys and lines.
        let by_rank = order.order(terms[PASSWORD].ids.len());
        drop(order);
        let mut rank = vec![0u32; by_rank.len()];
        for (new, &old) in by_rank.iter().enumerate() {
            rank[old as usize] = new as u32;
        }
        for ft in terms.iter_mut() {
            for p in ft.pairs.iter_mut() {
                *p = (*p & !0xffff_ffff) | rank[(*p & 0xffff_ffff) as usize] as u64;
            }
        }
        drop(rank);
        let mut keys = Vec::with_capacity(dedup.len());
        for &old in &by_rank {
            keys.extend_from_slice(&dedup[old as usize * 8..old as usize * 8 + 8]);
        }
        drop(dedup);
        // The store first (its dictionary trained, the lines compressed in the part's order),
        // then the fields: writing the store beside the field writers cost 5-8% more CPU
        // (BENCHMARKS.md, "10M records: every target").
        let mut store = StoreWriter::create(&dir)?;
        for &old in &by_rank {
            let start = if old == 0 { 0 } else { lines.recs[old as usize - 1].1 };
            let (ctx, end) = lines.recs[old as usize];
            store.add_bytes(ctx, &lines.bytes[start..end])?;
        }
        store.finish()?;
        drop(lines);
        drop(by_rank);
        // Fields are written by two threads (each takes the next field, the largest first):
        // an ingest's last flush runs alone, after reading, so one thread left a core idle.
        // The thread writing `password` also writes the derived tables, which read it.
        let mut fields: Vec<(usize, FieldTerms)> = terms.into_iter().enumerate().filter(|(_, ft)| !ft.ids.is_empty()).collect();
        fields.sort_by_key(|(_, ft)| std::cmp::Reverse(ft.pairs.len()));
        each_on_two_threads(fields, "part flush", |(i, ft)| {
            write_field(&dir, i, ft)?;
            if i == PASSWORD {
                write_derived(&dir)?;
            }
            Ok(())
        })?;
        // Made durable with the whole segment before it is published (`sync_tree`).
        std::fs::write(dir.join(crate::dedup::WHOLE), &keys)?;
        let meta = json!({ "format_version": FORMAT_VERSION, "docs": docs });
        std::fs::write(dir.join("part.json"), meta.to_string())?;
        Ok(docs)
    }
}

/// Write field `i` of a part: its sorted term table, trigram lists, postings.
fn write_field(dir: &Path, i: usize, ft: FieldTerms) -> Result<()> {
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
    termdict::write(dir, index_name(i), keys.iter().copied(), termdict::coding(i, crate::trigram::grain(i)))?;
    if crate::trigram::has_trigrams(i) {
        crate::trigram::write(dir, i, keys.iter().copied())?;
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
        if pix.add(&buf) {
            post.write_all(&buf)?;
            pos += buf.len() as u64;
        }
        if pos > u32::MAX as u64 {
            return Err(EngineError::InvalidArgument("more than 4 GiB of postings in one part; lower partRecords".into()));
        }
    }
    post.flush()?;
    std::fs::write(dir.join(format!("{}.pix", index_name(i))), pix.finish())?;
    Ok(())
}

/// Format 3: the derived password tables of a part, from its written `password` table:
/// `password_sha256` and `password_sha1`, the lower-case hex SHA-256 and SHA-1 of every
/// distinct password term, each with that term's postings (copied as they are: the same
/// documents). Called when an ingest flushes a part (on its flush thread) and after a merge
/// wrote its `password` table, so merged parts have them whether or not their inputs did.
pub fn write_derived(dir: &Path) -> Result<()> {
    let Some(pw) = FieldIndex::open(dir, index_name(PASSWORD))? else { return Ok(()) };
    let n = pw.dict.len();
    let mut buf = Vec::with_capacity(320);
    // One table at a time: the binary digests (hex sorts as they do) and term ordinals.
    let mut h256: Vec<([u8; 32], u32)> = Vec::with_capacity(n);
    pw.dict.for_each(0..n as u32, |ord, t| {
        h256.push((crate::digest::sha256(t, &mut buf), ord));
        Ok(())
    })?;
    write_hashed(dir, PASSWORD_SHA256, h256)?;
    let mut h1: Vec<([u8; 20], u32)> = Vec::with_capacity(n);
    pw.dict.for_each(0..n as u32, |ord, t| {
        h1.push((crate::digest::sha1(t, &mut buf), ord));
        Ok(())
    })?;
    write_hashed(dir, PASSWORD_SHA1, h1)
}

fn write_hashed<const N: usize>(dir: &Path, field: usize, mut hashes: Vec<([u8; N], u32)>) -> Result<()> {
    hashes.sort_unstable();
    // Format 6: the digests' first `DIG_PREFIX` bytes (`.dig`) and each one's password
    // ordinal (`.pord`); a lookup confirms a candidate by hashing its password again, so two
    // passwords sharing a prefix (or a whole digest) are simply two entries.
    let mut table = PordTable::new(N, hashes.len());
    for (h, ord) in &hashes {
        table.push(&h[..DIG_PREFIX], *ord);
    }
    table.write(dir, &index_name(field))
}

/// A derived password table of a merged part from the sources' (format 4 or 5, `.pord`):
/// each source's table and the merged ordinal of each of its passwords. A digest in several
/// sources is one password, so one merged ordinal: kept once. Format 4 sources (hex terms)
/// and format 5 ones (binary `.dig`) mix; the output is format 5. Returns without writing
/// when no source has the table.
pub fn write_derived_merged(dir: &Path, field: usize, ins: &[(&FieldIndex, &[u32])]) -> Result<()> {
    let whole = if field == PASSWORD_SHA256 { 32 } else { 20 };
    // Every source entry: its digest's first `DIG_PREFIX` bytes and its merged ordinal.
    let mut all: Vec<([u8; DIG_PREFIX], u32)> = Vec::with_capacity(ins.iter().map(|(fi, _)| fi.dict.len()).sum());
    for (fi, remap) in ins {
        let Some(pord) = fi.password_ords() else { return Err(EngineError::Internal("derived table without password ordinals".into())) };
        for ord in 0..fi.dict.len() {
            let head = match fi.dict.term_digest(ord as u32) {
                Some(d) if d.len() >= DIG_PREFIX && d.len() <= whole => d[..DIG_PREFIX].try_into().unwrap(),
                _ => return Err(EngineError::Corrupt(format!("{}: term {} is not a digest", index_name(field), ord))),
            };
            all.push((head, remap[pord.u32_at(ord) as usize]));
        }
    }
    if all.is_empty() {
        return Ok(());
    }
    // A password in several sources has one merged ordinal: kept once.
    all.sort_unstable();
    all.dedup();
    let mut table = PordTable::new(whole, all.len());
    for (head, ord) in &all {
        table.push(head, *ord);
    }
    table.write(dir, &index_name(field))
}

/// Bytes of each digest kept in a format 6 `.dig`: enough that a lookup rarely meets a
/// candidate of another password (a part of a million distinct passwords: one in 4,000
/// lookups), each such candidate costing one SHA of a short password to rule out.
const DIG_PREFIX: usize = 4;

/// A derived password table of format 6 being written: its digests' prefixes, ascending
/// (`.dig`: u32 `DIG_PREFIXES | DIG_PREFIX`, u32 the whole digests' width, then the
/// prefixes), and per entry the ordinal of the password it stands for (`.pord`).
struct PordTable {
    dig: Vec<u8>,
    pord: Vec<u8>,
}

impl PordTable {
    fn new(whole: usize, terms: usize) -> Self {
        let mut dig = Vec::with_capacity(8 + terms * DIG_PREFIX);
        dig.extend_from_slice(&(termdict::DIG_PREFIXES | DIG_PREFIX as u32).to_le_bytes());
        dig.extend_from_slice(&(whole as u32).to_le_bytes());
        PordTable { dig, pord: Vec::with_capacity(terms * 4) }
    }

    /// The next prefix (ascending) and its password ordinal.
    fn push(&mut self, head: &[u8], ord: u32) {
        self.dig.extend_from_slice(head);
        self.pord.extend_from_slice(&ord.to_le_bytes());
    }

    fn write(self, dir: &Path, name: &str) -> Result<()> {
        std::fs::write(dir.join(format!("{}.pord", name)), &self.pord)?;
        std::fs::write(dir.join(format!("{}.dig", name)), &self.dig)?;
        Ok(())
    }
}

pub struct FieldIndex {
    pub dict: TermDict,
    /// Absent in format 1 parts and for fields without one (then infix queries scan).
    pub tri: Option<crate::trigram::TrigramIndex>,
    /// `email.ltri` (format 11): the local parts' trigrams that domains make common.
    pub ltri: Option<crate::trigram::TrigramIndex>,
    post: Bytes,
    /// `.pix` (format 2, sampled) or `.poff` (format 1, u32 per term).
    poff: Bytes,
    sampled: bool,
    /// A derived password table of format 4 (`.pord`): u32 per term, the ordinal of the
    /// password whose postings it has; `post` and `poff` are then the password table's.
    via: Option<Bytes>,
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
                Some(FieldIndex { dict, tri: None, ltri: None, post, poff, sampled: true, via: Some(via) })
            }
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
                let ltri = crate::trigram::TrigramIndex::open_local(dir, f)?;
                Some(FieldIndex { dict, tri, ltri, post, poff, sampled, via: None })
            }
        })
    }

    /// A format 4 derived password table's `.pord` (u32 per term: its password's ordinal).
    pub fn password_ords(&self) -> Option<&Bytes> {
        self.via.as_ref()
    }

    /// A password-check lookup in a table of hashes (`hashed_password` or a derived table):
    /// `f(ord, hex)` for each term equal to the lower-case hex `hex` (`whole`) or starting
    /// with it, `hex` the term's own. A format 6 derived table holds only digest prefixes:
    /// each candidate's password (`passwords`, the part's `password` table) is hashed again
    /// to confirm it and to give its whole digest.
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
        let mut buf = Vec::with_capacity(320);
        let mut term = Vec::with_capacity(64);
        for ord in self.dict.digest_candidates(hex) {
            let p = via.u32_at(ord as usize);
            term.clear();
            pw.dict.for_each(p..p + 1, |_, t| {
                match width {
                    32 => crate::digest::hex_into(&crate::digest::sha256(t, &mut buf), &mut term),
                    _ => crate::digest::hex_into(&crate::digest::sha1(t, &mut buf), &mut term),
                }
                Ok(())
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
        if !self.sampled {
            return self.postings_sorted(ords.iter().copied(), out);
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
        if self.sampled {
            postings::pix_ranges_sorted(&self.poff, &self.post, ords, |r| r.decode(&self.post, out));
        } else {
            for o in ords {
                self.postings_into(o, out);
            }
        }
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
    fn posting(&self, ord: u32) -> postings::Posting {
        let ord = self.via.as_ref().map(|v| v.u32_at(ord as usize)).unwrap_or(ord);
        if self.sampled {
            return postings::pix_range(&self.poff, &self.post, ord);
        }
        let s = self.poff.u32_at(ord as usize) as usize;
        let e = self.poff.u32_at(ord as usize + 1) as usize;
        postings::Posting::Bytes(s..e)
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
    contexts: Arc<[LineContext]>,
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

    /// Part `dir` of a segment whose line contexts are `contexts`.
    pub fn open(dir: &Path, contexts: Arc<[LineContext]>) -> Result<Part> {
        let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("part.json"))?)
            .map_err(|e| EngineError::Corrupt(format!("{}: {}", dir.display(), e)))?;
        if !readable_version(meta["format_version"].as_u64()) {
            return Err(EngineError::Corrupt(format!("{}: unsupported format version", dir.display())));
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

/// `segment.json`: what a segment holds and where it came from (see FORMAT.md).
#[derive(Debug, Clone)]
pub struct SegmentMeta {
    pub format_version: u64,
    pub id: String,
    /// The data well of an ingest's segment; empty for a merged segment (see `sources`).
    pub well: String,
    pub parts: u32,
    pub records: u64,
    /// The fields that had at least one value.
    pub fields: Vec<String>,
    pub created: String,
    pub bad_lines: u64,
    /// Opaque to the engine: the catalogue metadata `scripts/ingest.ts` replays.
    pub catalogue: Value,
    /// One per input file: how its lines map to fields.
    pub contexts: Vec<LineContext>,
    /// A merged segment's original ingests, in document order (empty, and not written, for
    /// an ingest's segment).
    pub sources: Vec<SourceMeta>,
    /// Every segment id merged into this one (empty, and not written, when unmerged).
    pub aliases: Vec<Alias>,
}

/// One original ingest of a merged segment: its metadata and its documents
/// `[start, start + records)`.
#[derive(Debug, Clone)]
pub struct SourceMeta {
    pub id: String,
    pub well: String,
    pub records: u64,
    pub start: u64,
    pub fields: Vec<String>,
    pub created: String,
    pub bad_lines: u64,
    pub catalogue: Value,
}

/// A segment id whose record ids (`<id>-<part>-<doc>`) resolve into this (merged)
/// segment: its documents start at `start` and its parts had `part_docs` documents.
#[derive(Debug, Clone)]
pub struct Alias {
    pub id: String,
    pub start: u64,
    pub part_docs: Vec<u32>,
}

fn json_key<'a>(v: &'a Value, k: &str) -> std::result::Result<&'a Value, String> {
    v.get(k).ok_or_else(|| format!("{} is missing", k))
}

fn json_str(v: &Value, k: &str) -> std::result::Result<String, String> {
    json_key(v, k)?.as_str().map(String::from).ok_or_else(|| format!("{} is not a string", k))
}

fn json_u64(v: &Value, k: &str) -> std::result::Result<u64, String> {
    json_key(v, k)?.as_u64().ok_or_else(|| format!("{} is not an unsigned integer", k))
}

fn json_u32(v: &Value, k: &str) -> std::result::Result<u32, String> {
    u32::try_from(json_u64(v, k)?).map_err(|_| format!("{} is out of range", k))
}

fn json_array<'a>(v: &'a Value, k: &str) -> std::result::Result<&'a Vec<Value>, String> {
    json_key(v, k)?.as_array().ok_or_else(|| format!("{} is not an array", k))
}

fn json_strings(v: &Value, k: &str) -> std::result::Result<Vec<String>, String> {
    json_array(v, k)?.iter().map(|x| x.as_str().map(String::from).ok_or_else(|| format!("{} holds a non-string", k))).collect()
}

impl SegmentMeta {
    /// The `segment.json` of segment directory `dir`.
    pub fn read(dir: &Path) -> Result<SegmentMeta> {
        let corrupt = |e: String| EngineError::Corrupt(format!("{}: {}", dir.display(), e));
        let v: Value = serde_json::from_slice(&std::fs::read(dir.join("segment.json"))?).map_err(|e| corrupt(e.to_string()))?;
        SegmentMeta::from_json(&v).map_err(corrupt)
    }

    /// Every field checked; the problem found, if any.
    pub fn from_json(v: &Value) -> std::result::Result<SegmentMeta, String> {
        if !v.is_object() {
            return Err("not a JSON object".into());
        }
        let format_version = json_u64(v, "format_version")?;
        if !readable_version(Some(format_version)) {
            return Err("unsupported format version".into());
        }
        let contexts = json_array(v, "contexts")?
            .iter()
            .map(|c| LineContext::from_json(c).ok_or_else(|| "bad line context".to_string()))
            .collect::<std::result::Result<_, _>>()?;
        let sources = match v.get("sources") {
            None => Vec::new(),
            Some(_) => json_array(v, "sources")?.iter().map(SourceMeta::from_json).collect::<std::result::Result<_, _>>()?,
        };
        let aliases = match v.get("aliases") {
            None => Vec::new(),
            Some(_) => json_array(v, "aliases")?.iter().map(Alias::from_json).collect::<std::result::Result<_, _>>()?,
        };
        Ok(SegmentMeta {
            format_version,
            id: json_str(v, "id")?,
            well: json_str(v, "well")?,
            parts: json_u32(v, "parts")?,
            records: json_u64(v, "records")?,
            fields: json_strings(v, "fields")?,
            created: json_str(v, "created")?,
            bad_lines: json_u64(v, "badLines")?,
            catalogue: json_key(v, "catalogue")?.clone(),
            contexts,
            sources,
            aliases,
        })
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "format_version": self.format_version, "id": self.id, "well": self.well, "parts": self.parts,
            "records": self.records, "fields": self.fields, "created": self.created, "badLines": self.bad_lines,
            "catalogue": self.catalogue,
            "contexts": self.contexts.iter().map(|c| c.to_json()).collect::<Vec<_>>(),
        });
        if !self.sources.is_empty() {
            v["sources"] = Value::Array(self.sources.iter().map(SourceMeta::to_json).collect());
        }
        if !self.aliases.is_empty() {
            v["aliases"] = Value::Array(self.aliases.iter().map(Alias::to_json).collect());
        }
        v
    }
}

impl SourceMeta {
    fn from_json(v: &Value) -> std::result::Result<SourceMeta, String> {
        let in_sources = |e: String| format!("sources: {}", e);
        Ok(SourceMeta {
            id: json_str(v, "id").map_err(in_sources)?,
            well: json_str(v, "well").map_err(in_sources)?,
            records: json_u64(v, "records").map_err(in_sources)?,
            start: json_u64(v, "start").map_err(in_sources)?,
            fields: json_strings(v, "fields").map_err(in_sources)?,
            created: json_str(v, "created").map_err(in_sources)?,
            bad_lines: json_u64(v, "badLines").map_err(in_sources)?,
            catalogue: json_key(v, "catalogue").map_err(in_sources)?.clone(),
        })
    }

    fn to_json(&self) -> Value {
        json!({
            "id": self.id, "well": self.well, "records": self.records, "start": self.start,
            "fields": self.fields, "created": self.created, "badLines": self.bad_lines, "catalogue": self.catalogue,
        })
    }
}

impl Alias {
    fn from_json(v: &Value) -> std::result::Result<Alias, String> {
        let in_aliases = |e: String| format!("aliases: {}", e);
        let part_docs = json_array(v, "parts")
            .map_err(in_aliases)?
            .iter()
            .map(|d| d.as_u64().and_then(|d| u32::try_from(d).ok()).ok_or_else(|| "aliases: parts holds a bad count".to_string()))
            .collect::<std::result::Result<_, _>>()?;
        Ok(Alias { id: json_str(v, "id").map_err(in_aliases)?, start: json_u64(v, "start").map_err(in_aliases)?, part_docs })
    }

    fn to_json(&self) -> Value {
        json!({ "id": self.id, "start": self.start, "parts": self.part_docs })
    }

    /// (global document number) of `<alias id>-<part>-<doc>`, if in range.
    pub fn locate(&self, part: usize, doc: u32) -> Option<u64> {
        let docs = *self.part_docs.get(part)?;
        if doc >= docs {
            return None;
        }
        Some(self.start + self.part_docs[..part].iter().map(|&d| d as u64).sum::<u64>() + doc as u64)
    }
}

/// One original ingest inside a segment: its data well and its documents, a contiguous
/// range of the segment's global document numbers (parts concatenated).
#[derive(Debug, Clone)]
pub struct SourceRange {
    /// The ingest's segment id (the source's id in `wells.log`).
    pub id: String,
    pub well: String,
    pub well_lower: String,
    pub start: u64,
    pub records: u64,
}

/// What a segment's line context needs to be rendered without allocating: its columns'
/// fields and, for CSV, the order of the keys of its raw record (a JSON object with sorted
/// keys, the last column winning a repeated name). Made once per segment (`Segment::open`) for `render::EntryWriter`.
pub struct ContextPlan {
    pub format: Format,
    pub delim: char,
    pub columns: Vec<Option<usize>>,
    /// CSV: (column, header as a JSON string) in key order.
    pub raw_keys: Vec<(usize, String)>,
}

impl ContextPlan {
    pub fn new(c: &LineContext) -> ContextPlan {
        let columns = c.columns().to_vec();
        let mut keys: Vec<(usize, &String)> = c.header.iter().enumerate().collect();
        // Stable: equal names keep their column order; the last one is kept.
        keys.sort_by(|a, b| a.1.cmp(b.1));
        let mut raw_keys: Vec<(usize, String)> = Vec::with_capacity(keys.len());
        for (i, (col, name)) in keys.iter().enumerate() {
            if keys.get(i + 1).map(|n| n.1 == *name).unwrap_or(false) {
                continue;
            }
            raw_keys.push((*col, serde_json::to_string(name).unwrap_or_default()));
        }
        ContextPlan { format: c.format, delim: c.delim, columns, raw_keys }
    }
}

pub struct Segment {
    pub meta: SegmentMeta,
    pub parts: Vec<Part>,
    pub records: u64,
    /// Global document number of each part's first document.
    pub part_start: Vec<u64>,
    /// The ingests in this segment, in document order (one for an unmerged segment).
    pub sources: Vec<SourceRange>,
    /// How each line context is rendered (`meta.contexts`, same order).
    pub plans: Vec<ContextPlan>,
    /// Per part, the ascending local document ranges of taken-down sources (`wells.log`),
    /// hidden from every read; all empty without takedowns.
    pub hidden: Vec<Vec<std::ops::Range<u32>>>,
    /// Records in `hidden`.
    pub hidden_records: u64,
}

impl Segment {
    pub fn open(dir: &Path) -> Result<Segment> {
        let meta = SegmentMeta::read(dir)?;
        let mut parts = Vec::with_capacity(meta.parts as usize);
        let contexts: Arc<[LineContext]> = meta.contexts.clone().into();
        for i in 0..meta.parts {
            parts.push(Part::open(&dir.join(format!("part-{}", i)), Arc::clone(&contexts))?);
        }
        let records = parts.iter().map(|p| p.docs as u64).sum();
        let mut part_start = Vec::with_capacity(parts.len());
        let mut acc = 0u64;
        for p in &parts {
            part_start.push(acc);
            acc += p.docs as u64;
        }
        let range = |id: &str, well: &str, start: u64, records: u64| SourceRange { id: id.to_string(), well: well.to_string(), well_lower: well.to_lowercase(), start, records };
        let sources = if meta.sources.is_empty() {
            vec![range(&meta.id, &meta.well, 0, records)]
        } else {
            meta.sources.iter().map(|s| range(&s.id, &s.well, s.start, s.records)).collect()
        };
        let plans = meta.contexts.iter().map(ContextPlan::new).collect();
        let hidden = vec![Vec::new(); parts.len()];
        Ok(Segment { meta, parts, records, part_start, sources, plans, hidden, hidden_records: 0 })
    }

    /// Applies the operators' well edits (`wells.log`, read by the engine): sources renamed,
    /// the document ranges of deleted sources hidden. On a freshly opened segment only.
    pub fn apply_edits(&mut self, deleted: &std::collections::HashSet<String>, renamed: &std::collections::HashMap<String, String>) {
        for s in &mut self.sources {
            if let Some(name) = renamed.get(&s.id) {
                s.well = name.clone();
                s.well_lower = name.to_lowercase();
            }
        }
        if !self.sources.iter().any(|s| deleted.contains(&s.id)) {
            return;
        }
        // Ranges by source, not by name: a deleted source's well may share its name with a
        // live one (ingested again after the takedown).
        let mut hidden_records = 0;
        for pi in 0..self.parts.len() {
            let ps = self.part_start[pi];
            let pe = ps + self.parts[pi].docs as u64;
            let mut out: Vec<std::ops::Range<u32>> = Vec::new();
            for s in self.sources.iter().filter(|s| deleted.contains(&s.id)) {
                let (a, b) = (s.start.max(ps), (s.start + s.records).min(pe));
                if a < b {
                    hidden_records += b - a;
                    let r = (a - ps) as u32..(b - ps) as u32;
                    match out.last_mut() {
                        Some(l) if l.end == r.start => l.end = r.end,
                        _ => out.push(r),
                    }
                }
            }
            self.hidden[pi] = out;
        }
        self.hidden_records = hidden_records;
    }

    /// Whether every record of the segment is taken down.
    pub fn all_hidden(&self) -> bool {
        self.hidden_records > 0 && self.hidden_records >= self.records
    }

    /// Whether document `doc` of part `part` belongs to a taken-down source.
    #[inline]
    pub fn is_hidden(&self, part: usize, doc: u32) -> bool {
        let h = &self.hidden[part];
        if h.is_empty() {
            return false;
        }
        let i = h.partition_point(|r| r.end <= doc);
        i < h.len() && h[i].start <= doc
    }

    /// Drops the taken-down documents of `part` from an ascending list.
    pub fn drop_hidden(&self, part: usize, docs: &mut Vec<u32>) {
        let h = &self.hidden[part];
        if h.is_empty() {
            return;
        }
        let mut k = 0usize;
        docs.retain(|&d| {
            while k < h.len() && h[k].end <= d {
                k += 1;
            }
            !(k < h.len() && h[k].start <= d)
        });
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_json_roundtrips_and_is_checked() {
        let ingest = json!({
            "format_version": 2, "id": "0mwrk27tmatkjs", "well": "Old A", "parts": 3, "records": 60,
            "fields": ["email", "password"], "created": "2026-11-22T08:08:47Z", "badLines": 2, "catalogue": { "date": "2019-05-01" },
            "contexts": [{ "format": "csv", "header": ["Mail", "Pass"], "delimiter": ";", "map": { "customcol": "vin" } }],
        });
        assert_eq!(SegmentMeta::from_json(&ingest).unwrap().to_json(), ingest);
        let mut merged = ingest.clone();
        merged["well"] = json!("");
        merged["catalogue"] = Value::Null;
        merged["sources"] = json!([{ "id": "a", "well": "Old A", "records": 60, "start": 0, "fields": ["email"], "created": "x", "badLines": 0, "catalogue": null }]);
        merged["aliases"] = json!([{ "id": "a", "start": 0, "parts": [50, 10] }]);
        let m = SegmentMeta::from_json(&merged).unwrap();
        assert_eq!(m.aliases[0].locate(1, 3), Some(53));
        assert_eq!(m.to_json(), merged);
        for (key, bad) in [("parts", json!("3")), ("format_version", json!(FORMAT_VERSION + 1)), ("contexts", json!([{ "format": "xml" }])), ("aliases", json!([{ "id": "a" }]))] {
            let mut v = merged.clone();
            v[key] = bad;
            assert!(SegmentMeta::from_json(&v).is_err(), "{} accepted", key);
        }
        let mut v = ingest.clone();
        v.as_object_mut().unwrap().remove("id");
        assert!(SegmentMeta::from_json(&v).is_err());
    }

    #[test]
    fn passwords_sharing_a_digest_prefix_are_told_apart() {
        // Two passwords whose SHA-1s share their first 4 bytes (the stored prefix), found
        // by trying numbers (a birthday search: about 80,000 on average).
        let mut seen: HashMap<Vec<u8>, String> = HashMap::new();
        let mut buf = Vec::new();
        let (a, b) = (0u32..)
            .find_map(|i| {
                let p = format!("pw{}", i);
                let h = crate::digest::sha1(p.as_bytes(), &mut buf);
                seen.insert(h[..4].to_vec(), p.clone()).map(|q| (q, p))
            })
            .unwrap();
        let hex = |p: &str| {
            let mut o = Vec::new();
            crate::digest::hex_into(&crate::digest::sha1(p.as_bytes(), &mut Vec::new()), &mut o);
            String::from_utf8(o).unwrap()
        };
        let (ha, hb) = (hex(&a), hex(&b));
        assert_eq!(ha[..8], hb[..8]);
        let dir = std::env::temp_dir().join(format!("leakwell-prefix-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut w = PartWriter::create(&dir).unwrap();
        for (i, pw) in [a.as_str(), b.as_str(), a.as_str()].iter().enumerate() {
            let bytes = pw.as_bytes();
            w.add_flat(bytes, &[(PASSWORD as u8, 0, bytes.len() as u32)], i as u64, 0, pw).unwrap();
        }
        assert_eq!(w.finish().unwrap(), 3);
        let part = Part::open(&dir, Arc::from(Vec::new())).unwrap();
        let fi = part.fields[PASSWORD_SHA1].as_ref().unwrap();
        assert_eq!(fi.dict.len(), 2);
        let lookup = |hex: &str, whole: bool| {
            let mut found = Vec::new();
            fi.hash_terms(part.fields[PASSWORD].as_ref(), hex.as_bytes(), whole, |o, t| {
                let mut docs = Vec::new();
                fi.postings_into(o, &mut docs);
                found.push((String::from_utf8(t.to_vec()).unwrap(), docs));
                Ok(())
            })
            .unwrap();
            found.sort();
            found
        };
        assert_eq!(lookup(&ha, true), vec![(ha.clone(), vec![0, 2])]);
        assert_eq!(lookup(&hb, true), vec![(hb.clone(), vec![1])]);
        let mut both = vec![(ha.clone(), vec![0, 2]), (hb.clone(), vec![1])];
        both.sort();
        assert_eq!(lookup(&ha[..8], false), both);
        assert_eq!(lookup(&ha[..5], false), both);
        // Past the stored prefix, a range tells them apart where their digests differ.
        let at = (8..40).find(|&i| ha.as_bytes()[i] != hb.as_bytes()[i]).unwrap();
        assert_eq!(lookup(&ha[..at + 1], false), vec![(ha.clone(), vec![0, 2])]);
        assert_eq!(lookup(&hb[..at + 1], false), vec![(hb.clone(), vec![1])]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A part's order (`PartOrder`): each popular password's records together, the rest by
    /// username, else email, else the input's order; postings, dedup keys and stored lines
    /// all follow it, and equal keys keep the input's order (so a duplicate's first record
    /// stays first).
    #[test]
    fn a_part_orders_its_records_and_everything_follows() {
        let dir = std::env::temp_dir().join(format!("leakwell-order-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut w = PartWriter::create(&dir).unwrap();
        let n = 3000usize;
        // Input record i: its line names i; every 10th has the popular password (300
        // records, over 64 and 1/1024 of the part); "pw7" is in 40 records (under 64: not
        // a group); i % 5 == 1 has no username, and i % 15 == 1 no email either.
        let record = |i: usize| {
            let user = (i % 5 != 1).then(|| format!("user{:04}", (i * 7919) % 1000));
            let email = (i % 15 != 1).then(|| format!("e{:04}@mail.test", (i * 104_729) % 997));
            let pw = if i % 10 == 0 { "123456".to_string() } else if i % 75 == 3 { "pw7".to_string() } else { format!("pw-{}", i) };
            (user, email, pw)
        };
        for i in 0..n {
            let (user, email, pw) = record(i);
            let mut bytes = Vec::new();
            let mut vals = Vec::new();
            for (f, v) in [(EMAIL, email.clone()), (USERNAME, user.clone()), (PASSWORD, Some(pw.clone()))] {
                if let Some(v) = v {
                    vals.push((f as u8, bytes.len() as u32, (bytes.len() + v.len()) as u32));
                    bytes.extend_from_slice(v.as_bytes());
                }
            }
            w.add_flat(&bytes, &vals, 1_000_000 + i as u64, 0, &format!("{}", i)).unwrap();
        }
        assert_eq!(w.finish().unwrap(), n as u32);
        let part = Part::open(&dir, Arc::from(Vec::new())).unwrap();
        // Document d holds input record `input[d]`: its stored line, and its dedup key.
        let input: Vec<usize> = (0..n as u32)
            .map(|d| {
                let block = part.store.block_holding(d).unwrap();
                let i: usize = std::str::from_utf8(block.record(d).unwrap().1).unwrap().parse().unwrap();
                assert_eq!(part.dedup_key(d).unwrap(), 1_000_000 + i as u64, "document {}: its record's dedup key", d);
                i
            })
            .collect();
        let mut every = input.clone();
        every.sort();
        assert_eq!(every, (0..n).collect::<Vec<_>>(), "every record stored once");
        let docs_of = |f: usize, term: &str| {
            let fi = part.fields[f].as_ref().unwrap();
            let ord = fi.dict.get(term.as_bytes()).unwrap();
            let mut docs = Vec::new();
            fi.postings_into(ord, &mut docs);
            docs
        };
        // The popular password's 300 records are one run of documents, in the order of
        // their usernames (else emails, else input).
        let popular = docs_of(PASSWORD, "123456");
        assert_eq!(popular.len(), 300);
        assert!(popular.windows(2).all(|w| w[1] == w[0] + 1), "one run: {:?}", &popular[..10]);
        // Postings name the right records, in every field.
        for d in [0u32, 1, 299, 300, 1500, 2999] {
            let i = input[d as usize];
            let (user, email, pw) = record(i);
            assert!(docs_of(PASSWORD, &pw).contains(&d));
            if let Some(u) = user {
                assert!(docs_of(USERNAME, &u).contains(&d));
            }
            if let Some(e) = email {
                assert!(docs_of(EMAIL, &e).contains(&d));
            }
        }
        let pw7 = docs_of(PASSWORD, "pw7");
        assert_eq!(pw7.len(), 40);
        assert!(!pw7.windows(2).all(|w| w[1] == w[0] + 1), "under 64 records: not a group");
        // Outside the group: records with neither a username nor an email first, then by
        // username, else email; ties (equal keys) in the input's order.
        let key = |i: usize| {
            let (user, email, _) = record(i);
            user.or(email).unwrap_or_default()
        };
        let rest: Vec<usize> = input.iter().copied().filter(|&i| i % 10 != 0).collect();
        assert_eq!(rest.len(), n - 300);
        for w in rest.windows(2) {
            let (a, b) = (key(w[0]), key(w[1]));
            assert!(a < b || (a == b && w[0] < w[1]), "{} ({}) before {} ({})", w[0], a, w[1], b);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn parts_have_derived_password_tables() {
        let dir = std::env::temp_dir().join(format!("leakwell-derived-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut w = PartWriter::create(&dir).unwrap();
        for (i, pw) in ["password", "abc", "password"].iter().enumerate() {
            let bytes = pw.as_bytes();
            w.add_flat(bytes, &[(PASSWORD as u8, 0, bytes.len() as u32)], i as u64, 0, pw).unwrap();
        }
        assert_eq!(w.finish().unwrap(), 3);
        let part = Part::open(&dir, Arc::from(Vec::new())).unwrap();
        let pw = part.fields[PASSWORD].as_ref();
        // Terms (hex, as `hash_terms` gives them) and documents of a lookup.
        let lookup = |f: usize, hex: &str, whole: bool| {
            let fi = part.fields[f].as_ref().unwrap();
            let (mut terms, mut docs) = (Vec::new(), Vec::new());
            fi.hash_terms(pw, hex.as_bytes(), whole, |o, t| {
                terms.push(String::from_utf8(t.to_vec()).unwrap());
                fi.postings_into(o, &mut docs);
                Ok(())
            })
            .unwrap();
            (terms, docs)
        };
        let docs_of = |f: usize, hex: &str| lookup(f, hex, true).1;
        assert_eq!(docs_of(PASSWORD_SHA256, "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"), vec![0, 2]);
        assert_eq!(docs_of(PASSWORD_SHA1, "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8"), vec![0, 2]);
        assert_eq!(docs_of(PASSWORD_SHA256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), vec![1]);
        assert_eq!(docs_of(PASSWORD_SHA1, "a9993e364706816aba3e25717850c26c9cd0d89d"), vec![1]);
        assert_eq!(part.fields[PASSWORD_SHA256].as_ref().unwrap().dict.len(), 2);
        // Format 4: password ordinals instead of copied postings; 5: binary digests; 6: their
        // first 4 bytes after an 8-byte header.
        assert!(dir.join("password_sha256.pord").exists() && !dir.join("password_sha256.post").exists());
        assert_eq!(std::fs::metadata(dir.join("password_sha256.dig")).unwrap().len(), 8 + 2 * 4);
        assert_eq!(std::fs::metadata(dir.join("password_sha1.dig")).unwrap().len(), 8 + 2 * 4);
        assert!(!dir.join("password_sha256.terms").exists() && !dir.join("password_sha1.tix").exists());
        // Prefixes of any length (odd too, longer than the stored 4 bytes too), whole
        // digests back out, and non-hex or wrong lengths.
        let sha1 = "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8";
        let abc = "a9993e364706816aba3e25717850c26c9cd0d89d";
        let terms = |hex: &str| lookup(PASSWORD_SHA1, hex, false).0;
        assert_eq!(terms("5baa6"), vec![sha1]);
        assert_eq!(terms("5"), vec![sha1]);
        assert_eq!(terms(""), vec![sha1, abc]);
        assert_eq!(terms("a"), vec![abc]);
        assert_eq!(terms("a9993e364706816aba3e25717850c26c9cd0d89"), vec![abc]);
        assert_eq!(terms("a9993e364706816aba3e25717850c26c9cd0d88").len(), 0, "past the stored prefix: confirmed by hashing");
        assert_eq!(terms("a9993e36f"), Vec::<String>::new());
        assert_eq!(terms("b").len(), 0);
        assert_eq!(terms("4").len(), 0);
        assert_eq!(terms(sha1), vec![sha1]);
        assert_eq!(terms("5baa61e4c9b93f3f0682250b6cf8331b7ee68fd80").len(), 0);
        assert_eq!(terms("5bxa").len(), 0);
        assert_eq!(lookup(PASSWORD_SHA1, &sha1[..39], true).0.len(), 0);
        assert_eq!(lookup(PASSWORD_SHA1, "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd9", true).0.len(), 0, "same prefix, another digest");
        assert_eq!(lookup(PASSWORD_SHA1, &sha1.to_uppercase(), true).0.len(), 0, "the engine lower-cases first");
        assert_eq!(lookup(PASSWORD_SHA256, "5e884898", true).0.len(), 0);
        assert!(part.fields[PASSWORD_SHA1].as_ref().unwrap().tri.is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
