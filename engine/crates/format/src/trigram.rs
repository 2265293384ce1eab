//! Trigram index over one field's distinct terms (format 2): for each 3-byte sequence
//! occurring in a term, the sorted list of term *blocks* (`GRAIN` consecutive ordinals)
//! holding a term that contains it. Infix wildcards and regexes with required literals
//! intersect the lists of their literals' trigrams and verify only the terms of the
//! surviving blocks with the real check (memmem / automaton), instead of scanning every
//! distinct term. Blocks rather than ordinals: about half the size for a few more
//! verifications (terms are short).
//!
//! `<field>.tri`: u32 n, u32 grain; n u32 trigram keys (ascending, `b0<<16|b1<<8|b2`);
//! n+1 u32 offsets into the postings area; the postings area: per key, the block numbers
//! as LEB128 varints of the gaps (the first one absolute). All little-endian.
//! Format 4: a key with bit 31 set (`BITMAP`) has a bitmap instead (bit b of byte b/8 set
//! when block b holds the trigram), written when that is smaller than the gaps: a trigram in
//! more than about an eighth of the blocks (`com`, `gma`, `il.` in emails). Such lists are
//! the largest, and intersecting with one is a bit test per candidate.
//! Format 7: a key with bit 30 set (`RICE`) has its gaps Rice-coded instead (`rice_encode`),
//! written when that is smaller than the varints: most gaps are 3-11 bits, which a varint
//! rounds up to 8 or 16; Rice spends about log2 of the list's mean gap plus 2 bits a gap.

use crate::bytes::Bytes;
use crate::error::{EngineError, Result};
use crate::fields::{ADDRESS, COMPANY, DOMAIN, EMAIL, EMAIL_DOMAIN, NAME, PASSWORD};
use crate::keys::IntHasher;
use crate::postings::{decode_into, intersect, put_varint, u64_le, varint_at, BitWriter};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// Consecutive term ordinals per indexed block of field `field` (a multiple of the term
/// tables' `.tix` step, 8; the file records it and readers take the file's). 32 for the
/// fields whose infix searches stay within their targets with it (username, url, social,
/// domains, company): their lists take markedly less room; 8 for `email` (its infix class
/// is held to 10× PostgreSQL) and for `name`, `address` and `password`, whose infix searches
/// a grain of 32 makes several times slower (a common trigram's list covering more than a
/// quarter of the blocks falls back to a scan of the whole table, and each candidate block
/// verifies 4× the terms).
pub fn grain(field: usize) -> u32 {
    if matches!(field, EMAIL | NAME | ADDRESS | PASSWORD) {
        8
    } else {
        32
    }
}

/// Flag of a key (bit 31, above the 24 bits of a trigram) whose list is a bitmap of blocks.
const BITMAP: u32 = 1 << 31;

/// Flag of a key (bit 30, format 7) whose list is Rice-coded (`rice_encode`).
const RICE: u32 = 1 << 30;

/// A key's trigram without its flags.
const KEY: u32 = (1 << 24) - 1;

/// Fields with a trigram index: free text where infix searches are common. Dense
/// low-alphabet fields (hashes, IPs, phones, dates) gain little from it and are scanned.
pub fn has_trigrams(field: usize) -> bool {
    matches!(field, EMAIL | 1 /* username */ | PASSWORD | NAME | ADDRESS | COMPANY | 12 /* url */ | 13 /* social */ | DOMAIN | EMAIL_DOMAIN)
}

#[inline]
fn key(t: &[u8]) -> u32 {
    (t[0] as u32) << 16 | (t[1] as u32) << 8 | t[2] as u32
}

/// Build `<field>.tri` of field number `field` from its sorted terms (and, for `email`,
/// `email.ltri`: `write_local`).
pub fn write<'a>(dir: &Path, field: usize, sorted_terms: impl Iterator<Item = &'a [u8]>) -> Result<()> {
    if field == EMAIL {
        return write_local(dir, crate::fields::index_name(field), sorted_terms, grain(field), LOCAL_SHARE);
    }
    write_grain(dir, crate::fields::index_name(field), sorted_terms, grain(field))
}

/// `write` with blocks of `grain` term ordinals (readers take the file's).
pub fn write_grain<'a>(dir: &Path, field: &str, sorted_terms: impl Iterator<Item = &'a [u8]>, grain: u32) -> Result<()> {
    let mut lists = Lists::new();
    let mut terms = 0usize;
    for (ord, t) in sorted_terms.enumerate() {
        terms = ord + 1;
        lists.add(t, ord as u32 / grain);
    }
    lists.write(&dir.join(format!("{}.tri", field)), grain, terms, |_| true)
}

