//! Per-field term dictionary of one segment part, a sorted string table:
//! - `<field>.terms`: the distinct terms in ordinal (byte-sorted) order, each followed by
//!   '\n': the bytes that wildcard and regex scans read, like grep reads a file;
//! - `<field>.tix` (format 2): u32 LE term count, u32 LE step (8), then the start offset
//!   in `.terms` of every step-th term (ordinals 0, 8, 16, …), then the length of
//!   `.terms`; a term between two samples is found by skipping newlines (at most 7). The
//!   step equals the trigram block size: a candidate block starts at a sample;
//! - `<field>.toff` (format 1, still read): u32 LE start offset of every term, plus the end.
//! Exact lookups and prefix ranges binary-search the offsets (about 20 probes for a
//! million terms). An fst map was used first and dropped: it stored every term a second
//! time (+27% index size at 100k records) for a lookup that is already microseconds.

use crate::bytes::Bytes;
use crate::error::{EngineError, Result};
use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::time::Instant;

/// Every `SAMPLE`-th term's first 8 bytes, kept in memory: a lookup binary-searches
/// these (cache-friendly) before touching the mapped term table.
const SAMPLE: usize = 32;

pub fn prefix8(t: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = t.len().min(8);
    b[..n].copy_from_slice(&t[..n]);
    u64::from_be_bytes(b)
}

/// Terms per sampled offset in `.tix` (written; a reader takes the file's).
pub const STEP: usize = 8;

pub struct TermDict {
    samples: Vec<u64>,
    blob: Bytes,
    /// `.tix` (sampled) or `.toff` (every term, format 1).
    offs: Bytes,
    sampled: bool,
    /// Terms per sample (`.tix`); the first sample is u32 number `head` of the file.
    step: usize,
    head: usize,
    len: usize,
}

/// Builds the `.tix` of a term table written term by term.
#[derive(Default)]
pub struct TixBuilder {
    n: u32,
    offs: Vec<u8>,
}

impl TixBuilder {
    #[inline]
    pub fn add(&mut self, start: usize) {
        if self.n as usize % STEP == 0 {
            self.offs.extend_from_slice(&(start as u32).to_le_bytes());
        }
        self.n += 1;
    }

    pub fn finish(self, end: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.offs.len() + 8);
        out.extend_from_slice(&self.n.to_le_bytes());
        out.extend_from_slice(&(STEP as u32).to_le_bytes());
        out.extend_from_slice(&self.offs);
        out.extend_from_slice(&(end as u32).to_le_bytes());
        out
    }
}

pub fn write(dir: &Path, field: &str, sorted_terms: &[&[u8]]) -> Result<()> {
    let mut blob = std::io::BufWriter::new(std::fs::File::create(dir.join(format!("{}.terms", field)))?);
    let mut tix = TixBuilder::default();
    let mut pos = 0u64;
    for t in sorted_terms.iter() {
        tix.add(pos as usize);
        blob.write_all(t)?;
        blob.write_all(b"\n")?;
        pos += t.len() as u64 + 1;
        if pos > u32::MAX as u64 {
            return Err(EngineError::InvalidArgument(format!("{}: more than 4 GiB of distinct terms in one part; lower partRecords", field)));
        }
    }
    blob.flush()?;
    std::fs::write(dir.join(format!("{}.tix", field)), tix.finish(pos as usize))?;
    Ok(())
}

/// Checks the deadline every few thousand steps of a scan.
pub struct Budget {
    pub deadline: Option<Instant>,
    pub budget_ms: u64,
}

impl Budget {
    #[inline]
    pub fn check(&self) -> Result<()> {
        if let Some(d) = self.deadline {
            if Instant::now() > d {
                return Err(EngineError::Timeout { budget_ms: self.budget_ms });
            }
        }
        Ok(())
    }
}

/// How a scanned term is confirmed once it contains the required literal.
pub enum Check {
    /// `*lit*`: containing the literal is enough.
    Contains,
    /// `*lit`: the term ends with it.
    EndsWith(Vec<u8>),
    /// A wildcard made of literals and `*` only (`john*smith*`): the pieces in order,
    /// the first at the start, the last at the end unless the pattern ends with `*`.
    /// Greedy leftmost matching is exact for such patterns; no automaton.
    Glob { pieces: Vec<Vec<u8>>, open_end: bool },
    Regex(regex::bytes::Regex),
}

