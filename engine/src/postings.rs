//! Postings: the sorted document numbers of one term, delta-encoded as LEB128 varints.

/// Terms per block of `.pix`, the postings index of format 2: u32 term count n; for each
/// block of `PIX_STEP` terms (and one past the end) u32 offset of its first postings in
/// `.post`; the same count of u32 offsets into the lengths area; the lengths area: every
/// term's postings byte length as a LEB128 varint. About 1.5 bytes a term instead of the 4
/// of format 1's `.poff` (u32 offset per term).
pub const PIX_STEP: usize = 16;

#[derive(Default)]
pub struct PixBuilder {
    n: u32,
    pos: u64,
    post_off: Vec<u32>,
    len_off: Vec<u32>,
    lens: Vec<u8>,
}

impl PixBuilder {
    /// The next term's postings take `len` bytes in `.post`.
    #[inline]
    pub fn add(&mut self, len: usize) {
        if self.n as usize % PIX_STEP == 0 {
            self.post_off.push(self.pos as u32);
            self.len_off.push(self.lens.len() as u32);
        }
        put_varint(len as u32, &mut self.lens);
        self.n += 1;
        self.pos += len as u64;
    }

    pub fn finish(mut self) -> Vec<u8> {
        self.post_off.push(self.pos as u32);
        self.len_off.push(self.lens.len() as u32);
        let mut out = Vec::with_capacity(4 + self.post_off.len() * 8 + self.lens.len());
        out.extend_from_slice(&self.n.to_le_bytes());
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
    let n = u32_at(pix, 0) as usize;
    let blocks = (n + PIX_STEP - 1) / PIX_STEP + 1;
    if pix.len() < 4 + blocks * 8 || u32_at(pix, blocks) as usize != post_len {
        return None;
    }
    Some(n)
}

/// Byte range in `.post` of term `ord`'s postings, from a `.pix`.
#[inline]
pub fn pix_range(pix: &[u8], ord: u32) -> std::ops::Range<usize> {
    let n = u32_at(pix, 0) as usize;
    let blocks = (n + PIX_STEP - 1) / PIX_STEP + 1;
    let b = ord as usize / PIX_STEP;
    let mut s = u32_at(pix, 1 + b) as usize;
    let lens = 4 + blocks * 8;
    let mut p = lens + u32_at(pix, 1 + blocks + b) as usize;
    for _ in 0..ord as usize % PIX_STEP {
        s += varint_at(pix, &mut p);
    }
    let l = varint_at(pix, &mut p);
    s..s + l
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
pub fn pix_ranges_scattered(pix: &[u8], ords: &[u32], out: &mut Vec<std::ops::Range<usize>>) {
    let n = u32_at(pix, 0) as usize;
    let blocks = (n + PIX_STEP - 1) / PIX_STEP + 1;
    let lens = 4 + blocks * 8;
    let mut last = usize::MAX;
    for &o in ords {
        let b = o as usize / PIX_STEP;
        if b != last {
            prefetch(pix, 4 + (1 + b) * 4);
            prefetch(pix, 4 + (1 + blocks + b) * 4);
            last = b;
        }
    }
    last = usize::MAX;
    for &o in ords {
        let b = o as usize / PIX_STEP;
        if b != last {
            prefetch(pix, lens + u32_at(pix, 1 + blocks + b) as usize);
            last = b;
        }
    }
    pix_ranges_sorted(pix, ords.iter().copied(), |r| out.push(r));
}

/// Byte ranges in `.post` of ordinals `ords`, walking each `.pix` block once when they are
/// ascending (any order works: a smaller ordinal restarts at its block).
pub fn pix_ranges_sorted(pix: &[u8], ords: impl Iterator<Item = u32>, mut f: impl FnMut(std::ops::Range<usize>)) {
    let n = u32_at(pix, 0) as usize;
    let blocks = (n + PIX_STEP - 1) / PIX_STEP + 1;
    let lens = 4 + blocks * 8;
    let (mut block, mut k, mut s, mut p) = (usize::MAX, 0usize, 0usize, 0usize);
    for o in ords {
        let o = o as usize;
        let b = o / PIX_STEP;
        if b != block || o < k {
            block = b;
            k = b * PIX_STEP;
            s = u32_at(pix, 1 + b) as usize;
            p = lens + u32_at(pix, 1 + blocks + b) as usize;
        }
        while k < o {
            s += varint_at(pix, &mut p);
            k += 1;
        }
        let l = varint_at(pix, &mut p);
        f(s..s + l);
        s += l;
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
    #[test]
    fn pix_roundtrip() {
        let lens: Vec<usize> = (0..100).map(|i| (i * 37) % 300).collect();
        let mut b = super::PixBuilder::default();
        for &l in &lens {
            b.add(l);
        }
        let total: usize = lens.iter().sum();
        let pix = b.finish();
        assert_eq!(super::pix_check(&pix, total), Some(100));
        let mut s = 0;
        let mut all = Vec::new();
        for (i, &l) in lens.iter().enumerate() {
            assert_eq!(super::pix_range(&pix, i as u32), s..s + l);
            all.push(s..s + l);
            s += l;
        }
        let pick: Vec<u32> = vec![0, 1, 5, 15, 16, 17, 40, 41, 99];
        let mut got = Vec::new();
        super::pix_ranges_sorted(&pix, pick.iter().copied(), |r| got.push(r));
        assert_eq!(got, pick.iter().map(|&o| all[o as usize].clone()).collect::<Vec<_>>());
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
