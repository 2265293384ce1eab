//! `store.map`: where each block of a store of formats 4-8 is, and its walk.

use super::*;

/// A block of a store of formats 4-8, as its block map gives it.
#[derive(Clone, Copy)]
pub(super) struct Loc {
    /// The block's number in the part.
    pub(super) b: usize,
    /// Its bytes in store.dat.
    pub(super) offset: u64,
    pub(super) end: u64,
    pub(super) first: u32,
    pub(super) docs: u32,
    pub(super) ctx_base: u16,
    pub(super) dict: u16,
    /// A bare zstd block (format 8), else a whole zstd frame.
    pub(super) bare: bool,
}

/// Where a walk over a block map stands: the next block, and where its entry, bytes and
/// first document are (format 8).
pub(super) struct Cursor {
    pub(super) b: usize,
    pub(super) entry: usize,
    pub(super) offset: u64,
    pub(super) first: u32,
    pub(super) run: usize,
}

/// `store.map`. Validated when opened: every read below is within the file.
pub(super) enum BlockMap {
    /// Formats 4-7: `MAP_ENTRY` bytes a block, then the end of store.dat and the document
    /// count; every block a zstd frame.
    Fixed { map: Bytes, blocks: usize },
    /// Format 8: a 16-byte head (magic, blocks, runs, blocks a group), the runs (u32 first
    /// block, u16 context base, u16 dictionary), a group entry for every G blocks and
    /// one more (u64 offset in store.dat, u32 first document, u32 offset of the group's
    /// first block entry), then the block entries (u8 record count | `FRAME_BIT`, LEB128
    /// byte length).
    Grouped { map: Bytes, blocks: usize, runs: usize, group: usize, groups: usize },
}

// One bounds check and one load each (the lookups of a cold page make many).
#[inline]
pub(super) fn le_u16(b: &[u8], p: usize) -> u16 {
    u16::from_le_bytes(b[p..p + 2].try_into().expect("2 bytes"))
}

#[inline]
pub(super) fn le_u32(b: &[u8], p: usize) -> u32 {
    u32::from_le_bytes(b[p..p + 4].try_into().expect("4 bytes"))
}

#[inline]
pub(super) fn le_u64(b: &[u8], p: usize) -> u64 {
    u64::from_le_bytes(b[p..p + 8].try_into().expect("8 bytes"))
}

