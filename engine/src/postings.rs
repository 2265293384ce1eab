//! Postings: the sorted document numbers of one term, delta-encoded as LEB128 varints
//! (since format 7 a one-document term's document is packed into `.pix` instead).

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
///
/// Format 7 (`PIX_PACKED` too, and a u32 W after the count): the bitmap is followed by the
/// documents of the block's one-document terms, W bits each, which `.post` no longer holds.
pub const PIX_STEP: usize = 16;

/// Format 6 `.pix` flag (bit 31 of the term count): blocks begin with a bitmap of their
/// one-document terms.
const PIX_SINGLES: u32 = 1 << 31;

/// Format 7 `.pix` flag (bit 30 of the term count, with bit 31): the documents of a block's
/// one-document terms follow its bitmap, packed in W bits each (W: the u32 after the count,
/// the bits of the largest of them), instead of being in `.post`. At 10M records most terms
/// have one document, a 3-4 byte varint in `.post` against W = 19-22 bits here.
const PIX_PACKED: u32 = 1 << 30;

const PIX_FLAGS: u32 = PIX_SINGLES | PIX_PACKED;

/// Where a term's postings are: a byte range of `.post`, or (format 7) its one document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Posting {
    Bytes(std::ops::Range<usize>),
    One(u32),
}

impl Posting {
    /// Appends the documents to `out`, decoding `post[range]` when they are in `.post`.
    #[inline]
    pub fn decode(&self, post: &[u8], out: &mut Vec<u32>) {
        match self {
            Posting::Bytes(r) => decode_into(&post[r.clone()], out),
            Posting::One(d) => out.push(*d),
        }
    }
}

#[derive(Default)]
pub struct PixBuilder {
    n: u32,
    pos: u64,
    post_off: Vec<u32>,
    /// Per block: its bitmap of one-document terms, where its documents begin in `singles`
    /// and its varint lengths in `lens`.
    blocks: Vec<(u16, u32, u32)>,
    singles: Vec<u32>,
    lens: Vec<u8>,
}

impl PixBuilder {
    /// The next term's postings, as encoded (`encode`). Returns whether they go to `.post`:
    /// a one-document term's document is kept here instead.
    #[inline]
    pub fn add(&mut self, postings: &[u8]) -> bool {
        let j = self.n as usize % PIX_STEP;
        if j == 0 {
            self.post_off.push(self.pos as u32);
            self.blocks.push((0, self.singles.len() as u32, self.lens.len() as u32));
        }
        self.n += 1;
        if one_varint(postings) {
            let mut p = 0;
            self.singles.push(varint_at(postings, &mut p) as u32);
            if let Some(b) = self.blocks.last_mut() {
                b.0 |= 1 << j;
            }
            return false;
        }
        put_varint(postings.len() as u32, &mut self.lens);
        self.pos += postings.len() as u64;
        true
    }

