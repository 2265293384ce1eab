//! Postings: the sorted document numbers of one term, delta-encoded as LEB128 varints.

/// Terms per block of `.pix`, the postings index of format 2: u32 term count n; for each
/// block of `PIX_STEP` terms (and one past the end) u32 offset of its first postings in
/// `.post`; the same count of u32 offsets into the lengths area; the lengths area: every
/// term's postings byte length as a LEB128 varint. About 1.5 bytes a term instead of the 4
/// of format 1's `.poff` (u32 offset per term).
///
/// Format 6 (`PIX_SINGLES` set in the count): a block's lengths are a u16 bitmap of its
/// terms whose postings are one varint (one document: 92% of the terms of the 10M bench
/// index), whose length is read from `.post` itself, then the varint lengths of the others
/// only. About 0.7 bytes a term.
pub const PIX_STEP: usize = 16;

/// Format 6 `.pix` flag (bit 31 of the term count): blocks begin with a bitmap of their
/// one-document terms.
const PIX_SINGLES: u32 = 1 << 31;

#[derive(Default)]
pub struct PixBuilder {
    n: u32,
    pos: u64,
    post_off: Vec<u32>,
    len_off: Vec<u32>,
    lens: Vec<u8>,
    /// Where the current block's bitmap is in `lens`.
    mask_at: usize,
}

impl PixBuilder {
    /// The next term's postings, as written to `.post`.
    #[inline]
    pub fn add(&mut self, postings: &[u8]) {
        let j = self.n as usize % PIX_STEP;
        if j == 0 {
            self.post_off.push(self.pos as u32);
            self.len_off.push(self.lens.len() as u32);
            self.mask_at = self.lens.len();
            self.lens.extend_from_slice(&[0, 0]);
        }
        if one_varint(postings) {
            self.lens[self.mask_at + j / 8] |= 1 << (j % 8);
        } else {
            put_varint(postings.len() as u32, &mut self.lens);
        }
        self.n += 1;
        self.pos += postings.len() as u64;
    }

    pub fn finish(mut self) -> Vec<u8> {
        self.post_off.push(self.pos as u32);
        self.len_off.push(self.lens.len() as u32);
        let mut out = Vec::with_capacity(4 + self.post_off.len() * 8 + self.lens.len());
        out.extend_from_slice(&(self.n | PIX_SINGLES).to_le_bytes());
        for v in &self.post_off {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in &self.len_off {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.lens);
        out
    }
}

/// Whether `b` is exactly one LEB128 varint (the postings of one document).
#[inline]
fn one_varint(b: &[u8]) -> bool {
    b.iter().position(|&x| x & 0x80 == 0) == Some(b.len().wrapping_sub(1))
}

/// Byte length of the varint at `post[s]` (to the end of `post` when it is cut short).
#[inline]
fn varint_len(post: &[u8], s: usize) -> usize {
    let mut e = s;
    while e < post.len() && post[e] & 0x80 != 0 {
        e += 1;
    }
    (e + 1).min(post.len()).saturating_sub(s)
}

/// A `.pix` read: its term count, block count, where the lengths area starts and whether
/// its blocks begin with a bitmap of one-document terms (format 6).
struct PixLayout {
    blocks: usize,
    lens: usize,
    singles: bool,
}

impl PixLayout {
    #[inline]
    fn of(pix: &[u8]) -> PixLayout {
        let raw = u32_at(pix, 0);
        let n = (raw & !PIX_SINGLES) as usize;
        let blocks = (n + PIX_STEP - 1) / PIX_STEP + 1;
        PixLayout { blocks, lens: 4 + blocks * 8, singles: raw & PIX_SINGLES != 0 }
    }

    /// Block `b`'s first postings offset, the position of its first length in `pix`, and
    /// its bitmap of one-document terms (0 before format 6).
    #[inline]
    fn block(&self, pix: &[u8], b: usize) -> (usize, usize, u16) {
        let s = u32_at(pix, 1 + b) as usize;
        let p = self.lens + u32_at(pix, 1 + self.blocks + b) as usize;
        if self.singles {
            let m = pix.get(p..p + 2).map(|x| u16::from_le_bytes([x[0], x[1]])).unwrap_or(0);
            return (s, p + 2, m);
        }
        (s, p, 0)
    }

    /// Byte length of the postings of term `j` of a block (at `s` in `post`), its length
    /// read at `*p` unless the bitmap says one document.
    #[inline]
    fn len(pix: &[u8], post: &[u8], mask: u16, j: usize, s: usize, p: &mut usize) -> usize {
        if mask & (1 << j) != 0 {
            varint_len(post, s)
        } else {
            varint_at(pix, p)
        }
    }
}

#[inline]
fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i * 4], b[i * 4 + 1], b[i * 4 + 2], b[i * 4 + 3]])
}