/// `.ltri` keeps a trigram whose domain-only blocks (holding it in no local part) are more
/// than 1/`LOCAL_SHARE` of the part's blocks: a few hundred trigrams a part, a fraction of
/// the room of every trigram found in a domain, and far less than a whole index of the
/// local parts would take.
pub const LOCAL_SHARE: u32 = 64;

/// `write_grain` for the emails, plus `<field>.ltri` (format 11): the trigrams of the local
/// parts (`fields::email_local`) in the same blocks, for `email:*lit*` with a literal
/// without `@`, which lies wholly in a local part or in a domain (the `email_domain` table
/// answers the domains). Only the trigrams that domains make much more common than the
/// local parts do are kept (`share`: domain-only blocks more than 1/`share` of all, like
/// `gma`, `com`, `hoo`), with their exact local lists (possibly empty); for any other
/// trigram the `.tri` list is the local list or close to it (a trigram without `@` found
/// in no domain lies in local parts only). So the candidates of `*gmail*` are the few
/// blocks with a local part holding `gma`, `mai` and `ail`, not every block with a gmail
/// address.
pub fn write_local<'a>(dir: &Path, field: &str, sorted_terms: impl Iterator<Item = &'a [u8]>, grain: u32, share: u32) -> Result<()> {
    let (mut all, mut local) = (Lists::new(), Lists::new());
    let mut terms = 0usize;
    for (ord, t) in sorted_terms.enumerate() {
        terms = ord + 1;
        all.add(t, ord as u32 / grain);
        local.add(crate::fields::email_local(t), ord as u32 / grain);
    }
    let blocks = (terms as u64 + grain as u64 - 1) / grain as u64;
    let mut kept: Vec<u32> = Vec::new();
    for s in &all.slots {
        let in_local = local.slot(s.key).map(|l| local.slots[l as usize].count).unwrap_or(0);
        if u64::from(s.count - in_local) * u64::from(share) > blocks {
            kept.push(s.key);
            local.slot_or_new(s.key);
        }
    }
    kept.sort_unstable();
    all.write(&dir.join(format!("{}.tri", field)), grain, terms, |_| true)?;
    local.write(&dir.join(format!("{}.ltri", field)), grain, terms, |k| kept.binary_search(&k).is_ok())
}

/// One trigram's list being built: the last block added, the number of blocks and the
/// blocks as varint gaps.
struct Slot {
    key: u32,
    last: u32,
    count: u32,
    gaps: Vec<u8>,
}

/// The trigram lists of a term table being built (`write_grain`).
struct Lists {
    /// trigram -> slot in `slots`: a direct table for ASCII trigrams (2^21 entries), a hash
    /// map for the others.
    ascii: Vec<u32>,
    other: HashMap<u32, u32, std::hash::BuildHasherDefault<IntHasher>>,
    slots: Vec<Slot>,
}

impl Lists {
    fn new() -> Lists {
        Lists { ascii: vec![u32::MAX; 1 << 21], other: HashMap::default(), slots: Vec::new() }
    }

    #[inline]
    fn ascii_index(k: u32) -> Option<usize> {
        (k & 0x80_8080 == 0).then_some(((k >> 16) as usize) << 14 | ((k >> 8 & 0x7f) as usize) << 7 | (k & 0x7f) as usize)
    }

    /// The slot of trigram key `k`, if any.
    fn slot(&self, k: u32) -> Option<u32> {
        match Self::ascii_index(k) {
            Some(i) => Some(self.ascii[i]).filter(|&s| s != u32::MAX),
            None => self.other.get(&k).copied(),
        }
    }

    /// The slot of trigram key `k`, made empty when new.
    #[inline]
    fn slot_or_new(&mut self, k: u32) -> u32 {
        let n = self.slots.len() as u32;
        let s = match Self::ascii_index(k) {
            Some(i) => {
                if self.ascii[i] == u32::MAX {
                    self.ascii[i] = n;
                }
                self.ascii[i]
            }
            None => *self.other.entry(k).or_insert(n),
        };
        if s == n {
            self.slots.push(Slot { key: k, last: u32::MAX, count: 0, gaps: Vec::new() });
        }
        s
    }

    /// Every trigram of term `t`, in block `block` (blocks come in ascending order).
    #[inline]
    fn add(&mut self, t: &[u8], block: u32) {
        if t.len() < 3 {
            return;
        }
        for w in t.windows(3) {
            let slot = self.slot_or_new(key(w));
            let e = &mut self.slots[slot as usize];
            if e.last == block {
                continue;
            }
            let gap = if e.last == u32::MAX { block } else { block - e.last };
            e.last = block;
            e.count += 1;
            put_varint(gap, &mut e.gaps);
        }
    }

