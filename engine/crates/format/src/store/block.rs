//! A decompressed store block and how its records are found in it.

use super::*;

/// A decompressed block: documents `first..first + len()` of the part.
pub struct Block {
    pub(super) data: Vec<u8>,
    pub(super) first: u32,
    pub(super) ctx_base: u16,
    /// Where the ends and the lines start (formats 4-6), or the ends themselves (7).
    pub(super) layout: BlockLayout,
    /// Every record's line is UTF-8, checked once when the block was loaded (`Line`).
    utf8: bool,
}

/// A stored line, and whether it is known to be UTF-8. Lines are UTF-8 when the ingest
/// wrote them, but a store is a file that can be damaged: a block is checked once
/// when it is loaded (`Block::check_utf8`), so that a page of lines from cached blocks is not
/// checked again line by line (about a tenth of a scattered page's time).
#[derive(Clone, Copy)]
pub struct Line<'a> {
    bytes: &'a [u8],
    /// Set only by `Block::line`, for a block whose `utf8` is set.
    utf8: bool,
}

impl<'a> Line<'a> {
    pub fn bytes(self) -> &'a [u8] {
        self.bytes
    }

    /// The line as text; None when it is not UTF-8.
    #[inline]
    pub fn text(self) -> Option<&'a str> {
        if self.utf8 {
            // Safety: `utf8` is set only for a record of a block whose lines were checked
            // to be UTF-8 with every record's start and end on a char boundary
            // (`Block::check_utf8`); a block's bytes are not changed after it is made.
            Some(unsafe { std::str::from_utf8_unchecked(self.bytes) })
        } else {
            std::str::from_utf8(self.bytes).ok()
        }
    }
}

pub(super) enum BlockLayout {
    V4 { n: u32, ends: usize, lines: usize },
    /// Format 7: the contexts at 2 (one, or one a record), each record's end in the lines
    /// (decoded from the varints when the block is loaded), where the lines start.
    V7 { one: bool, ends: Vec<u32>, lines: usize },
}

impl Block {
    pub(super) fn v4(data: Vec<u8>, first: u32, docs: u32, ctx_base: u16) -> Result<Block> {
        let bad = || EngineError::Corrupt("store block has a bad header".into());
        let head = u16::from_le_bytes([*data.first().ok_or_else(bad)?, *data.get(1).ok_or_else(bad)?]);
        if head & V7_BLOCK != 0 {
            let n = (head & !(V7_BLOCK | ONE_CTX)) as usize;
            let one = head & ONE_CTX != 0;
            let mut p = 2 + 2 * if one { 1 } else { n };
            let mut ends = Vec::with_capacity(n);
            let mut end = 0u32;
            for _ in 0..n {
                let first = *data.get(p).ok_or_else(bad)?;
                p += 1;
                // Lines under 128 bytes (most) take one byte.
                let l = if first < 0x80 {
                    first as u32
                } else {
                    let (mut l, mut shift) = ((first & 0x7f) as u32, 7);
                    loop {
                        let b = *data.get(p).ok_or_else(bad)?;
                        p += 1;
                        l |= ((b & 0x7f) as u32).checked_shl(shift).ok_or_else(bad)?;
                        shift += 7;
                        if b < 0x80 {
                            break l;
                        }
                    }
                };
                end = end.checked_add(l).ok_or_else(bad)?;
                ends.push(end);
            }
            if n as u32 != docs || n == 0 || p + end as usize != data.len() {
                return Err(bad());
            }
            return Ok(Block { data, first, ctx_base, layout: BlockLayout::V7 { one, ends, lines: p }, utf8: false }.check_utf8());
        }
        let n = head as u32;
        let ends = 2 + 2 * n as usize;
        let lines = ends + 4 * n as usize;
        if n != docs || lines > data.len() || (n > 0 && lines + get_u32(&data, lines - 4)? as usize != data.len()) {
            return Err(bad());
        }
        Ok(Block { data, first, ctx_base, layout: BlockLayout::V4 { n, ends, lines }, utf8: false }.check_utf8())
    }

