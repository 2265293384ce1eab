//! Postings: the sorted document numbers of one term, delta-encoded as LEB128 varints
//! (since format 7 a one-document term's document is packed into `.pix` instead).

/// Terms per block of `.pix`, the sampled postings index, before format 9: u32 term count n
/// (with the flags below); for each block of `PIX_STEP` terms (and one past the end) u32
/// offset of its first postings in `.post`; the same count of u32 offsets into the blocks
/// area; the blocks. (Formats 2-5 had every term's length in a block and no flag; they are
/// no longer read.)
///
/// Format 6 (`PIX_SINGLES` set in the count): a block is a u16 bitmap of its
/// terms whose postings are one varint (one document: most terms of a large index), whose
/// length is read from `.post` itself, then the varint lengths of the others
/// only. About 0.7 bytes a term.
///
/// Format 7 (`PIX_PACKED` too, and a u32 W after the count): the bitmap is followed by the
/// documents of the block's one-document terms, W bits each, which `.post` no longer holds.
///
/// Format 9 (`PIX_INLINE` too): blocks of a step the file gives (up to 64 terms when most
/// are one-document ones, `pix_step`), one u32 offset of each in the blocks area, and the
/// block's `.post` offset at its start, beside its bitmap (`PixBuilder::finish`). A
/// one-document term is found with a popcount of its block's bitmap whatever its place, and
/// a term with more documents reads the varint lengths of the others before it only, so a
/// larger block costs a lookup about nothing: 16 bytes of offsets and bitmap a 64 terms
/// instead of 40.
pub const PIX_STEP: usize = 16;

/// Format 6 `.pix` flag (bit 31 of the term count): blocks begin with a bitmap of their
/// one-document terms.
const PIX_SINGLES: u32 = 1 << 31;

/// Format 7 `.pix` flag (bit 30 of the term count, with bit 31): the documents of a block's
/// one-document terms follow its bitmap, packed in W bits each (W: the u32 after the count,
/// the bits of the largest of them), instead of being in `.post`. At 10M records most terms
/// have one document, a 3-4 byte varint in `.post` against W = 19-22 bits here.
const PIX_PACKED: u32 = 1 << 30;

/// Format 9 `.pix` flag (bit 29, with bits 31 and 30): after W, u32 step and u32 length of
/// `.post`; one u32 offset a block into the blocks area, each block beginning with its
/// u32 `.post` offset and its bitmap of `step` bits.
const PIX_INLINE: u32 = 1 << 29;

const PIX_FLAGS: u32 = PIX_SINGLES | PIX_PACKED | PIX_INLINE;

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
    /// Bit t: term t has one document, kept in `singles`; the others' varint lengths are
    /// in `lens`.
    one: Vec<u64>,
    singles: Vec<u32>,
    lens: Vec<u8>,
}

impl PixBuilder {
    /// The next term's postings, as encoded (`encode`). Returns whether they go to `.post`:
    /// a one-document term's document is kept here instead.
    #[inline]
    pub fn add(&mut self, postings: &[u8]) -> bool {
        let t = self.n as usize;
        self.n += 1;
        if t % 64 == 0 {
            self.one.push(0);
        }
        if one_varint(postings) {
            let mut p = 0;
            self.singles.push(varint_at(postings, &mut p) as u32);
            self.one[t / 64] |= 1 << (t % 64);
            return false;
        }
        put_varint(postings.len() as u32, &mut self.lens);
        self.pos += postings.len() as u64;
        true
    }