    /// Writes the lists of the trigrams that `keep` takes as a `.tri` file at `path`, for a
    /// table of `terms` terms in blocks of `grain`.
    fn write(self, path: &Path, grain: u32, terms: usize, keep: impl Fn(u32) -> bool) -> Result<()> {
        let Lists { ascii, slots, .. } = self;
        drop(ascii);
        let mut slots: Vec<(u32, Vec<u8>)> = slots.into_iter().filter(|s| keep(s.key)).map(|s| (s.key, s.gaps)).collect();
        slots.sort_unstable_by_key(|s| s.0);
        // Dense lists as bitmaps, when smaller.
        let bitmap_len = (terms + grain as usize - 1) / grain as usize / 8 + 1;
        // The others Rice-coded, when smaller (the choice of bitmaps is format 4's, so that
        // the dense lists are still tested bit by bit).
        let mut blocks = Vec::new();
        let mut rice = Vec::new();
        for s in slots.iter_mut().filter(|s| s.1.len() > 2.min(bitmap_len)) {
            blocks.clear();
            decode_into(&s.1, &mut blocks);
            if s.1.len() > bitmap_len {
                let mut bits = vec![0u8; bitmap_len];
                for &b in &blocks {
                    bits[b as usize / 8] |= 1 << (b % 8);
                }
                s.0 |= BITMAP;
                s.1 = bits;
            } else if blocks.len() > 2 {
                rice.clear();
                rice_encode(&blocks, &mut rice);
                if rice.len() < s.1.len() {
                    s.0 |= RICE;
                    std::mem::swap(&mut s.1, &mut rice);
                }
            }
        }
        let n = slots.len();
        let mut head = Vec::with_capacity(8 + n * 8 + 4);
        head.extend_from_slice(&(n as u32).to_le_bytes());
        head.extend_from_slice(&grain.to_le_bytes());
        for s in &slots {
            head.extend_from_slice(&s.0.to_le_bytes());
        }
        let mut pos = 0u64;
        for s in &slots {
            head.extend_from_slice(&(pos as u32).to_le_bytes());
            pos += s.1.len() as u64;
        }
        if pos > u32::MAX as u64 {
            return Err(EngineError::InvalidArgument(format!("{}: trigram index over 4 GiB in one part; lower partRecords", path.display())));
        }
        head.extend_from_slice(&(pos as u32).to_le_bytes());
        let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
        f.write_all(&head)?;
        for s in &slots {
            f.write_all(&s.1)?;
        }
        f.flush()?;
        Ok(())
    }
}

/// Rice code of ascending `blocks` (at least one), its two parts apart: u8 k; LEB128
/// varints of the count and of the first block; then, for each next block, its gap minus
/// one, x: first the k low bits of every x, packed (bit 0 of each byte first, the last byte
/// padded with zeros); then, for every x, `x >> k` zero bits and a one bit, packed the same
/// way. k is the one of floor(log2(mean x)) - 1 to + 1 (0 to 24) that writes least. Apart,
/// a value's low bits are at a known place and the ones of the unary parts are found a
/// machine word at a time, so decoding carries no bit position from one value to the next.
fn rice_encode(blocks: &[u32], out: &mut Vec<u8>) {
    let gaps = || blocks.windows(2).map(|w| w[1] - w[0] - 1);
    let n = (blocks.len() - 1) as u64;
    let mean = gaps().map(u64::from).sum::<u64>() / n.max(1);
    let k0 = 63 - (mean | 1).leading_zeros() as i32;
    // The three candidates' costs in one pass.
    let ks: Vec<u32> = (k0 - 1..=k0 + 1).filter(|&k| (0..=24).contains(&k)).map(|k| k as u32).collect();
    let mut high = [0u64; 3];
    for x in gaps() {
        for (h, &k) in high.iter_mut().zip(&ks) {
            *h += u64::from(x >> k);
        }
    }
    let k = ks.iter().zip(high).min_by_key(|&(&k, h)| h + n * u64::from(k + 1)).map(|(&k, _)| k).unwrap_or(0);
    out.push(k as u8);
    put_varint(blocks.len() as u32, out);
    put_varint(blocks[0], out);
    let mut w = BitWriter::default();
    for x in gaps() {
        w.put(u64::from(x) & ((1 << k) - 1), k, out);
    }
    w.flush(out);
    for x in gaps() {
        let mut q = x >> k;
        while q >= 32 {
            w.put(0, 32, out);
            q -= 32;
        }
        w.put(1 << q, q + 1, out);
    }
    w.flush(out);
}