    /// Sets `utf8` when the lines (one run of bytes) are UTF-8 and every
    /// record starts and ends on a char boundary, so each record's line is UTF-8 alone. A
    /// block's lines are about 1 KiB: checked once when it is decompressed.
    fn check_utf8(mut self) -> Block {
        let lines = match &self.layout {
            BlockLayout::V4 { lines, .. } | BlockLayout::V7 { lines, .. } => *lines,
        };
        let Some(Ok(text)) = self.data.get(lines..).map(std::str::from_utf8) else { return self };
        // An end out of the lines fails here (and again, as corrupt, when read).
        let at = |e: Option<usize>| e.is_some_and(|e| text.is_char_boundary(e));
        self.utf8 = match &self.layout {
            BlockLayout::V4 { n, ends, .. } => (0..*n as usize).all(|k| at(get_u32(&self.data, ends + 4 * k).ok().map(|e| e as usize))),
            BlockLayout::V7 { ends, .. } => ends.iter().all(|&e| at(Some(e as usize))),
        };
        self
    }

    pub fn first_doc(&self) -> u32 {
        self.first
    }

    pub fn len(&self) -> u32 {
        match &self.layout {
            BlockLayout::V4 { n, .. } => *n,
            BlockLayout::V7 { ends, .. } => ends.len() as u32,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether document `doc` of the part is in this block.
    #[inline]
    pub fn holds(&self, doc: u32) -> bool {
        doc >= self.first && doc - self.first < self.len()
    }

    /// Document `doc` of the part: its context index (in the segment's `contexts`) and line.
    #[inline]
    pub fn record(&self, doc: u32) -> Result<(u16, &[u8])> {
        if !self.holds(doc) {
            return Err(EngineError::Corrupt("document not in its store block".into()));
        }
        self.record_at((doc - self.first) as usize)
    }

    /// Document `doc` of the part: its context index and line (`Line::text` without a
    /// second UTF-8 check when the block passed one).
    #[inline]
    pub fn line(&self, doc: u32) -> Result<(u16, Line<'_>)> {
        let (ctx, bytes) = self.record(doc)?;
        Ok((ctx, Line { bytes, utf8: self.utf8 }))
    }

    /// The k-th record of the block.
    pub fn record_at(&self, k: usize) -> Result<(u16, &[u8])> {
        let d = &self.data;
        match &self.layout {
            BlockLayout::V4 { n, ends, lines } => {
                if k >= *n as usize {
                    return Err(EngineError::Corrupt("store block has too few records".into()));
                }
                let ctx = u16::from_le_bytes([d[2 + 2 * k], d[3 + 2 * k]]);
                let start = if k == 0 { 0 } else { get_u32(d, ends + 4 * (k - 1))? as usize };
                let end = get_u32(d, ends + 4 * k)? as usize;
                let line = d.get(lines + start..lines + end).ok_or_else(|| EngineError::Corrupt("store value truncated".into()))?;
                Ok((ctx.wrapping_add(self.ctx_base), line))
            }
            BlockLayout::V7 { one, ends, lines } => {
                let end = *ends.get(k).ok_or_else(|| EngineError::Corrupt("store block has too few records".into()))? as usize;
                let c = if *one { 2 } else { 2 + 2 * k };
                let ctx = u16::from_le_bytes([d[c], d[c + 1]]);
                let start = if k == 0 { 0 } else { ends[k - 1] as usize };
                Ok((ctx.wrapping_add(self.ctx_base), &d[lines + start..lines + end]))
            }
        }
    }

    /// Memory held (what the cache counts).
    pub(super) fn bytes(&self) -> usize {
        self.data.capacity()
            + match &self.layout {
                BlockLayout::V4 { .. } => 0,
                BlockLayout::V7 { ends, .. } => ends.capacity() * 4,
            }
            + 64
    }
}