    pub fn finish(self) -> Vec<u8> {
        let width = 32 - self.singles.iter().max().copied().unwrap_or(0).leading_zeros().min(31);
        let mut area = Vec::with_capacity(self.blocks.len() * 2 + self.singles.len() * width as usize / 8 + self.lens.len() + 8);
        let mut len_off = Vec::with_capacity(self.blocks.len() + 1);
        for (b, &(mask, s, l)) in self.blocks.iter().enumerate() {
            let (s_end, l_end) = self.blocks.get(b + 1).map(|x| (x.1, x.2)).unwrap_or((self.singles.len() as u32, self.lens.len() as u32));
            len_off.push(area.len() as u32);
            area.extend_from_slice(&mask.to_le_bytes());
            let mut bits = BitWriter::default();
            for &d in &self.singles[s as usize..s_end as usize] {
                bits.put(u64::from(d), width, &mut area);
            }
            bits.flush(&mut area);
            area.extend_from_slice(&self.lens[l as usize..l_end as usize]);
        }
        let mut post_off = self.post_off;
        post_off.push(self.pos as u32);
        len_off.push(area.len() as u32);
        let mut out = Vec::with_capacity(8 + post_off.len() * 8 + area.len());
        out.extend_from_slice(&(self.n | PIX_FLAGS).to_le_bytes());
        out.extend_from_slice(&width.to_le_bytes());
        for v in post_off.iter().chain(&len_off) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&area);
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

/// A `.pix` read: where its offsets and its lengths area start, whether its blocks begin
/// with a bitmap of one-document terms (format 6) and the bits of their packed documents
/// (format 7; 0 before).
struct PixLayout {
    blocks: usize,
    head: usize,
    lens: usize,
    singles: bool,
    width: u32,
}

/// A `.pix` block being walked: the next term's postings offset in `.post`, the position of
/// the next length in `.pix`, the bitmap of one-document terms, where their packed
/// documents are, and the next term's index in the block.
struct BlockCursor {
    s: usize,
    p: usize,
    mask: u16,
    packed: usize,
    j: usize,
}

impl PixLayout {
    #[inline]
    fn of(pix: &[u8]) -> PixLayout {
        let raw = u32_at(pix, 0);
        let n = (raw & !PIX_FLAGS) as usize;
        let blocks = (n + PIX_STEP - 1) / PIX_STEP + 1;
        let (head, width) = if raw & PIX_PACKED != 0 { (8, u32_at(pix, 1).min(32)) } else { (4, 0) };
        PixLayout { blocks, head, lens: head + blocks * 8, singles: raw & PIX_SINGLES != 0, width }
    }

    /// Block `b`'s first postings offset in `.post`.
    #[inline]
    fn post_off(&self, pix: &[u8], b: usize) -> usize {
        u32_le(pix, self.head + b * 4) as usize
    }

    /// Where block `b`'s lengths (its bitmap first, since format 6) are in `pix`.
    #[inline]
    fn lens_at(&self, pix: &[u8], b: usize) -> usize {
        self.lens + u32_le(pix, self.head + (self.blocks + b) * 4) as usize
    }

    /// A cursor at block `b`'s first term.
    #[inline]
    fn block(&self, pix: &[u8], b: usize) -> BlockCursor {
        let s = self.post_off(pix, b);
        let p = self.lens_at(pix, b);
        if self.singles {
            let mask = pix.get(p..p + 2).map(|x| u16::from_le_bytes([x[0], x[1]])).unwrap_or(0);
            let packed = (mask.count_ones() * self.width + 7) as usize / 8;
            return BlockCursor { s, p: p + 2 + packed, mask, packed: p + 2, j: 0 };
        }
        BlockCursor { s, p, mask: 0, packed: p, j: 0 }
    }
}

impl BlockCursor {
    /// Moves past the cursor's term without reading its postings: a packed one-document
    /// term (format 7) has nothing in `.post` to step over, so its document is not unpacked.
    #[inline]
    fn skip(&mut self, l: &PixLayout, pix: &[u8], post: &[u8]) {
        if l.width > 0 && self.mask & (1 << self.j) != 0 {
            self.j += 1;
        } else {
            self.next(l, pix, post);
        }
    }

    /// The postings of the cursor's term, moving to the next.
    #[inline]
    fn next(&mut self, l: &PixLayout, pix: &[u8], post: &[u8]) -> Posting {
        let j = self.j;
        self.j += 1;
        if self.mask & (1 << j) != 0 {
            if l.width > 0 {
                let bit = (self.mask & ((1 << j) - 1)).count_ones() as usize * l.width as usize;
                let w = u64_le(pix, self.packed + bit / 8) >> (bit % 8);
                return Posting::One((w & ((1u64 << l.width) - 1)) as u32);
            }
            let n = varint_len(post, self.s);
            self.s += n;
            return Posting::Bytes(self.s - n..self.s);
        }
        let n = varint_at(pix, &mut self.p);
        self.s += n;
        Posting::Bytes(self.s - n..self.s)
    }
}

#[inline]
fn u32_at(b: &[u8], i: usize) -> u32 {
    u32_le(b, i * 4)
}

/// The u32 at byte `i` of `b`, 0 past its end.
#[inline]
fn u32_le(b: &[u8], i: usize) -> u32 {
    b.get(i..i + 4).map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]])).unwrap_or(0)
}