    /// The format 9 `.pix`: u32 n with the flags; u32 W; u32 step S (`pix_step`: 64, 32 or
    /// 16); u32 length of `.post`; for each block of S terms and one past the end, u32 offset
    /// of the block in the blocks area (the last: its length); the blocks area, per block:
    /// u32 `.post` offset of its first term with other than one document, its bitmap of
    /// one-document terms (S/8 bytes), their documents packed in W bits each, the varint
    /// lengths of its other terms.
    pub fn finish(self) -> Vec<u8> {
        let n = self.n as usize;
        let step = pix_step(n, self.singles.len());
        let width = 32 - self.singles.iter().max().copied().unwrap_or(0).leading_zeros().min(31);
        let blocks = (n + step - 1) / step;
        let mut area = Vec::with_capacity(blocks * (4 + step / 8) + self.singles.len() * width as usize / 8 + self.lens.len() + 8);
        let mut offs = Vec::with_capacity(blocks + 1);
        let (mut single, mut len, mut post) = (0usize, 0usize, 0u64);
        for b in 0..blocks {
            offs.push(area.len() as u32);
            area.extend_from_slice(&(post as u32).to_le_bytes());
            let mask = self.one[b * step / 64] >> (b * step % 64) & block_bits(step);
            area.extend_from_slice(&mask.to_le_bytes()[..step / 8]);
            let ones = mask.count_ones() as usize;
            let mut bits = BitWriter::default();
            for &d in &self.singles[single..single + ones] {
                bits.put(u64::from(d), width, &mut area);
            }
            bits.flush(&mut area);
            single += ones;
            let from = len;
            for _ in 0..step.min(n - b * step) - ones {
                post += varint_at(&self.lens, &mut len) as u64;
            }
            area.extend_from_slice(&self.lens[from..len]);
        }
        offs.push(area.len() as u32);
        let mut out = Vec::with_capacity(16 + offs.len() * 4 + area.len());
        for v in [self.n | PIX_FLAGS, width, step as u32, self.pos as u32].iter().chain(&offs) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&area);
        out
    }
}

/// Terms per `.pix` block (format 9) of a field of `n` terms, `ones` of them with one
/// document: the more there are, the larger the block. A lookup of a term with more
/// documents reads the varint lengths of the others before it in its block, about
/// `step · m² / 2` of them on average for a share m of such terms: 64 terms when m is at most
/// 1/8 (email, username, phone, IP addresses, whose values are mostly unique), 32 up to 1/4
/// (names, hashed passwords), else 16 (passwords, domains).
fn pix_step(n: usize, ones: usize) -> usize {
    match n - ones {
        m if m * 8 <= n => 64,
        m if m * 4 <= n => 32,
        _ => PIX_STEP,
    }
}

/// The bits of a block's terms before term `j` (at most 63).
#[inline]
fn below(j: usize) -> u64 {
    (1u64 << j) - 1
}