/// Format 8: the last of the `runs` runs of `map` starting at or before block `b`.
pub(super) fn run_of(map: &[u8], runs: usize, b: usize) -> usize {
    let (mut lo, mut hi) = (0usize, runs);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if le_u32(map, MAP8_HEAD + mid * MAP8_RUN) as usize <= b {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

impl BlockMap {
    /// The map of a store.dat of `dat_len` bytes, checked whole (blocks in order, within
    /// store.dat, each of 1 to 127 records, dictionaries among the `dicts`).
    pub(super) fn open(map: Bytes, dat_len: usize, dicts: usize) -> std::result::Result<BlockMap, &'static str> {
        let m = if map.starts_with(&MAP8_MAGIC) {
            if map.len() < MAP8_HEAD {
                return Err("store.map truncated");
            }
            let (blocks, runs, group) = (le_u32(&map, 4) as usize, le_u32(&map, 8) as usize, le_u32(&map, 12) as usize);
            if !(1..=1024).contains(&group) || (runs == 0) != (blocks == 0) || runs > blocks {
                return Err("store.map has a bad head");
            }
            let groups = blocks.div_ceil(group);
            let entries = MAP8_HEAD + runs * MAP8_RUN + (groups + 1) * MAP8_GROUP;
            if map.len() < entries {
                return Err("store.map truncated");
            }
            BlockMap::Grouped { map, blocks, runs, group, groups }
        } else {
            if map.len() < MAP_ENTRY || map.len() % MAP_ENTRY != 0 {
                return Err("store.map has a bad length");
            }
            BlockMap::Fixed { blocks: map.len() / MAP_ENTRY - 1, map }
        };
        if let BlockMap::Grouped { map, runs, .. } = &m {
            // Runs: the first at block 0, then ascending.
            for r in 0..*runs {
                let first = le_u32(map, MAP8_HEAD + r * MAP8_RUN) as usize;
                let prev = if r == 0 { None } else { Some(le_u32(map, MAP8_HEAD + (r - 1) * MAP8_RUN) as usize) };
                if (r == 0 && first != 0) || prev.is_some_and(|p| p >= first) || first >= m.blocks() {
                    return Err("store.map has bad runs");
                }
            }
        }
        // Every block once, as the readers will see them.
        let mut c = m.start();
        for b in 0..m.blocks() {
            if let BlockMap::Grouped { map, group, .. } = &m {
                if b.is_multiple_of(*group) {
                    let g = m.group_at(b / group);
                    if (g.entry, g.offset, g.first) != (c.entry, c.offset, c.first) {
                        return Err("store.map has a bad group");
                    }
                }
                // The entry's byte and its varint (at most 5 bytes) within the map.
                let at = c.entry;
                if at >= map.len() || !map[at + 1..].iter().take(5).any(|&x| x < 0x80) {
                    return Err("store.map truncated");
                }
            }
            let e = m.next(&mut c);
            if e.end < e.offset || e.end > dat_len as u64 || e.docs == 0 || e.docs >= FRAME_BIT as u32 || (e.dict != NO_DICT && e.dict as usize >= dicts) {
                return Err("store.map has a bad block");
            }
        }
        let (end, docs) = m.end();
        let whole = match &m {
            BlockMap::Fixed { .. } => true,
            BlockMap::Grouped { map, groups, .. } => m.group_at(*groups).entry == map.len() && c.entry == map.len() && c.offset == end && c.first == docs,
        };
        if !whole || end != dat_len as u64 {
            return Err("store.map does not match store.dat");
        }
        Ok(m)
    }

    pub(super) fn blocks(&self) -> usize {
        match self {
            BlockMap::Fixed { blocks, .. } | BlockMap::Grouped { blocks, .. } => *blocks,
        }
    }

    /// The end of store.dat and the part's document count.
    pub(super) fn end(&self) -> (u64, u32) {
        match self {
            BlockMap::Fixed { map, blocks } => (le_u64(map, blocks * MAP_ENTRY), le_u32(map, blocks * MAP_ENTRY + 8)),
            BlockMap::Grouped { groups, .. } => {
                let g = self.group_at(*groups);
                (g.offset, g.first)
            }
        }
    }

    pub(super) fn start(&self) -> Cursor {
        match self {
            BlockMap::Fixed { .. } => Cursor { b: 0, entry: 0, offset: 0, first: 0, run: 0 },
            BlockMap::Grouped { .. } => self.group_at(0),
        }
    }

    /// Format 8: the cursor at group `g`'s first block.
    pub(super) fn group_at(&self, g: usize) -> Cursor {
        let BlockMap::Grouped { map, runs, group, groups, .. } = self else { unreachable!("format 8 maps only") };
        let at = MAP8_HEAD + runs * MAP8_RUN + g * MAP8_GROUP;
        let entries = MAP8_HEAD + runs * MAP8_RUN + (groups + 1) * MAP8_GROUP;
        let b = g * group;
        Cursor { b, entry: entries + le_u32(map, at + 12) as usize, offset: le_u64(map, at), first: le_u32(map, at + 8), run: run_of(map, *runs, b) }
    }

    /// The block at the cursor; the cursor moves to the next one.
    #[inline]
    pub(super) fn next(&self, c: &mut Cursor) -> Loc {
        let b = c.b;
        c.b += 1;
        match self {
            BlockMap::Fixed { map, .. } => {
                let (e, n) = (b * MAP_ENTRY, (b + 1) * MAP_ENTRY);
                let (offset, first) = (le_u64(map, e), le_u32(map, e + 8));
                Loc { b, offset, end: le_u64(map, n), first, docs: le_u32(map, n + 8).wrapping_sub(first), ctx_base: le_u16(map, e + 12), dict: le_u16(map, e + 14), bare: false }
            }
            BlockMap::Grouped { map, runs, .. } => {
                let head = map[c.entry];
                c.entry += 1;
                let len = crate::postings::varint_at(map, &mut c.entry) as u64;
                let r = MAP8_HEAD + c.run * MAP8_RUN;
                let docs = (head & !FRAME_BIT) as u32;
                let loc = Loc { b, offset: c.offset, end: c.offset + len, first: c.first, docs, ctx_base: le_u16(map, r + 4), dict: le_u16(map, r + 6), bare: head & FRAME_BIT == 0 };
                c.offset += len;
                c.first = c.first.wrapping_add(docs);
                if c.run + 1 < *runs && le_u32(map, r + MAP8_RUN) as usize == c.b {
                    c.run += 1;
                }
                loc
            }
        }
    }

    /// Block `b` (< blocks).
    pub(super) fn get(&self, b: usize) -> Loc {
        match self {
            BlockMap::Fixed { .. } => self.next(&mut Cursor { b, entry: 0, offset: 0, first: 0, run: 0 }),
            BlockMap::Grouped { group, .. } => self.walk_group(b / group, |x, _, _| x == b),
        }
    }

    /// The block holding document `doc`: the last one whose first document is <= doc
    /// (blocks > 0).
    pub(super) fn locate(&self, doc: u32) -> Loc {
        // The last block (formats 4-7) or group (format 8) whose first document is <= doc.
        let (n, at, step) = match self {
            BlockMap::Fixed { blocks, .. } => (*blocks, 8, MAP_ENTRY),
            BlockMap::Grouped { runs, groups, .. } => (*groups, MAP8_HEAD + runs * MAP8_RUN + 8, MAP8_GROUP),
        };
        let (BlockMap::Fixed { map, .. } | BlockMap::Grouped { map, .. }) = self;
        let (mut lo, mut hi) = (0usize, n);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if le_u32(map, at + mid * step) <= doc {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        match self {
            BlockMap::Fixed { .. } => self.get(lo),
            BlockMap::Grouped { .. } => self.walk_group(lo, |_, first, docs| doc.wrapping_sub(first) < docs),
        }
    }

    /// Format 8: the first block of group `g` for which `stop(block, first document,
    /// records)` holds, or the group's last block. Only the entries are read on the way.
    #[inline]
    pub(super) fn walk_group(&self, g: usize, stop: impl Fn(usize, u32, u32) -> bool) -> Loc {
        let BlockMap::Grouped { map, blocks, runs, group, groups } = self else { unreachable!("format 8 maps only") };
        let m: &[u8] = map;
        let at = MAP8_HEAD + runs * MAP8_RUN + g * MAP8_GROUP;
        let mut e = MAP8_HEAD + runs * MAP8_RUN + (groups + 1) * MAP8_GROUP + le_u32(m, at + 12) as usize;
        let (mut offset, mut first) = (le_u64(m, at), le_u32(m, at + 8));
        let mut b = g * group;
        let last = (b + group).min(*blocks) - 1;
        loop {
            let (head, l0) = (m[e], m[e + 1]);
            let docs = (head & !FRAME_BIT) as u32;
            // Most lengths take one or two bytes.
            let len = if l0 < 0x80 {
                e += 2;
                l0 as u64
            } else if m[e + 2] < 0x80 {
                e += 3;
                (l0 & 0x7F) as u64 | (m[e - 1] as u64) << 7
            } else {
                e += 1;
                crate::postings::varint_at(m, &mut e) as u64
            };
            if b == last || stop(b, first, docs) {
                let r = MAP8_HEAD + run_of(m, *runs, b) * MAP8_RUN;
                return Loc { b, offset, end: offset + len, first, docs, ctx_base: le_u16(m, r + 4), dict: le_u16(m, r + 6), bare: head & FRAME_BIT == 0 };
            }
            offset += len;
            first = first.wrapping_add(docs);
            b += 1;
        }
    }
}