/// Appends the blocks of a `rice_encode` list to `out` (as many as it holds when cut short).
fn rice_decode(r: &[u8], out: &mut Vec<u32>) {
    let Some(&k) = r.first() else { return };
    let k = u32::from(k).min(24);
    let mut i = 1;
    let n = varint_at(r, &mut i).min(r.len() * 8 + 1);
    let mut v = varint_at(r, &mut i) as u32;
    if n == 0 {
        return;
    }
    let low = &r[i..];
    let high = &low[(((n - 1) * k as usize + 7) / 8).min(low.len())..];
    out.reserve(n);
    out.push(v);
    let mask = (1u64 << k) - 1;
    let mut left = n - 1;
    // Bit position (in the unary parts) of the last one bit read, plus one; bit position of
    // the next low bits.
    let (mut next, mut b) = (0u64, 0usize);
    for (wi, chunk) in high.chunks(8).enumerate() {
        let mut w = u64_le(chunk, 0);
        let base = wi as u64 * 64;
        while w != 0 && left > 0 {
            let p = base + u64::from(w.trailing_zeros());
            w &= w - 1;
            let lo = u64_le(low, b / 8) >> (b % 8) & mask;
            b += k as usize;
            v = v.wrapping_add((((p - next) << k) | lo) as u32).wrapping_add(1);
            next = p + 1;
            out.push(v);
            left -= 1;
        }
        if left == 0 {
            break;
        }
    }
}

pub struct TrigramIndex {
    b: Bytes,
    n: usize,
    pub grain: u32,
}

impl TrigramIndex {
    pub fn open(dir: &Path, field: &str) -> Result<Option<TrigramIndex>> {
        Self::open_file(&dir.join(format!("{}.tri", field)))
    }

    /// `<field>.ltri` (format 11, `email` only: `write_local`).
    pub fn open_local(dir: &Path, field: &str) -> Result<Option<TrigramIndex>> {
        Self::open_file(&dir.join(format!("{}.ltri", field)))
    }

    fn open_file(p: &Path) -> Result<Option<TrigramIndex>> {
        if !p.exists() {
            return Ok(None);
        }
        let b = Bytes::open(p)?;
        if b.len() < 12 {
            return Err(EngineError::Corrupt(format!("{}: too short", p.display())));
        }
        let n = b.u32_at(0) as usize;
        let grain = b.u32_at(1);
        let post_start = 8 + n * 8 + 4;
        if grain == 0 || b.len() < post_start || b.len() - post_start != b.u32_at(2 + 2 * n) as usize {
            return Err(EngineError::Corrupt(format!("{}: bad lengths", p.display())));
        }
        Ok(Some(TrigramIndex { b, n, grain }))
    }

    /// The block list of trigram `t` (empty gaps when no term contains it).
    fn list(&self, t: &[u8]) -> List<'_> {
        self.find(t).unwrap_or(List::Gaps(&[]))
    }

    /// The block list of trigram `t`, `None` when the file has no entry for it.
    fn find(&self, t: &[u8]) -> Option<List<'_>> {
        let k = key(t);
        let (mut lo, mut hi) = (0usize, self.n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.b.u32_at(2 + mid) & KEY < k {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo >= self.n || self.b.u32_at(2 + lo) & KEY != k {
            return None;
        }
        let base = 8 + self.n * 8 + 4;
        let s = self.b.u32_at(2 + self.n + lo) as usize;
        let e = self.b.u32_at(2 + self.n + lo + 1) as usize;
        let bytes = &self.b[base + s..base + e];
        let flags = self.b.u32_at(2 + lo);
        Some(if flags & BITMAP != 0 {
            List::Bits(bytes)
        } else if flags & RICE != 0 {
            List::Rice(bytes)
        } else {
            List::Gaps(bytes)
        })
    }

    /// Blocks (ascending) that may hold a term containing every literal, or `None` when
    /// the lists are too unselective to beat a scan (more than `max_blocks` candidates).
    pub fn candidates(&self, literals: &[Vec<u8>], blocks: std::ops::Range<u32>, max_blocks: usize) -> Option<Vec<u32>> {
        intersect_lists(trigrams(literals).iter().map(|t| self.list(t)).collect(), blocks, max_blocks)
    }

    /// `candidates` for terms whose local part holds every literal (`email:*lit*` with a
    /// literal without `@`): this `.tri`'s lists, but `local`'s (`.ltri`) where it has one.
    /// `None` also when the two files' grains differ (none this engine writes).
    pub fn local_candidates(&self, local: &TrigramIndex, literals: &[Vec<u8>], blocks: std::ops::Range<u32>, max_blocks: usize) -> Option<Vec<u32>> {
        if local.grain != self.grain {
            return None;
        }
        intersect_lists(trigrams(literals).iter().map(|t| local.find(t).unwrap_or_else(|| self.list(t))).collect(), blocks, max_blocks)
    }
}

