//! Writing a part: terms posted into arena-backed maps, the part's record order, its fields, store and derived password tables.

use super::*;

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
pub(super) struct ArenaKey(*const u8, u32);
unsafe impl Send for ArenaKey {}
impl ArenaKey {
    #[inline]
    pub(super) fn bytes(&self) -> &[u8] {
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
pub(super) struct Arena {
    pub(super) chunks: Vec<Vec<u8>>,
}
impl Arena {
    pub(super) fn put(&mut self, t: &[u8]) -> ArenaKey {
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
pub(super) struct FieldTerms {
    // Declared before `arena`: dropped first.
    pub(super) ids: HashMap<ArenaKey, u32, BuildHasherDefault<TermHasher>>,
    pub(super) arena: Arena,
    pub(super) pairs: Vec<u64>,
}

/// A part's lines, kept until its flush stores them in the part's order: `(context, end in
/// bytes)` per line.
#[derive(Default)]
pub(super) struct Lines {
    pub(super) bytes: Vec<u8>,
    pub(super) recs: Vec<(u16, usize)>,
}

pub struct PartWriter {
    pub(super) dir: PathBuf,
    /// The part's lines, stored at `finish` in the part's order (`PartOrder`).
    pub(super) lines: Lines,
    pub(super) order: PartOrder,
    pub(super) terms: Vec<FieldTerms>,
    pub(super) dedup: Vec<u8>,
    pub(super) docs: u32,
    pub present: [bool; FIELD_COUNT],
}

/// Bytes of a record's username (else its email) that order the records of a part.
pub(super) const ORDER_KEY_BYTES: usize = 16;
/// A password is a part's own group when it is at least this share of the part's records
/// (1/1024: a password with a page of 10,000 per 10M records) and at least `GROUP_MIN` of them.
pub(super) const GROUP_SHARE: u32 = 1024;
pub(super) const GROUP_MIN: u32 = 64;

/// The order a part's records are numbered and stored in (not the input's): the records of
/// each of the part's popular passwords together, then every other record by username, or
/// email when it has none (their first `ORDER_KEY_BYTES`), the input's order breaking ties.
/// A page of 10,000 entries of a popular password or a username or email prefix then reads
/// a few hundred store blocks instead of one block per entry (a scattered page decodes one
/// 1 KiB zstd block per entry: BENCHMARKS.md, "10M records: every target"); similar lines side
/// by side also compress better. Readers do not depend on the order: a part's documents
/// are numbered in it, and merges copy parts' blocks as they are, keeping it.
#[derive(Default)]
pub(super) struct PartOrder {
    /// Per record: its username's or email's first bytes, and its first password's term
    /// number (`u32::MAX`: none).
    pub(super) keys: Vec<([u8; ORDER_KEY_BYTES], u32)>,
}

impl PartOrder {
    /// The part's records in the part's order: the input number of each document.
    pub(super) fn order(&self, passwords: usize) -> Vec<u32> {
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
pub fn each_on_two_threads<T: Send>(items: Vec<T>, what: &str, f: impl Fn(T) -> Result<()> + Sync) -> Result<()> {
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
    pub(super) fn post_bytes(&mut self, field: usize, term: &[u8], doc: u32) -> u32 {
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
        // then the fields: writing the store beside the field writers costs more CPU (their
        // working sets compete for the caches; BENCHMARKS.md, "10M records: every target").
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
pub(super) fn write_field(dir: &Path, i: usize, ft: FieldTerms) -> Result<()> {
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

/// The derived password tables of a part, from its written `password` table:
/// `password_sha256`, `password_sha1` and `password_ntlm`, the SHA-256, SHA-1 and NTLM
/// prefixes of every distinct password term with its ordinal (`write_hashed`). Called when
/// an ingest flushes a part (on its flush thread) and after a merge that left taken-down
/// records out wrote its `password` table (other merges merge their inputs' tables:
/// `write_derived_merged`, or derive one that a source part lacks: `write_derived_tables`).
pub fn write_derived(dir: &Path) -> Result<()> {
    write_derived_tables(dir, &DERIVED_TABLES.map(|(f, _)| f))
}

/// The derived tables `fields` (of `DERIVED_TABLES`) of a part, hashed from its `password`
/// table; nothing when the part has none.
pub fn write_derived_tables(dir: &Path, fields: &[usize]) -> Result<()> {
    let Some(pw) = FieldIndex::open(dir, index_name(PASSWORD))? else { return Ok(()) };
    // One table at a time: the binary digests (hex sorts as they do) and term ordinals.
    for &f in fields {
        match f {
            PASSWORD_SHA256 => write_hashed(dir, f, hash_all(&pw, crate::digest::sha256)?)?,
            PASSWORD_SHA1 => write_hashed(dir, f, hash_all(&pw, crate::digest::sha1)?)?,
            PASSWORD_NTLM => write_hashed(dir, f, hash_all(&pw, crate::digest::ntlm)?)?,
            _ => return Err(EngineError::Internal(format!("{} is not a derived password table", index_name(f)))),
        }
    }
    Ok(())
}

/// The digest of every term of the `password` table `pw`, with its ordinal.
fn hash_all<const N: usize>(pw: &FieldIndex, hash: fn(&[u8]) -> [u8; N]) -> Result<Vec<([u8; N], u32)>> {
    let n = pw.dict.len();
    let mut out = Vec::with_capacity(n);
    pw.dict.for_each(0..n as u32, |ord, t| {
        out.push((hash(t), ord));
        Ok(())
    })?;
    Ok(out)
}

pub(super) fn write_hashed<const N: usize>(dir: &Path, field: usize, mut hashes: Vec<([u8; N], u32)>) -> Result<()> {
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

/// A derived password table of a merged part from the sources' (`.dig` and `.pord`): each
/// source's table and the merged ordinal of each of its passwords. A digest in several
/// sources is one password, so one merged ordinal: kept once. Returns without writing when
/// no source has the table.
pub fn write_derived_merged(dir: &Path, field: usize, ins: &[(&FieldIndex, &[u32])]) -> Result<()> {
    let Some(&(_, whole)) = DERIVED_TABLES.iter().find(|(f, _)| *f == field) else {
        return Err(EngineError::Internal(format!("{} is not a derived password table", index_name(field))));
    };
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