/// The bits of a block of `step` terms (8 to 64).
#[inline]
fn block_bits(step: usize) -> u64 {
    u64::MAX >> (64 - step)
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

/// A `.pix` read: where its offsets and its blocks start, whether its blocks begin with a
/// bitmap of one-document terms (format 6), the bits of their packed documents (format 7; 0
/// before), the terms per block (a power of two: `shift` its log2) and whether a block begins
/// with its `.post` offset (format 9).
struct PixLayout {
    /// Entries of each offset array: one a block and one past the end.
    entries: usize,
    head: usize,
    /// Where the blocks area starts, and the first entry of the array of its offsets.
    blocks: usize,
    array: usize,
    width: u32,
    shift: u32,
    inline: bool,
}

/// A `.pix` block being walked: the next term's postings offset in `.post`, the position of
/// the next length in `.pix` (0 until one is read, in a block with packed documents: it
/// follows them), the bitmap of one-document terms, where their packed documents are, the
/// next term's index in the block and the count of one-document terms before it (a walk
/// over a block's terms reads their packed documents one after another).
struct BlockCursor {
    s: usize,
    p: usize,
    mask: u64,
    packed: usize,
    j: usize,
    ones: usize,
}

impl PixLayout {
    #[inline]
    fn of(pix: &[u8]) -> PixLayout {
        let raw = u32_at(pix, 0);
        let n = (raw & !PIX_FLAGS) as usize;
        let inline = raw & PIX_INLINE != 0;
        // A step other than 8, 16, 32 or 64 is refused by `pix_check`.
        let shift = if inline { u32_at(pix, 2).clamp(8, 64).trailing_zeros() } else { PIX_STEP.trailing_zeros() };
        let entries = ((n + (1 << shift) - 1) >> shift) + 1;
        let (head, width) = match (inline, raw & PIX_PACKED != 0) {
            (true, _) => (16, u32_at(pix, 1).min(32)),
            (false, true) => (8, u32_at(pix, 1).min(32)),
            (false, false) => (4, 0),
        };
        let (blocks, array) = if inline { (head + entries * 4, head) } else { (head + entries * 8, head + entries * 4) };
        PixLayout { entries, head, blocks, array, width, shift, inline }
    }

    /// Terms per block.
    #[inline]
    fn step(&self) -> usize {
        1 << self.shift
    }

    /// Block `b`'s first postings offset in `.post` (before format 9).
    #[inline]
    fn post_off(&self, pix: &[u8], b: usize) -> usize {
        u32_le(pix, self.head + b * 4) as usize
    }

    /// Where block `b`'s bytes (its lengths; its bitmap first, since format 6; its `.post`
    /// offset first, since format 9) are in `pix`.
    #[inline]
    fn block_at(&self, pix: &[u8], b: usize) -> usize {
        self.blocks + u32_le(pix, self.array + b * 4) as usize
    }

    /// A cursor at block `b`'s first term.
    #[inline]
    fn block(&self, pix: &[u8], b: usize) -> BlockCursor {
        let mut p = self.block_at(pix, b);
        let s = if self.inline {
            p += 4;
            u32_le(pix, p - 4) as usize
        } else {
            self.post_off(pix, b)
        };
        let mask = u64_le(pix, p) & block_bits(self.step());
        let packed = p + self.step() / 8;
        // Format 6: the lengths follow the bitmap.
        let p = if self.width == 0 { packed } else { 0 };
        BlockCursor { s, p, mask, packed, j: 0, ones: 0 }
    }
}

impl BlockCursor {
    /// Where the next varint length is: after the packed documents (formats 7 to 9), found
    /// when the first is read.
    #[inline]
    fn lens(&mut self, l: &PixLayout) -> &mut usize {
        if self.p == 0 {
            self.p = self.packed + (self.mask.count_ones() * l.width + 7) as usize / 8;
        }
        &mut self.p
    }

    /// Moves to the block's term `j` (not before the cursor's) without reading the postings
    /// of the terms in between: since format 7 only the varint lengths of those with other
    /// than one document are read, as a packed one-document term has nothing in `.post`.
    #[inline(always)]
    fn seek(&mut self, l: &PixLayout, pix: &[u8], post: &[u8], j: usize) {
        if j == self.j {
            return;
        }
        if l.width == 0 {
            // Format 6: a one-document term's length is read from `.post`.
            while self.j < j {
                self.next(l, pix, post);
            }
            return;
        }
        let between = below(j) & !below(self.j);
        self.ones += (self.mask & between).count_ones() as usize;
        let mut others = !self.mask & between;
        self.j = j;
        if others == 0 {
            return;
        }
        let (mut p, mut s) = (*self.lens(l), self.s);
        while others != 0 {
            others &= others - 1;
            s += varint_at(pix, &mut p);
        }
        (self.p, self.s) = (p, s);
    }

    /// The document of the block's `k`-th one-document term (formats 7 to 9).
    #[inline(always)]
    fn packed_doc(&self, l: &PixLayout, pix: &[u8], k: usize) -> u32 {
        let bit = k * l.width as usize;
        let w = u64_le(pix, self.packed + bit / 8) >> (bit % 8);
        (w & ((1u64 << l.width) - 1)) as u32
    }

    /// The postings of the cursor's term, moving to the next.
    #[inline(always)]
    fn next(&mut self, l: &PixLayout, pix: &[u8], post: &[u8]) -> Posting {
        let j = self.j;
        self.j += 1;
        if self.mask & (1 << j) != 0 {
            if l.width > 0 {
                self.ones += 1;
                return Posting::One(self.packed_doc(l, pix, self.ones - 1));
            }
            let n = varint_len(post, self.s);
            self.s += n;
            return Posting::Bytes(self.s - n..self.s);
        }
        let n = varint_at(pix, self.lens(l));
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
    // Most are one byte (a `.pix` length, a gap).
    if let Some(&x) = b.get(*p) {
        if x & 0x80 == 0 {
            *p += 1;
            return x as usize;
        }
    }
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
    if pix.len() < 8 || u32_at(pix, 0) & PIX_SINGLES == 0 {
        return None;
    }
    let l = PixLayout::of(pix);
    let n = (u32_at(pix, 0) & !PIX_FLAGS) as usize;
    if pix.len() < l.blocks {
        return None;
    }
    if l.inline {
        let step = u32_at(pix, 2) as usize;
        let ok = (8..=64).contains(&step) && step.is_power_of_two() && u32_at(pix, 3) as usize == post_len && l.block_at(pix, l.entries - 1) == pix.len();
        return ok.then_some(n);
    }
    (l.post_off(pix, l.entries - 1) == post_len).then_some(n)
}

/// Where term `ord`'s postings are, from a `.pix`.
#[inline]
pub fn pix_range(pix: &[u8], post: &[u8], ord: u32) -> Posting {
    let l = PixLayout::of(pix);
    let mut c = l.block(pix, ord as usize >> l.shift);
    let j = ord as usize & (l.step() - 1);
    if l.width > 0 && c.mask & (1 << j) != 0 {
        return Posting::One(c.packed_doc(&l, pix, (c.mask & below(j)).count_ones() as usize));
    }
    c.seek(&l, pix, post, j);
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
        let b = o as usize >> l.shift;
        if b != last {
            prefetch(pix, l.array + b * 4);
            if !l.inline {
                prefetch(pix, l.head + b * 4);
            }
            last = b;
        }
    }
    last = usize::MAX;
    for &o in ords {
        let b = o as usize >> l.shift;
        if b != last {
            prefetch(pix, l.block_at(pix, b));
            if l.width == 0 {
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
    let mut c = BlockCursor { s: 0, p: 0, mask: 0, packed: 0, j: 0, ones: 0 };
    for o in ords {
        let (b, j) = (o as usize >> l.shift, o as usize & (l.step() - 1));
        if b != block || j < c.j {
            block = b;
            c = l.block(pix, b);
        }
        c.seek(&l, pix, post, j);
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
    /// by ordinal, in ascending and scattered runs; and, over the same lists, a format 6 one (bitmaps of one-document terms,
    /// which stay in `.post`) and a format 7 one (their documents packed in blocks of 16).
    /// Three times: fields of 90%, 80% and 60% one-document terms (blocks of 64, 32 and 16
    /// since format 9).
    #[test]
    fn pix_roundtrip() {
        for (sizes, step) in [([1, 1, 3, 1, 0, 1, 40, 1, 1, 299], 16), ([1, 1, 1, 1, 2, 1, 1, 7, 1, 1], 32), ([1, 1, 1, 1, 2, 1, 1, 1, 1, 1], 64)] {
            let lists: Vec<Vec<u32>> = (0..150u32).map(|i| (0..sizes[i as usize % 10] + u32::from(i == 149)).map(|d| d * 7 + i * 100_000).collect()).collect();
            pix_forms_answer_alike(&lists, step);
        }
    }

    fn pix_forms_answer_alike(lists: &[Vec<u32>], step: usize) {
        use super::Posting;
        let n = lists.len();
        // Formats 7 to 9: `.post` holds the lists of other than one document.
        let mut post7 = Vec::new();
        let mut b = super::PixBuilder::default();
        // Formats 2 and 6: every list in `.post`.
        let mut post = Vec::new();
        let mut all = Vec::new();
        let mut old = Vec::new();
        // Formats 6 and 7, per block of 16: its bitmap and the lengths of its other terms;
        // format 7: the `.post` offset of the block and its packed documents.
        let (mut v6, mut v7, mut off7, mut mask, mut lens, mut ones) = (Vec::new(), Vec::new(), Vec::new(), 0u16, Vec::new(), Vec::new());
        let width = 32 - lists.iter().filter(|l| l.len() == 1).map(|l| l[0]).max().unwrap_or(0).leading_zeros();
        for (t, docs) in lists.iter().enumerate() {
            let mut enc = Vec::new();
            super::encode(docs, &mut enc);
            if t % 16 == 0 {
                off7.push(post7.len() as u32);
            }
            if b.add(&enc) {
                post7.extend_from_slice(&enc);
            }
            all.push(post.len()..post.len() + enc.len());
            super::put_varint(enc.len() as u32, &mut old);
            if docs.len() == 1 {
                mask |= 1 << (t % 16);
                ones.push(docs[0]);
            } else {
                super::put_varint(enc.len() as u32, &mut lens);
            }
            if t % 16 == 15 || t == n - 1 {
                let mut blk = mask.to_le_bytes().to_vec();
                v6.push([&blk[..], &lens[..]].concat());
                let mut bits = super::BitWriter::default();
                for &d in &ones {
                    bits.put(u64::from(d), width, &mut blk);
                }
                bits.flush(&mut blk);
                v7.push([&blk[..], &lens[..]].concat());
                mask = 0;
                lens.clear();
                ones.clear();
            }
            post.extend_from_slice(&enc);
        }
        off7.push(post7.len() as u32);
        let pix = b.finish();
        assert_eq!(super::u32_at(&pix, 2) as usize, step);
        let len_at = |t: usize| {
            let mut p = 0;
            for _ in 0..t {
                super::varint_at(&old, &mut p);
            }
            p
        };
        let starts: Vec<usize> = (0..n).step_by(16).chain(std::iter::once(n)).collect();
        let head = |flags: u32| {
            let mut h = Vec::new();
            h.extend_from_slice(&(n as u32 | flags).to_le_bytes());
            for &t in &starts {
                h.extend_from_slice(&(if t < n { all[t].start } else { post.len() } as u32).to_le_bytes());
            }
            h
        };
        let area = |h: &mut Vec<u8>, blocks: &[Vec<u8>]| {
            let mut at = 0;
            for blk in blocks.iter().map(|x| x.len()).chain(std::iter::once(0)) {
                h.extend_from_slice(&(at as u32).to_le_bytes());
                at += blk;
            }
            h.extend(blocks.concat());
        };
        // Format 2: the same offsets, a length for every term.
        let mut v2 = head(0);
        for &t in &starts {
            v2.extend_from_slice(&(len_at(t) as u32).to_le_bytes());
        }
        v2.extend_from_slice(&old);
        // Format 6: a bitmap, then the lengths of the other terms, per block.
        let mut f6 = head(1 << 31);
        area(&mut f6, &v6);
        // Format 7: W after the count, the `.post` offsets of `post7`, the packed documents.
        let mut f7 = [(n as u32 | 3 << 30).to_le_bytes(), width.to_le_bytes()].concat();
        f7.extend(off7.iter().flat_map(|o| o.to_le_bytes()));
        area(&mut f7, &v7);
        assert!(pix.len() + post7.len() < f6.len() + post.len() && f6.len() < v2.len(), "{} {} {}", pix.len() + post7.len(), f6.len() + post.len(), v2.len());
        assert!(pix.len() < f7.len() || step == 16, "{} {}", pix.len(), f7.len());
        // Format 2 (no flag) is no longer read.
        assert_eq!(super::pix_check(&v2, post.len()), None);
        for (pix, post, version) in [(&pix, &post7, 9), (&f7, &post7, 7), (&f6, &post, 6)] {
            assert_eq!(super::pix_check(pix, post.len()), Some(n), "format {}", version);
            assert_eq!(super::pix_check(pix, post.len() + 1), None);
            // Format 9 gives its blocks' length (a cut file is refused).
            if version == 9 {
                assert_eq!(super::pix_check(&pix[..pix.len() - 1], post.len()), None);
            }
            let docs_of = |p: &Posting| {
                let mut d = Vec::new();
                p.decode(post, &mut d);
                d
            };
            for i in 0..n {
                let p = super::pix_range(pix, post, i as u32);
                assert_eq!(docs_of(&p), lists[i], "format {} term {}", version, i);
                // One-document terms are in the format 7 to 9 `.pix`; the others are where they were.
                match p {
                    Posting::One(_) => assert!(version >= 7 && lists[i].len() == 1),
                    Posting::Bytes(r) if version < 7 => assert_eq!(r, all[i]),
                    Posting::Bytes(_) => assert_ne!(lists[i].len(), 1),
                }
            }
            let pick: Vec<u32> = vec![0, 1, 5, 15, 16, 17, 40, 41, 63, 64, 65, 99, 99, 3, 127, 128, 149];
            let mut got = Vec::new();
            super::pix_ranges_sorted(pix, post, pick.iter().copied(), |r| got.push(docs_of(&r)));
            assert_eq!(got, pick.iter().map(|&o| lists[o as usize].clone()).collect::<Vec<_>>());
            let mut got = Vec::new();
            let scattered = [3, 2, 50, 99, 98, 70, 149];
            super::pix_ranges_scattered(pix, post, &scattered, &mut got);
            assert_eq!(got.iter().map(|r| docs_of(r)).collect::<Vec<_>>(), scattered.iter().map(|&o| lists[o as usize].clone()).collect::<Vec<_>>());
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