/// The distinct trigrams of `literals`.
fn trigrams(literals: &[Vec<u8>]) -> Vec<&[u8]> {
    let mut tris: Vec<&[u8]> = Vec::new();
    for l in literals {
        for w in l.windows(3) {
            if !tris.contains(&w) {
                tris.push(w);
            }
        }
    }
    tris
}

/// The blocks in `blocks` on every list of `lists` (see `TrigramIndex::candidates`).
fn intersect_lists(mut lists: Vec<List>, blocks: std::ops::Range<u32>, max_blocks: usize) -> Option<Vec<u32>> {
    if lists.is_empty() {
        return None;
    }
    // Encoded length approximates the count: intersect from the shortest.
    lists.sort_by_cached_key(|l| l.count());
    if let List::Gaps(&[]) = lists[0] {
        return Some(vec![]);
    }
    let mut acc = Vec::new();
    lists[0].decode_into(&mut acc);
    if blocks.start > 0 || blocks.end < u32::MAX {
        acc.retain(|b| blocks.contains(b));
    }
    // Even the rarest trigram is everywhere: the intersection will not get under the
    // cap, the caller scans.
    if acc.len() > 8 * max_blocks {
        return None;
    }
    let mut next = Vec::new();
    // The three rarest trigrams select about as well as all of them, for less decoding.
    for l in lists.iter().skip(1).take(2) {
        if acc.is_empty() {
            break;
        }
        // A bit test per candidate.
        if let List::Bits(bits) = l {
            acc.retain(|&b| bits.get(b as usize / 8).map(|x| x >> (b % 8) & 1 == 1).unwrap_or(false));
            continue;
        }
        // Decoding a list much longer than the candidate set costs more than verifying
        // the few candidates it would remove (every candidate is verified anyway).
        if l.count() > 8 * acc.len() {
            break;
        }
        next.clear();
        l.decode_into(&mut next);
        acc = intersect(&acc, &next);
    }
    if acc.len() > max_blocks {
        return None;
    }
    Some(acc)
}