/// Appends `v` as a LEB128 varint.
#[inline]
pub fn put_varint(mut v: u32, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// The LEB128 varint at `*p`, advancing `*p` past it.
#[inline]
pub fn varint_at(b: &[u8], p: &mut usize) -> usize {
    let mut v = 0usize;
    let mut shift = 0;
    while *p < b.len() {
        let x = b[*p];
        *p += 1;
        v |= ((x & 0x7f) as usize) << shift;
        if x & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    v
}

/// Term count of a `.pix` and whether its layout is consistent with `post_len`.
pub fn pix_check(pix: &[u8], post_len: usize) -> Option<usize> {
    if pix.len() < 4 {
        return None;
    }
    let n = (u32_at(pix, 0) & !PIX_SINGLES) as usize;
    let blocks = (n + PIX_STEP - 1) / PIX_STEP + 1;
    if pix.len() < 4 + blocks * 8 || u32_at(pix, blocks) as usize != post_len {
        return None;
    }
    Some(n)
}

/// Byte range in `.post` of term `ord`'s postings, from a `.pix`.
#[inline]
pub fn pix_range(pix: &[u8], post: &[u8], ord: u32) -> std::ops::Range<usize> {
    let l = PixLayout::of(pix);
    let b = ord as usize / PIX_STEP;
    let (mut s, mut p, mask) = l.block(pix, b);
    for j in 0..ord as usize % PIX_STEP {
        s += PixLayout::len(pix, post, mask, j, s, &mut p);
    }
    let n = PixLayout::len(pix, post, mask, ord as usize % PIX_STEP, s, &mut p);
    s..s + n
}

/// Asks the CPU to load the cache line holding `b[i]` (no effect past the end or off x86-64).
#[inline(always)]
pub fn prefetch(b: &[u8], i: usize) {
    #[cfg(target_arch = "x86_64")]
    if i < b.len() {
        // SAFETY: a prefetch is only a hint, and the address is inside `b`.
        unsafe { std::arch::x86_64::_mm_prefetch(b.as_ptr().add(i) as *const i8, std::arch::x86_64::_MM_HINT_T0) }
    }
}

/// `pix_ranges_sorted` for many scattered ordinals (the hits of an infix scan): the `.pix`
/// entries of their blocks, then their length bytes, are fetched ahead in passes so that
/// the cache misses overlap instead of being waited for one term at a time.
pub fn pix_ranges_scattered(pix: &[u8], post: &[u8], ords: &[u32], out: &mut Vec<std::ops::Range<usize>>) {
    let l = PixLayout::of(pix);
    let mut last = usize::MAX;
    for &o in ords {
        let b = o as usize / PIX_STEP;
        if b != last {
            prefetch(pix, 4 + (1 + b) * 4);
            prefetch(pix, 4 + (1 + l.blocks + b) * 4);
            last = b;
        }
    }
    last = usize::MAX;
    for &o in ords {
        let b = o as usize / PIX_STEP;
        if b != last {
            prefetch(pix, l.lens + u32_at(pix, 1 + l.blocks + b) as usize);
            if l.singles {
                // One-document terms' lengths are read from `.post`.
                prefetch(post, u32_at(pix, 1 + b) as usize);
            }
            last = b;
        }
    }
    pix_ranges_sorted(pix, post, ords.iter().copied(), |r| out.push(r));
}

/// Byte ranges in `.post` of ordinals `ords`, walking each `.pix` block once when they are
/// ascending (any order works: a smaller ordinal restarts at its block).
pub fn pix_ranges_sorted(pix: &[u8], post: &[u8], ords: impl Iterator<Item = u32>, mut f: impl FnMut(std::ops::Range<usize>)) {
    let l = PixLayout::of(pix);
    let (mut block, mut k, mut s, mut p, mut mask) = (usize::MAX, 0usize, 0usize, 0usize, 0u16);
    for o in ords {
        let o = o as usize;
        let b = o / PIX_STEP;
        if b != block || o < k {
            block = b;
            k = b * PIX_STEP;
            (s, p, mask) = l.block(pix, b);
        }
        while k < o {
            s += PixLayout::len(pix, post, mask, k % PIX_STEP, s, &mut p);
            k += 1;
        }
        let n = PixLayout::len(pix, post, mask, k % PIX_STEP, s, &mut p);
        f(s..s + n);
        s += n;
        k += 1;
    }
}

pub fn encode(docs: &[u32], out: &mut Vec<u8>) {
    let mut prev = 0u32;
    for (i, &d) in docs.iter().enumerate() {
        put_varint(if i == 0 { d } else { d - prev }, out);
        prev = d;
    }
}

/// The values in both ascending lists `a` and `b`.
#[inline]
pub fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len().min(b.len()));
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

pub fn decode_into(bytes: &[u8], out: &mut Vec<u32>) {
    // Most gaps fit one byte: that path is a single test per value.
    out.reserve(bytes.len());
    let mut prev = 0u32;
    let mut first = true;
    let mut i = 0usize;
    let n = bytes.len();
    while i < n {
        let b = bytes[i];
        i += 1;
        let mut v = (b & 0x7f) as u32;
        if b & 0x80 != 0 {
            let mut shift = 7;
            while i < n {
                let b = bytes[i];
                i += 1;
                v |= ((b & 0x7f) as u32) << shift;
                shift += 7;
                if b & 0x80 == 0 {
                    break;
                }
            }
        }
        let d = if first { v } else { prev.wrapping_add(v) };
        first = false;
        prev = d;
        out.push(d);
    }
}

#[cfg(test)]
mod tests {
    /// Lists of 0 to 299 documents (one-document ones among them), written and read back
    /// by ordinal, in ascending and scattered runs; and a format 2 `.pix` (no bitmaps).
    #[test]
    fn pix_roundtrip() {
        let lists: Vec<Vec<u32>> = (0..100u32).map(|i| (0..[1, 1, 3, 1, 0, 1, 40, 1, 1, 299][i as usize % 10]).map(|d| d * 7 + i * 100_000).collect()).collect();
        let mut post = Vec::new();
        let mut all = Vec::new();
        let mut b = super::PixBuilder::default();
        let mut old = Vec::new();
        for docs in &lists {
            let mut enc = Vec::new();
            super::encode(docs, &mut enc);
            b.add(&enc);
            all.push(post.len()..post.len() + enc.len());
            super::put_varint(enc.len() as u32, &mut old);
            post.extend_from_slice(&enc);
        }
        let pix = b.finish();
        // Format 2: the same offsets, a length for every term.
        let mut v2 = Vec::new();
        v2.extend_from_slice(&100u32.to_le_bytes());
        let blocks = (0..=100).step_by(16).chain(std::iter::once(100)).collect::<Vec<usize>>();
        let blocks = &blocks[..(100 + 15) / 16 + 1];
        let len_at = |t: usize| {
            let mut p = 0;
            for _ in 0..t {
                super::varint_at(&old, &mut p);
            }
            p
        };
        for &t in blocks {
            v2.extend_from_slice(&(if t < 100 { all[t].start } else { post.len() } as u32).to_le_bytes());
        }
        for &t in blocks {
            v2.extend_from_slice(&(len_at(t.min(100)) as u32).to_le_bytes());
        }
        v2.extend_from_slice(&old);
        assert!(pix.len() < v2.len(), "{} {}", pix.len(), v2.len());
        for pix in [&pix, &v2] {
            assert_eq!(super::pix_check(pix, post.len()), Some(100));
            for (i, r) in all.iter().enumerate() {
                assert_eq!(super::pix_range(pix, &post, i as u32), r.clone());
                let mut docs = Vec::new();
                super::decode_into(&post[r.clone()], &mut docs);
                assert_eq!(docs, lists[i]);
            }
            let pick: Vec<u32> = vec![0, 1, 5, 15, 16, 17, 40, 41, 99];
            let mut got = Vec::new();
            super::pix_ranges_sorted(pix, &post, pick.iter().copied(), |r| got.push(r));
            assert_eq!(got, pick.iter().map(|&o| all[o as usize].clone()).collect::<Vec<_>>());
            let mut got = Vec::new();
            super::pix_ranges_scattered(pix, &post, &[3, 2, 50, 99, 98], &mut got);
            assert_eq!(got, [3, 2, 50, 99, 98].iter().map(|&o: &usize| all[o].clone()).collect::<Vec<_>>());
        }
    }

    #[test]
    fn roundtrip() {
        let docs = vec![0, 1, 5, 127, 128, 300, 70000, 4_000_000_000];
        let mut buf = Vec::new();
        super::encode(&docs, &mut buf);
        let mut out = Vec::new();
        super::decode_into(&buf, &mut out);
        assert_eq!(out, docs);
    }
}