/// Bits appended to a byte vector, bit 0 of each byte first: the packed documents of `.pix`
/// (format 7) and the Rice-coded lists of `.tri` (`trigram.rs`).
#[derive(Default)]
pub struct BitWriter {
    acc: u64,
    used: u32,
}

impl BitWriter {
    /// The low `bits` (at most 33) of `v`.
    pub fn put(&mut self, v: u64, bits: u32, out: &mut Vec<u8>) {
        self.acc |= v << self.used;
        self.used += bits;
        while self.used >= 8 {
            out.push(self.acc as u8);
            self.acc >>= 8;
            self.used -= 8;
        }
    }

    /// The last bits, padded with zeros to a byte.
    pub fn flush(&mut self, out: &mut Vec<u8>) {
        if self.used > 0 {
            out.push(self.acc as u8);
        }
        *self = BitWriter::default();
    }
}

/// Eight bytes of `b` at `i` (little-endian), zeros past its end: the packed documents of
/// `.pix` and the Rice-coded lists of `.tri` (`trigram.rs`) read their bits with it.
#[inline]
pub fn u64_le(b: &[u8], i: usize) -> u64 {
    match b.get(i..i + 8) {
        Some(w) => u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]),
        None => {
            let mut w = [0u8; 8];
            let tail = b.get(i..).unwrap_or(&[]);
            w[..tail.len()].copy_from_slice(tail);
            u64::from_le_bytes(w)
        }
    }
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
    if pix.len() < 8 {
        return None;
    }
    let l = PixLayout::of(pix);
    let n = (u32_at(pix, 0) & !PIX_FLAGS) as usize;
    if pix.len() < l.lens || l.post_off(pix, l.blocks - 1) != post_len {
        return None;
    }
    Some(n)
}