/// A trigram's blocks: LEB128 gaps, a bitmap (format 4, dense lists) or Rice-coded gaps
/// (format 7).
enum List<'a> {
    Gaps(&'a [u8]),
    Bits(&'a [u8]),
    Rice(&'a [u8]),
}

impl List<'_> {
    /// About the number of blocks: a gap list's length (most gaps take one byte), a
    /// bitmap's bits set, a Rice list's count.
    fn count(&self) -> usize {
        match self {
            List::Gaps(g) => g.len(),
            List::Bits(b) => b.iter().map(|x| x.count_ones() as usize).sum(),
            List::Rice(r) => {
                let mut p = 1;
                varint_at(r, &mut p)
            }
        }
    }

    fn decode_into(&self, out: &mut Vec<u32>) {
        match self {
            List::Gaps(g) => decode_into(g, out),
            List::Rice(r) => rice_decode(r, out),
            List::Bits(bits) => {
                for (i, &x) in bits.iter().enumerate() {
                    let mut x = x;
                    while x != 0 {
                        out.push(i as u32 * 8 + x.trailing_zeros());
                        x &= x - 1;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `.tri` bytes per field at other grains, over an index's parts:
    /// `LEAKWELL_INDEX=dir cargo test --release tri_grains -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn tri_grains() {
        let index = std::path::PathBuf::from(std::env::var("LEAKWELL_INDEX").expect("LEAKWELL_INDEX"));
        let out = std::env::temp_dir().join(format!("leakwell-tri-grains-{}", std::process::id()));
        std::fs::create_dir_all(&out).unwrap();
        let grains = [8u32, 16, 32];
        let mut sizes: std::collections::BTreeMap<String, Vec<u64>> = Default::default();
        for seg in std::fs::read_dir(&index).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with("seg-")) {
            for part in std::fs::read_dir(seg.path()).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with("part-")) {
                for f in 0..crate::fields::INDEXED_FIELDS {
                    let name = crate::fields::index_name(f);
                    if !has_trigrams(f) || !part.path().join(format!("{}.tri", name)).exists() {
                        continue;
                    }
                    let dict = crate::termdict::TermDict::open(&part.path(), name).unwrap().unwrap();
                    let plain = dict.plain();
                    let body = &plain[..plain.len().saturating_sub(1)];
                    let e = sizes.entry(name.to_string()).or_insert(vec![0; grains.len()]);
                    for (i, &g) in grains.iter().enumerate() {
                        write_grain(&out, name, body.split(|&b| b == b'\n').filter(|_| !plain.is_empty()), g).unwrap();
                        e[i] += std::fs::metadata(out.join(format!("{}.tri", name))).unwrap().len();
                    }
                }
            }
        }
        for (f, v) in &sizes {
            println!("{:>14}: {}", f, v.iter().zip(grains).map(|(b, g)| format!("grain {} {:.1} MB", g, *b as f64 / 1e6)).collect::<Vec<_>>().join(", "));
        }
        let _ = std::fs::remove_dir_all(&out);
    }

    /// Decoding speed of every varint gap list of an index's `.tri` files against the same
    /// lists Rice-coded, interleaved: `LEAKWELL_INDEX=dir cargo test --release --lib
    /// tri_decode_speed -- --ignored --nocapture` (a format 6 index, whose lists are varints).
    #[test]
    #[ignore]
    fn tri_decode_speed() {
        let index = std::path::PathBuf::from(std::env::var("LEAKWELL_INDEX").expect("LEAKWELL_INDEX"));
        let mut lists: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for seg in std::fs::read_dir(&index).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with("seg-")) {
            for part in std::fs::read_dir(seg.path()).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with("part-")) {
                for f in std::fs::read_dir(part.path()).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().ends_with(".tri")) {
                    let name = f.file_name().to_string_lossy().trim_end_matches(".tri").to_string();
                    let ix = TrigramIndex::open(&part.path(), &name).unwrap().unwrap();
                    let base = 8 + ix.n * 8 + 4;
                    for i in 0..ix.n {
                        let (s, e) = (ix.b.u32_at(2 + ix.n + i) as usize, ix.b.u32_at(2 + ix.n + i + 1) as usize);
                        if ix.b.u32_at(2 + i) & (BITMAP | RICE) != 0 || e - s < 64 {
                            continue;
                        }
                        let g = ix.b[base + s..base + e].to_vec();
                        let mut blocks = Vec::new();
                        decode_into(&g, &mut blocks);
                        let mut r = Vec::new();
                        rice_encode(&blocks, &mut r);
                        lists.push((g, r));
                    }
                }
            }
        }
        let values: usize = lists.iter().map(|l| l.0.len()).sum();
        let (mut tv, mut tr) = (Vec::new(), Vec::new());
        let mut out = Vec::new();
        for round in 0..6 {
            for which in if round % 2 == 0 { [0, 1] } else { [1, 0] } {
                let t0 = std::time::Instant::now();
                let mut sum = 0u64;
                for (g, r) in &lists {
                    out.clear();
                    if which == 0 { decode_into(g, &mut out) } else { rice_decode(r, &mut out) }
                    sum += out.len() as u64;
                }
                let ns = t0.elapsed().as_nanos() as f64 / sum as f64;
                if which == 0 { tv.push(ns) } else { tr.push(ns) }
            }
        }
        tv.sort_by(f64::total_cmp);
        tr.sort_by(f64::total_cmp);
        println!("{} lists of 64+ bytes, about {} values: varint {:.2} ns a value, Rice {:.2} (medians of 6 interleaved passes; {:?} {:?})", lists.len(), values, tv[3], tr[3], tv, tr);
        println!("bytes: varint {}, Rice {}", lists.iter().map(|l| l.0.len()).sum::<usize>(), lists.iter().map(|l| l.1.len()).sum::<usize>());
    }

    /// Rice lists read back as written: dense and sparse runs, gaps of one block, gaps whose
    /// unary part spans more than a machine word (a small k under a huge gap), and the
    /// largest block numbers.
    #[test]
    fn rice_roundtrip() {
        let mut seed = 7u64;
        let mut rnd = move |m: u32| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as u32 % m
        };
        let mut lists: Vec<Vec<u32>> = vec![vec![0, 1, 2], vec![5, 6, 7, 8, 9, 10], vec![3, 100_000, 100_001, 100_002, 100_003], vec![0, 1, u32::MAX / 2, u32::MAX - 1]];
        for spread in [1u32, 3, 40, 1000, 70_000] {
            for len in [3usize, 17, 300] {
                let mut b = vec![rnd(1000)];
                for _ in 1..len {
                    let g = 1 + rnd(spread) + if rnd(50) == 0 { rnd(5000) } else { 0 };
                    b.push(b[b.len() - 1] + g);
                }
                lists.push(b);
            }
        }
        for b in &lists {
            let mut enc = Vec::new();
            rice_encode(b, &mut enc);
            let mut out = vec![42];
            rice_decode(&enc, &mut out);
            assert_eq!(&out[1..], &b[..], "k {}", enc[0]);
            assert_eq!(List::Rice(&enc).count(), b.len());
            // A cut list stops instead of reading past its end.
            let mut cut = Vec::new();
            rice_decode(&enc[..enc.len() / 2], &mut cut);
            assert!(cut.len() <= b.len());
        }
    }

    #[test]
    fn candidates_cover_every_containing_term() {
        let dir = std::env::temp_dir().join(format!("tri-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut terms: Vec<Vec<u8>> = (0..2000u32).map(|i| format!("user{}x{}@mail{}.com", i * 7919 % 1000, i, i % 13).into_bytes()).collect();
        terms.push(b"ab".to_vec());
        terms.sort();
        terms.dedup();
        // Email's grain and the others' (the file says which).
        for field in [EMAIL, 1 /* username */] {
            write(&dir, field, terms.iter().map(|t| &t[..])).unwrap();
            let ix = TrigramIndex::open(&dir, crate::fields::index_name(field)).unwrap().unwrap();
            assert_eq!(ix.grain, grain(field));
            // `com`, `mai`, `@ma` are in every block: bitmaps (format 4).
            assert!(matches!(ix.list(b"com"), List::Bits(_)));
            assert!(field != EMAIL || matches!(ix.list(b"r12"), List::Gaps(_)));
            // Sparse lists of several blocks: Rice-coded (format 7).
            assert!((0..ix.n).any(|i| ix.b.u32_at(2 + i) & RICE != 0));
            for lits in [vec![b"r12x".to_vec()], vec![b"mail7".to_vec(), b"99x".to_vec()], vec![b"zzz".to_vec()], vec![b"@mail1".to_vec()], vec![b".com".to_vec()], vec![b"x19".to_vec(), b"l12.com".to_vec()]] {
                let c = ix.candidates(&lits, 0..u32::MAX, usize::MAX).unwrap();
                for (ord, t) in terms.iter().enumerate() {
                    let has = lits.iter().all(|l| memchr::memmem::find(t, l).is_some());
                    if has {
                        assert!(c.binary_search(&(ord as u32 / ix.grain)).is_ok(), "{:?} missed", String::from_utf8_lossy(t));
                    }
                }
            }
            assert_eq!(ix.candidates(&[b"zzz".to_vec()], 0..u32::MAX, usize::MAX).unwrap(), Vec::<u32>::new());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// `email.ltri` holds, for exactly the trigrams whose domain-only blocks pass the share,
    /// the blocks of the local parts holding them (possibly none); the local candidates
    /// cover every term whose local part holds the literals, and leave out blocks where a
    /// common domain alone has them.
    #[test]
    fn ltri_lists_are_the_local_parts_of_the_trigrams_domains_make_common() {
        let dir = crate::test_dir("ltri");
        let mut terms: Vec<Vec<u8>> = Vec::new();
        for i in 0..3000u32 {
            let host = match i % 7 {
                0..=3 => "gmail.com".to_string(),
                4 => format!("host{}.org", i % 40),
                5 => "yahoo.com".into(),
                _ => format!("mail{}.example", i % 3),
            };
            let local = ["ann", "bob.gmail", "carla", "dmitri", "x@y", "gm", "yahoo.fan", "zed"][i as usize % 8];
            terms.push(format!("{}{}@{}", local, i, host).into_bytes());
        }
        for t in ["no-at-gmail", "trailing@", "@gmail.com", "a@gmail@example.org"] {
            terms.push(t.as_bytes().to_vec());
        }
        terms.sort();
        terms.dedup();
        let g = grain(EMAIL);
        let blocks = (terms.len() as u32 + g - 1) / g;
        let block_set = |f: &dyn Fn(&[u8]) -> bool| -> Vec<u32> {
            let mut v: Vec<u32> = terms.iter().enumerate().filter(|(_, t)| f(t)).map(|(o, _)| o as u32 / g).collect();
            v.dedup();
            v
        };
        let mut all_tris: Vec<[u8; 3]> = terms.iter().flat_map(|t| t.windows(3).map(|w| [w[0], w[1], w[2]])).collect();
        all_tris.sort();
        all_tris.dedup();
        for share in [1u32, 64, u32::MAX] {
            write_local(&dir, "email", terms.iter().map(|t| &t[..]), g, share).unwrap();
            let (tri, ltri) = (TrigramIndex::open(&dir, "email").unwrap().unwrap(), TrigramIndex::open_local(&dir, "email").unwrap().unwrap());
            assert_eq!(ltri.grain, g);
            let mut kept = 0;
            for t in &all_tris {
                let everywhere = block_set(&|x| memchr::memmem::find(x, t).is_some());
                let local = block_set(&|x| memchr::memmem::find(crate::fields::email_local(x), t).is_some());
                let decoded = |l: List| {
                    let mut v = Vec::new();
                    l.decode_into(&mut v);
                    v
                };
                assert_eq!(decoded(tri.list(t)), everywhere);
                let domain_only = (everywhere.len() - local.len()) as u64;
                match ltri.find(t) {
                    Some(l) => {
                        kept += 1;
                        assert!(domain_only * u64::from(share) > u64::from(blocks), "{:?} kept at share {}", String::from_utf8_lossy(t), share);
                        assert_eq!(decoded(l), local, "{:?}", String::from_utf8_lossy(t));
                    }
                    None => assert!(domain_only * u64::from(share) <= u64::from(blocks), "{:?} left out at share {}", String::from_utf8_lossy(t), share),
                }
            }
            // Share 1: nothing (a trigram is in at most every block); 64: the common domains'
            // trigrams (`gma`, `com`, `hoo`); every trigram with a domain-only block.
            assert_eq!(kept == 0, share == 1, "share {}: {} kept", share, kept);
            for lits in [&["gmail"][..], &["yahoo"], &["mail"], &["ann", ".com"], &["gm"], &["@gm"], &["org"], &["carla1"], &["qqq"]] {
                let lits: Vec<Vec<u8>> = lits.iter().map(|l| l.as_bytes().to_vec()).collect();
                let c = tri.local_candidates(&ltri, &lits, 0..blocks, usize::MAX).unwrap_or_else(|| (0..blocks).collect());
                let want = block_set(&|x| lits.iter().all(|l| memchr::memmem::find(crate::fields::email_local(x), l).is_some()));
                assert!(want.iter().all(|b| c.binary_search(b).is_ok()), "{:?} at share {}", lits, share);
                if share == 64 && lits == [b"gmail".to_vec()] {
                    assert!(c.len() * 4 < tri.candidates(&lits, 0..blocks, usize::MAX).unwrap().len(), "gmail: {} local candidates", c.len());
                }
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A format 6 `.tri` (every list that is not a bitmap as varint gaps) gives the same
    /// candidates as the format 7 one of the same terms (its sparse lists Rice-coded).
    #[test]
    fn format6_lists_answer_as_format7() {
        let dir = std::env::temp_dir().join(format!("tri-f6-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut terms: Vec<Vec<u8>> = (0..5000u32).map(|i| format!("{}{}.{}@host{}.org", ["ann", "bob", "carla", "dmitri"][i as usize % 4], i * 2654435761 % 100_000, i % 97, i % 31).into_bytes()).collect();
        terms.sort();
        terms.dedup();
        write(&dir, EMAIL, terms.iter().map(|t| &t[..])).unwrap();
        let f7 = TrigramIndex::open(&dir, "email").unwrap().unwrap();
        // The same file with its Rice lists written back as varint gaps, without the flag.
        let (n, base) = (f7.n, 8 + f7.n * 8 + 4);
        let (mut keys, mut offs, mut area) = (Vec::new(), vec![0u32], Vec::new());
        let mut rice = 0;
        for i in 0..n {
            let k = f7.b.u32_at(2 + i);
            let bytes = &f7.b[base + f7.b.u32_at(2 + n + i) as usize..base + f7.b.u32_at(2 + n + i + 1) as usize];
            if k & RICE != 0 {
                rice += 1;
                let mut blocks = Vec::new();
                rice_decode(bytes, &mut blocks);
                crate::postings::encode(&blocks, &mut area);
            } else {
                area.extend_from_slice(bytes);
            }
            keys.push(k & !RICE);
            offs.push(area.len() as u32);
        }
        assert!(rice > 100, "{} Rice lists", rice);
        let mut file = Vec::new();
        for v in [n as u32, f7.grain].iter().chain(&keys).chain(&offs) {
            file.extend_from_slice(&v.to_le_bytes());
        }
        file.extend_from_slice(&area);
        let old = dir.join("old");
        std::fs::create_dir_all(&old).unwrap();
        std::fs::write(old.join("email.tri"), &file).unwrap();
        let f6 = TrigramIndex::open(&old, "email").unwrap().unwrap();
        for lits in [&["ann1"][..], &["bob"], &["carla", "@host1"], &["2.7@"], &["dmitri9", "host30"], &[".org"], &["nn12", "99"], &["qqq"]] {
            let lits: Vec<Vec<u8>> = lits.iter().map(|l| l.as_bytes().to_vec()).collect();
            for cap in [usize::MAX, 50] {
                assert_eq!(f6.candidates(&lits, 0..u32::MAX, cap), f7.candidates(&lits, 0..u32::MAX, cap), "{:?}", lits);
                assert_eq!(f6.candidates(&lits, 10..400, cap), f7.candidates(&lits, 10..400, cap), "{:?}", lits);
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

