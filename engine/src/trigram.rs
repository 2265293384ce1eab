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
//! more than about an eighth of the blocks (`com`, `gma`, `il.` in emails). 18% smaller over
//! the bench corpus, and intersecting with such a list is a bit test per candidate.

use crate::bytes::Bytes;
use crate::error::{EngineError, Result};
use crate::fields::{ADDRESS, COMPANY, DOMAIN, EMAIL, EMAIL_DOMAIN, NAME, PASSWORD};
use crate::keys::IntHasher;
use crate::postings::{decode_into, intersect, put_varint};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// Consecutive term ordinals per indexed block of field `field` (a multiple of the term
/// tables' `.tix` step, 8; the file records it and readers take the file's). 32 for the
/// fields whose infix searches held with it (username, url, social, domains, company): at
/// 10M records their lists take 35.6 MB instead of 50.7 (BENCHMARKS.md, "Issue 14: index
/// size at 10M, format 5"); 8 for `email` (its infix class is held to 10× PostgreSQL) and
/// for `name`, `address` and `password`, whose infix searches a grain of 32 made 1.9-7.5×
/// slower (a common trigram's list covering more than a quarter of the blocks falls back to
/// a scan of the whole table, and each candidate block verifies 4× the terms).
pub fn grain(field: usize) -> u32 {
    if matches!(field, EMAIL | NAME | ADDRESS | PASSWORD) {
        8
    } else {
        32
    }
}

/// Flag of a key (bit 31, above the 24 bits of a trigram) whose list is a bitmap of blocks.
const BITMAP: u32 = 1 << 31;

/// Fields with a trigram index: free text where infix searches are common. Dense
/// low-alphabet fields (hashes, IPs, phones, dates) gain little from it and are scanned.
pub fn has_trigrams(field: usize) -> bool {
    matches!(field, EMAIL | 1 /* username */ | PASSWORD | NAME | ADDRESS | COMPANY | 12 /* url */ | 13 /* social */ | DOMAIN | EMAIL_DOMAIN)
}

#[inline]
fn key(t: &[u8]) -> u32 {
    (t[0] as u32) << 16 | (t[1] as u32) << 8 | t[2] as u32
}

/// Build `<field>.tri` of field number `field` from its sorted terms.
pub fn write<'a>(dir: &Path, field: usize, sorted_terms: impl Iterator<Item = &'a [u8]>) -> Result<()> {
    write_grain(dir, crate::fields::index_name(field), sorted_terms, grain(field))
}

/// `write` with blocks of `grain` term ordinals (readers take the file's).
pub fn write_grain<'a>(dir: &Path, field: &str, sorted_terms: impl Iterator<Item = &'a [u8]>, grain: u32) -> Result<()> {
    // trigram -> slot in `slots` (last block seen, encoded gaps): a direct table for
    // ASCII trigrams (2^21 entries), a hash map for the others.
    let mut ascii: Vec<u32> = vec![u32::MAX; 1 << 21];
    let mut other: HashMap<u32, u32, std::hash::BuildHasherDefault<IntHasher>> = HashMap::default();
    let mut slots: Vec<(u32, u32, Vec<u8>)> = Vec::new(); // (key, last block, gaps)
    let mut terms = 0usize;
    for (ord, t) in sorted_terms.enumerate() {
        terms = ord + 1;
        let block = ord as u32 / grain;
        if t.len() < 3 {
            continue;
        }
        for w in t.windows(3) {
            let slot = if w[0] < 128 && w[1] < 128 && w[2] < 128 {
                let i = (w[0] as usize) << 14 | (w[1] as usize) << 7 | w[2] as usize;
                if ascii[i] == u32::MAX {
                    ascii[i] = slots.len() as u32;
                    slots.push((key(w), u32::MAX, Vec::new()));
                }
                ascii[i]
            } else {
                let n = slots.len() as u32;
                let s = *other.entry(key(w)).or_insert(n);
                if s == n {
                    slots.push((key(w), u32::MAX, Vec::new()));
                }
                s
            };
            let e = &mut slots[slot as usize];
            if e.1 == block {
                continue;
            }
            let gap = if e.1 == u32::MAX { block } else { block - e.1 };
            e.1 = block;
            put_varint(gap, &mut e.2);
        }
    }
    drop(ascii);
    slots.sort_unstable_by_key(|s| s.0);
    // Dense lists as bitmaps, when smaller.
    let bitmap_len = (terms + grain as usize - 1) / grain as usize / 8 + 1;
    for s in slots.iter_mut().filter(|s| s.2.len() > bitmap_len) {
        let mut bits = vec![0u8; bitmap_len];
        let mut blocks = Vec::new();
        decode_into(&s.2, &mut blocks);
        for b in blocks {
            bits[b as usize / 8] |= 1 << (b % 8);
        }
        s.0 |= BITMAP;
        s.2 = bits;
    }
    let keys: Vec<u32> = slots.iter().map(|s| s.0).collect();
    let n = keys.len();
    let mut head = Vec::with_capacity(8 + n * 8 + 4);
    head.extend_from_slice(&(n as u32).to_le_bytes());
    head.extend_from_slice(&grain.to_le_bytes());
    for k in &keys {
        head.extend_from_slice(&k.to_le_bytes());
    }
    let mut pos = 0u64;
    for s in &slots {
        head.extend_from_slice(&(pos as u32).to_le_bytes());
        pos += s.2.len() as u64;
    }
    if pos > u32::MAX as u64 {
        return Err(EngineError::InvalidArgument(format!("{}: trigram index over 4 GiB in one part; lower partRecords", field)));
    }
    head.extend_from_slice(&(pos as u32).to_le_bytes());
    let path = dir.join(format!("{}.tri", field));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path)?);
    f.write_all(&head)?;
    for s in &slots {
        f.write_all(&s.2)?;
    }
    f.flush()?;
    Ok(())
}