fn glob_match(t: &[u8], pieces: &[Vec<u8>], open_end: bool) -> bool {
    let n = pieces.len();
    if n == 0 {
        return true;
    }
    let first = &pieces[0];
    if !t.starts_with(first) {
        return false;
    }
    let mut at = first.len();
    if n == 1 {
        return open_end || at == t.len();
    }
    let last = &pieces[n - 1];
    for p in &pieces[1..n - 1] {
        match memchr::memmem::find(&t[at..], p) {
            Some(i) => at += i + p.len(),
            None => return false,
        }
    }
    if open_end {
        memchr::memmem::find(&t[at..], last).is_some()
    } else {
        t.len() >= at + last.len() && t.ends_with(last)
    }
}

impl Check {
    #[inline]
    pub fn matches(&self, term: &[u8]) -> bool {
        match self {
            Check::Contains => true,
            Check::EndsWith(s) => term.ends_with(s),
            Check::Glob { pieces, open_end } => glob_match(term, pieces, *open_end),
            Check::Regex(re) => re.is_match(term),
        }
    }
}

impl TermDict {
    pub fn open(dir: &Path, field: &str) -> Result<Option<TermDict>> {
        let tix = dir.join(format!("{}.tix", field));
        let p = if tix.exists() { tix } else { dir.join(format!("{}.toff", field)) };
        if !p.exists() {
            return Ok(None);
        }
        let sampled = p.extension().map(|e| e == "tix").unwrap_or(false);
        let offs = Bytes::open(&p)?;
        let blob = Bytes::open(&dir.join(format!("{}.terms", field)))?;
        if offs.len() < 8 || offs.len() % 4 != 0 {
            return Err(EngineError::Corrupt(format!("{}: bad length", p.display())));
        }
        let len = if sampled { offs.u32_at(0) as usize } else { offs.len() / 4 - 1 };
        let (step, head) = if sampled { (offs.u32_at(1) as usize, 2) } else { (1, 0) };
        let last = offs.len() / 4 - 1;
        if step == 0 || (sampled && last != head + (len + step - 1) / step) || offs.u32_at(last) as usize != blob.len() {
            return Err(EngineError::Corrupt(format!("{}: term offsets do not match", p.display())));
        }
        let mut d = TermDict { samples: Vec::new(), blob, offs, sampled, step, head, len };
        d.samples = (0..len).step_by(SAMPLE).map(|o| prefix8(d.term(o as u32))).collect();
        Ok(Some(d))
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn get(&self, term: &[u8]) -> Option<u32> {
        let o = self.lower_bound(term);
        if (o as usize) < self.len && self.term(o) == term {
            Some(o)
        } else {
            None
        }
    }

    /// Byte offset of term `ord` in the table (`ord == len`: the table's length).
    #[inline]
    pub fn start(&self, ord: u32) -> usize {
        let ord = ord as usize;
        if !self.sampled {
            return self.offs.u32_at(ord) as usize;
        }
        if ord >= self.len {
            return self.blob.len();
        }
        let mut s = self.offs.u32_at(self.head + ord / self.step) as usize;
        for _ in 0..ord % self.step {
            s += memchr::memchr(b'\n', &self.blob[s..]).map(|p| p + 1).unwrap_or(self.blob.len() - s);
        }
        s
    }

    #[inline]
    pub fn term(&self, ord: u32) -> &[u8] {
        if !self.sampled {
            let s = self.offs.u32_at(ord as usize) as usize;
            let e = self.offs.u32_at(ord as usize + 1) as usize;
            return &self.blob[s..e - 1];
        }
        let s = self.start(ord);
        let e = memchr::memchr(b'\n', &self.blob[s..]).map(|p| s + p).unwrap_or(self.blob.len());
        &self.blob[s..e]
    }

    /// The term starting at byte `pos` and the position of the next one.
    #[inline]
    pub fn term_at(&self, pos: usize) -> (&[u8], usize) {
        let e = memchr::memchr(b'\n', &self.blob[pos..]).map(|p| pos + p).unwrap_or(self.blob.len());
        (&self.blob[pos..e], e + 1)
    }

    /// Call `f(ord, term)` for every ordinal in `range`, walking the table once.
    #[inline]
    pub fn for_each(&self, range: Range<u32>, mut f: impl FnMut(u32, &[u8]) -> Result<()>) -> Result<()> {
        if range.start >= range.end {
            return Ok(());
        }
        let mut s = self.start(range.start);
        for ord in range {
            let e = memchr::memchr(b'\n', &self.blob[s..]).map(|p| s + p).unwrap_or(self.blob.len());
            f(ord, &self.blob[s..e])?;
            s = e + 1;
        }
        Ok(())
    }

    /// First ordinal whose term is >= `key`.
    fn lower_bound(&self, key: &[u8]) -> u32 {
        // Terms never contain NUL, so zero-padded 8-byte prefixes order like the terms:
        // samples with a smaller prefix are below the key, with a larger one above it.
        let kp = prefix8(key);
        let below = self.samples.partition_point(|&s| s < kp);
        let not_above = self.samples.partition_point(|&s| s <= kp);
        let mut lo = below.saturating_sub(1) * SAMPLE;
        let mut hi = (not_above * SAMPLE).min(self.len);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.term(mid as u32) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo as u32
    }

    /// Ordinals of the terms starting with `prefix` (a contiguous range: terms are sorted).
    pub fn prefix_range(&self, prefix: &[u8]) -> Range<u32> {
        if prefix.is_empty() {
            return 0..self.len as u32;
        }
        let start = self.lower_bound(prefix);
        // Successor of the prefix: drop trailing 0xff bytes, increment the last.
        let mut upper = prefix.to_vec();
        while let Some(&last) = upper.last() {
            if last == 0xff {
                upper.pop();
            } else {
                *upper.last_mut().unwrap() += 1;
                break;
            }
        }
        let end = if upper.is_empty() { self.len as u32 } else { self.lower_bound(&upper) };
        start..end.max(start)
    }

    /// Ordinal of the term containing byte `pos` of the blob.
    fn ord_at(&self, pos: usize) -> u32 {
        if self.sampled {
            // The sample at or before `pos`, then the newlines between.
            let (mut lo, mut hi) = (0usize, (self.len + self.step - 1) / self.step);
            while hi - lo > 1 {
                let mid = (lo + hi) / 2;
                if self.offs.u32_at(self.head + mid) as usize <= pos {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            let s = self.offs.u32_at(self.head + lo) as usize;
            return (lo * self.step + memchr::memchr_iter(b'\n', &self.blob[s..pos]).count()) as u32;
        }
        let (mut lo, mut hi) = (0usize, self.len);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.offs.u32_at(mid) as usize <= pos {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo as u32
    }

    /// Ordinals in `range` and in the trigram candidate `blocks` (ascending, `grain`
    /// ordinals each) whose term contains `literal` and passes `check`.
    #[allow(clippy::too_many_arguments)]
    pub fn scan_blocks(
        &self,
        range: Range<u32>,
        blocks: &[u32],
        grain: u32,
        literal: Option<&[u8]>,
        check: &Check,
        budget: &Budget,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        let finder = literal.filter(|l| !l.is_empty()).map(memchr::memmem::Finder::new);
        let first = blocks.partition_point(|&b| (b + 1) * grain <= range.start);
        // Candidate blocks are scattered over the table: fetch their sampled offsets ahead.
        if self.sampled {
            for &b in &blocks[first..] {
                crate::postings::prefetch(&self.offs, (self.head + (b * grain) as usize / self.step) * 4);
            }
        }
        const AHEAD: usize = 8;
        let mut ahead = first;
        let mut fetch_ahead = |upto: usize| {
            while ahead < blocks.len() && ahead < upto {
                let o = blocks[ahead] * grain;
                if (o as usize) < self.len {
                    // A block starts at a sampled term (the grain is the sampling step).
                    let p = self.start(o);
                    crate::postings::prefetch(&self.blob, p);
                    crate::postings::prefetch(&self.blob, p + 64);
                    crate::postings::prefetch(&self.blob, p + 128);
                }
                ahead += 1;
            }
        };
        // Consecutive candidate blocks are searched as one run of bytes.
        let mut i = first;
        let mut n = 0u32;
        while i < blocks.len() {
            let s = (blocks[i] * grain).max(range.start);
            if s >= range.end {
                break;
            }
            fetch_ahead(i + AHEAD);
            let mut j = i + 1;
            while j < blocks.len() && blocks[j] == blocks[j - 1] + 1 {
                j += 1;
            }
            let e = ((blocks[j - 1] + 1) * grain).min(range.end);
            i = j;
            n += 1;
            if n & 255 == 0 {
                budget.check()?;
            }
            let f = match &finder {
                Some(f) => f,
                None => {
                    self.for_each(s..e, |ord, t| {
                        if check.matches(t) {
                            out.push(ord);
                        }
                        Ok(())
                    })?;
                    continue;
                }
            };
            // One memmem over the run's bytes; a hit's ordinal is counted in newlines.
            let base = self.start(s);
            let hay = &self.blob[base..self.start(e)];
            let (mut ord, mut at, mut from) = (s, 0usize, 0usize);
            while let Some(p) = f.find(&hay[from..]) {
                let pos = from + p;
                ord += memchr::memchr_iter(b'\n', &hay[at..pos]).count() as u32;
                let ts = memchr::memrchr(b'\n', &hay[..pos]).map(|x| x + 1).unwrap_or(0);
                let te = memchr::memchr(b'\n', &hay[pos..]).map(|x| pos + x).unwrap_or(hay.len());
                if check.matches(&hay[ts..te]) {
                    out.push(ord);
                }
                at = te;
                from = te + 1;
                if from >= hay.len() {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Ordinals in `range` whose term matches `re`; when `literal` is given every match
    /// must contain it, so only terms holding an occurrence of it are checked.
    pub fn scan(
        &self,
        range: Range<u32>,
        literal: Option<&[u8]>,
        check: &Check,
        budget: &Budget,
        out: &mut Vec<u32>,
    ) -> Result<()> {
        if range.start >= range.end {
            return Ok(());
        }
        match literal {
            Some(lit) if !lit.is_empty() => {
                let base = self.start(range.start);
                let end = self.start(range.end);
                let hay = &self.blob[base..end];
                let finder = memchr::memmem::Finder::new(lit);
                let mut n = 0u32;
                // The ordinal of a hit: newlines counted from the previous hit when it is
                // near, else a binary search of the sampled offsets.
                let (mut ord, mut at, mut from) = (range.start, 0usize, 0usize);
                while let Some(p) = finder.find(&hay[from..]) {
                    let pos = from + p;
                    let te;
                    if pos - at > 4096 {
                        ord = self.ord_at(base + pos);
                        te = memchr::memchr(b'\n', &hay[pos..]).map(|x| pos + x).unwrap_or(hay.len());
                    } else {
                        // Near the previous hit (dense matches): one pass over the newlines
                        // counts the terms skipped and finds this term's end.
                        let mut end = hay.len();
                        for x in memchr::memchr_iter(b'\n', &hay[at..]) {
                            if at + x >= pos {
                                end = at + x;
                                break;
                            }
                            ord += 1;
                        }
                        te = end;
                    }
                    // `*lit*`: containing the literal is the match; no need for the term.
                    if matches!(check, Check::Contains) {
                        out.push(ord);
                    } else {
                        let ts = memchr::memrchr(b'\n', &hay[..pos]).map(|x| x + 1).unwrap_or(0);
                        if check.matches(&hay[ts..te]) {
                            out.push(ord);
                        }
                    }
                    // Continue after this term: one check per term is enough.
                    at = te;
                    from = te + 1;
                    n += 1;
                    if n & 1023 == 0 {
                        budget.check()?;
                    }
                    if from >= hay.len() {
                        break;
                    }
                }
            }
            _ => {
                self.for_each(range, |ord, t| {
                    if ord & 4095 == 0 {
                        budget.check()?;
                    }
                    if check.matches(t) {
                        out.push(ord);
                    }
                    Ok(())
                })?;
            }
        }
        Ok(())
    }
}