/// Where term `ord`'s postings are, from a `.pix`.
#[inline]
pub fn pix_range(pix: &[u8], post: &[u8], ord: u32) -> Posting {
    let l = PixLayout::of(pix);
    let mut c = l.block(pix, ord as usize / PIX_STEP);
    for _ in 0..ord as usize % PIX_STEP {
        c.skip(&l, pix, post);
    }
    c.next(&l, pix, post)
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
pub fn pix_ranges_scattered(pix: &[u8], post: &[u8], ords: &[u32], out: &mut Vec<Posting>) {
    let l = PixLayout::of(pix);
    let mut last = usize::MAX;
    for &o in ords {
        let b = o as usize / PIX_STEP;
        if b != last {
            prefetch(pix, l.head + b * 4);
            prefetch(pix, l.head + (l.blocks + b) * 4);
            last = b;
        }
    }
    last = usize::MAX;
    for &o in ords {
        let b = o as usize / PIX_STEP;
        if b != last {
            prefetch(pix, l.lens_at(pix, b));
            if l.singles && l.width == 0 {
                // One-document terms' lengths are read from `.post`.
                prefetch(post, l.post_off(pix, b));
            }
            last = b;
        }
    }
    pix_ranges_sorted(pix, post, ords.iter().copied(), |r| out.push(r));
}

/// Postings of ordinals `ords`, walking each `.pix` block once when they are ascending (any
/// order works: a smaller ordinal restarts at its block).
pub fn pix_ranges_sorted(pix: &[u8], post: &[u8], ords: impl Iterator<Item = u32>, mut f: impl FnMut(Posting)) {
    let l = PixLayout::of(pix);
    let mut block = usize::MAX;
    let mut c = BlockCursor { s: 0, p: 0, mask: 0, packed: 0, j: 0 };
    for o in ords {
        let o = o as usize;
        let b = o / PIX_STEP;
        if b != block || o % PIX_STEP < c.j {
            block = b;
            c = l.block(pix, b);
        }
        while c.j < o % PIX_STEP {
            c.skip(&l, pix, post);
        }
        f(c.next(&l, pix, post));
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
    /// by ordinal, in ascending and scattered runs; and, over the same lists, a format 2
    /// `.pix` (a length for every term) and a format 6 one (bitmaps of one-document terms,
    /// which stay in `.post`).
    #[test]
    fn pix_roundtrip() {
        use super::Posting;
        let lists: Vec<Vec<u32>> = (0..100u32).map(|i| (0..[1, 1, 3, 1, 0, 1, 40, 1, 1, 299][i as usize % 10]).map(|d| d * 7 + i * 100_000).collect()).collect();
        // Format 7: `.post` holds the lists of other than one document.
        let mut post7 = Vec::new();
        let mut b = super::PixBuilder::default();
        // Formats 2 and 6: every list in `.post`.
        let mut post = Vec::new();
        let mut all = Vec::new();
        let mut old = Vec::new();
        let (mut v6, mut mask, mut v6_lens) = (Vec::new(), 0u16, Vec::new());
        let blocks = (0..100).step_by(16).collect::<Vec<usize>>();
        for (t, docs) in lists.iter().enumerate() {
            let mut enc = Vec::new();
            super::encode(docs, &mut enc);
            if b.add(&enc) {
                post7.extend_from_slice(&enc);
            }
            all.push(post.len()..post.len() + enc.len());
            super::put_varint(enc.len() as u32, &mut old);
            if docs.len() == 1 {
                mask |= 1 << (t % 16);
            } else {
                super::put_varint(enc.len() as u32, &mut v6_lens);
            }
            if t % 16 == 15 || t == 99 {
                v6.push(mask.to_le_bytes().to_vec());
                v6.last_mut().unwrap().extend_from_slice(&v6_lens);
                mask = 0;
                v6_lens.clear();
            }
            post.extend_from_slice(&enc);
        }
        let pix = b.finish();
        let len_at = |t: usize| {
            let mut p = 0;
            for _ in 0..t {
                super::varint_at(&old, &mut p);
            }
            p
        };
        let head = |flags: u32| {
            let mut h = Vec::new();
            h.extend_from_slice(&(100u32 | flags).to_le_bytes());
            for &t in blocks.iter().chain(std::iter::once(&100)) {
                h.extend_from_slice(&(if t < 100 { all[t].start } else { post.len() } as u32).to_le_bytes());
            }
            h
        };
        // Format 2: the same offsets, a length for every term.
        let mut v2 = head(0);
        for &t in blocks.iter().chain(std::iter::once(&100)) {
            v2.extend_from_slice(&(len_at(t) as u32).to_le_bytes());
        }
        v2.extend_from_slice(&old);
        // Format 6: a bitmap, then the lengths of the other terms, per block.
        let mut f6 = head(1 << 31);
        let mut at = 0;
        for blk in v6.iter().map(|x| x.len()).chain(std::iter::once(0)) {
            f6.extend_from_slice(&(at as u32).to_le_bytes());
            at += blk;
        }
        f6.extend(v6.concat());
        assert!(pix.len() + post7.len() < f6.len() + post.len() && f6.len() < v2.len(), "{} {} {}", pix.len() + post7.len(), f6.len() + post.len(), v2.len());
        for (pix, post, version) in [(&pix, &post7, 7), (&v2, &post, 2), (&f6, &post, 6)] {
            assert_eq!(super::pix_check(pix, post.len()), Some(100));
            let docs_of = |p: &Posting| {
                let mut d = Vec::new();
                p.decode(post, &mut d);
                d
            };
            for i in 0..100 {
                let p = super::pix_range(pix, post, i as u32);
                assert_eq!(docs_of(&p), lists[i]);
                // One-document terms are in the format 7 `.pix`; the others are where they were.
                match p {
                    Posting::One(_) => assert!(version == 7 && lists[i].len() == 1),
                    Posting::Bytes(r) if version < 7 => assert_eq!(r, all[i]),
                    Posting::Bytes(_) => assert_ne!(lists[i].len(), 1),
                }
            }
            let pick: Vec<u32> = vec![0, 1, 5, 15, 16, 17, 40, 41, 99, 99, 3];
            let mut got = Vec::new();
            super::pix_ranges_sorted(pix, post, pick.iter().copied(), |r| got.push(docs_of(&r)));
            assert_eq!(got, pick.iter().map(|&o| lists[o as usize].clone()).collect::<Vec<_>>());
            let mut got = Vec::new();
            super::pix_ranges_scattered(pix, post, &[3, 2, 50, 99, 98], &mut got);
            assert_eq!(got.iter().map(|r| docs_of(r)).collect::<Vec<_>>(), [3, 2, 50, 99, 98].iter().map(|&o: &usize| lists[o].clone()).collect::<Vec<_>>());
        }
    }

    /// Lookup speed of single terms' postings (`pix_range` and decoding), every 7th ordinal
    /// of every field of every part, in two indexes of the same records (a format 6 one and a
    /// format 7 one), interleaved: `LEAKWELL_INDEX_A=dir LEAKWELL_INDEX_B=dir cargo test
    /// --release --lib pix_lookup_speed -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn pix_lookup_speed() {
        let load = |var: &str| {
            let index = std::path::PathBuf::from(std::env::var(var).expect(var));
            let mut parts: Vec<(String, Vec<u8>, Vec<u8>)> = Vec::new();
            let mut segs: Vec<_> = std::fs::read_dir(&index).unwrap().flatten().map(|e| e.path()).filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("seg-")).collect();
            segs.sort();
            for seg in segs {
                let mut ps: Vec<_> = std::fs::read_dir(&seg).unwrap().flatten().map(|e| e.path()).filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("part-")).collect();
                ps.sort();
                for part in ps {
                    let mut fs: Vec<_> = std::fs::read_dir(&part).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().map(|x| x == "pix").unwrap_or(false)).collect();
                    fs.sort();
                    for f in fs {
                        let post = std::fs::read(f.with_extension("post")).unwrap();
                        parts.push((f.display().to_string(), std::fs::read(&f).unwrap(), post));
                    }
                }
            }
            parts
        };
        let (a, b) = (load("LEAKWELL_INDEX_A"), load("LEAKWELL_INDEX_B"));
        let run = |parts: &[(String, Vec<u8>, Vec<u8>)]| {
            let t0 = std::time::Instant::now();
            let (mut n, mut sum) = (0u64, 0u64);
            let mut out = Vec::new();
            for (_, pix, post) in parts {
                let terms = super::pix_check(pix, post.len()).unwrap();
                for o in (0..terms).step_by(7) {
                    out.clear();
                    super::pix_range(pix, post, o as u32).decode(post, &mut out);
                    sum += out.iter().map(|&d| d as u64).sum::<u64>();
                    n += 1;
                }
            }
            (t0.elapsed().as_nanos() as f64 / n as f64, sum)
        };
        let (mut ta, mut tb) = (Vec::new(), Vec::new());
        for round in 0..6 {
            for which in if round % 2 == 0 { [0, 1] } else { [1, 0] } {
                let (ns, sum) = run(if which == 0 { &a } else { &b });
                if which == 0 { ta.push((ns, sum)) } else { tb.push((ns, sum)) }
            }
        }
        assert_eq!(ta[0].1, tb[0].1, "the same documents");
        let mut ta: Vec<f64> = ta.iter().map(|x| x.0).collect();
        let mut tb: Vec<f64> = tb.iter().map(|x| x.0).collect();
        ta.sort_by(f64::total_cmp);
        tb.sort_by(f64::total_cmp);
        println!("A {:.1} ns a lookup, B {:.1} (medians of 6 interleaved passes; {:?} {:?})", ta[3], tb[3], ta, tb);
    }

    /// A format 7 `.pix` packs one-document terms in the bits of the largest document:
    /// documents up to 2^32 - 1 read back, and an all-single field has an empty `.post`.
    #[test]
    fn pix_packed_widths() {
        for top in [0u32, 1, 2, 127, 128, 500_000, (1 << 21) + 5, u32::MAX] {
            let docs: Vec<u32> = (0..37u32).map(|i| (top as u64 * i as u64 / 36) as u32).collect();
            let mut b = super::PixBuilder::default();
            for &d in &docs {
                let mut enc = Vec::new();
                super::encode(&[d], &mut enc);
                assert!(!b.add(&enc));
            }
            let pix = b.finish();
            assert_eq!(super::pix_check(&pix, 0), Some(37));
            for (i, &d) in docs.iter().enumerate() {
                assert_eq!(super::pix_range(&pix, &[], i as u32), super::Posting::One(d), "top {}", top);
            }
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