pub struct TrigramIndex {
    b: Bytes,
    n: usize,
    pub grain: u32,
}

impl TrigramIndex {
    pub fn open(dir: &Path, field: &str) -> Result<Option<TrigramIndex>> {
        let p = dir.join(format!("{}.tri", field));
        if !p.exists() {
            return Ok(None);
        }
        let b = Bytes::open(&p)?;
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
        let k = key(t);
        let (mut lo, mut hi) = (0usize, self.n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.b.u32_at(2 + mid) & !BITMAP < k {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        if lo >= self.n || self.b.u32_at(2 + lo) & !BITMAP != k {
            return List::Gaps(&[]);
        }
        let base = 8 + self.n * 8 + 4;
        let s = self.b.u32_at(2 + self.n + lo) as usize;
        let e = self.b.u32_at(2 + self.n + lo + 1) as usize;
        let bytes = &self.b[base + s..base + e];
        if self.b.u32_at(2 + lo) & BITMAP != 0 {
            List::Bits(bytes)
        } else {
            List::Gaps(bytes)
        }
    }

    /// Blocks (ascending) that may hold a term containing every literal, or `None` when
    /// the lists are too unselective to beat a scan (more than `max_blocks` candidates).
    pub fn candidates(&self, literals: &[Vec<u8>], blocks: std::ops::Range<u32>, max_blocks: usize) -> Option<Vec<u32>> {
        let mut tris: Vec<&[u8]> = Vec::new();
        for l in literals {
            for w in l.windows(3) {
                if !tris.contains(&w) {
                    tris.push(w);
                }
            }
        }
        if tris.is_empty() {
            return None;
        }
        let mut lists: Vec<List> = tris.iter().map(|t| self.list(t)).collect();
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
            let gaps = match l {
                // A bit test per candidate.
                List::Bits(bits) => {
                    acc.retain(|&b| bits.get(b as usize / 8).map(|x| x >> (b % 8) & 1 == 1).unwrap_or(false));
                    continue;
                }
                List::Gaps(gaps) => gaps,
            };
            // Decoding a list much longer than the candidate set costs more than verifying
            // the few candidates it would remove (every candidate is verified anyway).
            if gaps.len() > 8 * acc.len() {
                break;
            }
            next.clear();
            decode_into(gaps, &mut next);
            acc = intersect(&acc, &next);
        }
        if acc.len() > max_blocks {
            return None;
        }
        Some(acc)
    }
}

/// A trigram's blocks: LEB128 gaps, or a bitmap (format 4, dense lists).
enum List<'a> {
    Gaps(&'a [u8]),
    Bits(&'a [u8]),
}

impl List<'_> {
    /// About the number of blocks: a gap list's length (most gaps take one byte), a
    /// bitmap's bits set.
    fn count(&self) -> usize {
        match self {
            List::Gaps(g) => g.len(),
            List::Bits(b) => b.iter().map(|x| x.count_ones() as usize).sum(),
        }
    }

    fn decode_into(&self, out: &mut Vec<u32>) {
        match self {
            List::Gaps(g) => decode_into(g, out),
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
}

