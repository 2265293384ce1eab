//! Per-field term dictionary of one segment part, a sorted string table:
//! - `<field>.terms`: the distinct terms in ordinal (byte-sorted) order, each followed by
//!   '\n': the bytes that wildcard and regex scans read, like grep reads a file;
//! - `<field>.tix` (format 2): u32 LE term count, u32 LE step (8), then the start offset
//!   in `.terms` of every step-th term (ordinals 0, 8, 16, …), then the length of
//!   `.terms`; a term between two samples is found by skipping newlines (at most 7). The
//!   step equals the trigram block size: a candidate block starts at a sample;
//! - `<field>.tfc` (format 4, instead of `.terms`): the same terms front-coded in blocks of
//!   `STEP`: a block's first term whole, then each next one as one byte (the length of the
//!   prefix it shares with the term before it, at most 255), the rest of its bytes and
//!   `\n`. `.tix` samples are then the block starts. Much smaller, since sorted terms
//!   share long prefixes; a scan decodes the blocks it reads into plain `term\n` bytes
//!   (cheap next to the search) and searches those as before, a lookup compares whole first
//!   terms and decodes one block.
//! Exact lookups and prefix ranges binary-search the offsets (about 20 probes for a
//! million terms). Not an fst map: it stores every term a second time, a large share of the
//! index, for a lookup that is already microseconds.

use crate::bytes::Bytes;
use crate::error::{EngineError, Result};
use std::io::Write;
use std::ops::Range;
use std::path::Path;
use crate::budget::Budget;

/// Every `SAMPLE`-th term's first 8 bytes, kept in memory: a lookup binary-searches
/// these (cache-friendly) before touching the mapped term table.
const SAMPLE: usize = 32;

pub fn prefix8(t: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    let n = t.len().min(8);
    b[..n].copy_from_slice(&t[..n]);
    u64::from_be_bytes(b)
}

/// First index in `0..n` for which `below` is false (`below` true then false over the range).
fn partition_point(n: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if below(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Terms per sampled offset in `.tix` of the plain tables (written; a reader takes the
/// file's).
pub const STEP: usize = 8;

/// How a field's term table is written.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Coding {
    /// `.terms`, `.tix` samples every `STEP` terms.
    Plain,
    /// `.tfc` in blocks of this many terms.
    Front(usize),
}

/// Field `field`'s table: plain or front-coded (`front_coded`), in blocks of its trigram
/// grain `grain` (`trigram::grain`, 8 or 32 terms): a trigram candidate block must start
/// at a block, and every reader since format 4 takes the file's step when it divides
/// `SAMPLE` (32). Blocks of 32 instead of 8 save three whole first terms and three `.tix`
/// offsets in 32 terms; a lookup decodes up to 32 terms instead of 8.
pub fn coding(field: usize, grain: u32) -> Coding {
    if front_coded(field) {
        Coding::Front((grain as usize).clamp(STEP, SAMPLE))
    } else {
        Coding::Plain
    }
}

/// Whether format 4 writes field `field`'s terms front-coded (`.tfc`): every table but
/// - the password-hash ones (`hashed_password` and the derived tables), whose hex digests
///   share little (front coding hardly shrinks them) and whose terms the password-range
///   lookup borrows (`term`);
/// - `email`, the field of the infix and regex query classes: decoding every term a scan
///   reads makes those classes several times slower, for a small share of the index;
///   `email:*gmail*` scans them whole when its literal is common in local parts too
///   (`scan_local`).
///
/// (`email_local`, written plain by formats 6 to 10, is no longer written.)
pub fn front_coded(field: usize) -> bool {
    use crate::fields::{EMAIL, HASHED_PASSWORD, PASSWORD_NTLM, PASSWORD_SHA1, PASSWORD_SHA256};
    !matches!(field, HASHED_PASSWORD | PASSWORD_SHA256 | PASSWORD_SHA1 | PASSWORD_NTLM | EMAIL)
}

pub struct TermDict {
    samples: Vec<u64>,
    /// `.terms`, or `.tfc` when `front`.
    blob: Bytes,
    /// Front-coded blocks of `step` terms (format 4 `.tfc`).
    front: bool,
    /// `.tix`: the sampled offsets.
    offs: Bytes,
    /// Terms per sample (`.tix`); the first sample is u32 number `head` of the file (in a
    /// digest table: the byte offset of the first digest in `.dig`, after its header).
    step: usize,
    head: usize,
    len: usize,
    /// A digest table (`.dig`): `len` binary digest prefixes of this many bytes each,
    /// sorted, after the header; 0 for a text table. Seen from outside as the lower-case hex
    /// of each prefix (`prefix_range`, `term_into`, `for_each`).
    digest: usize,
    /// The whole digests' width (32 or 20) in a digest table, of which it keeps the first
    /// `digest` bytes: `FieldIndex::hash_terms` confirms each candidate by hashing its
    /// password again. 0 for a text table.
    whole: usize,
}

/// Format 6 `.dig` header flag: the entries are digest prefixes (a second u32 gives the
/// whole digest's width).
pub const DIG_PREFIXES: u32 = 1 << 31;

/// Builds the `.tix` of a term table written term by term.
pub struct TixBuilder {
    n: u32,
    step: usize,
    offs: Vec<u8>,
}

impl TixBuilder {
    pub fn new(step: usize) -> TixBuilder {
        TixBuilder { n: 0, step, offs: Vec::new() }
    }

    #[inline]
    pub fn add(&mut self, start: usize) {
        if self.n as usize % self.step == 0 {
            self.offs.extend_from_slice(&(start as u32).to_le_bytes());
        }
        self.n += 1;
    }

    pub fn finish(self, end: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.offs.len() + 8);
        out.extend_from_slice(&self.n.to_le_bytes());
        out.extend_from_slice(&(self.step as u32).to_le_bytes());
        out.extend_from_slice(&self.offs);
        out.extend_from_slice(&(end as u32).to_le_bytes());
        out
    }
}

/// Writes a field's term table from its distinct terms in byte order: `.tfc` (front-coded)
/// or `.terms` (`coding`); and its `.tix`.
pub fn write<'a>(dir: &Path, field: &str, sorted_terms: impl Iterator<Item = &'a [u8]>, coding: Coding) -> Result<()> {
    let (front, step) = match coding {
        Coding::Plain => (false, STEP),
        Coding::Front(step) => (true, step),
    };
    let name = format!("{}.{}", field, if front { "tfc" } else { "terms" });
    let mut blob = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(dir.join(name))?);
    let mut tix = TixBuilder::new(step);
    let mut pos = 0u64;
    let mut prev: &[u8] = &[];
    for t in sorted_terms {
        let block_start = tix.n as usize % step == 0;
        tix.add(pos as usize);
        let mut shared = 0;
        if front && !block_start {
            shared = common_prefix(prev, t).min(255);
            blob.write_all(&[shared as u8])?;
            pos += 1;
        }
        blob.write_all(&t[shared..])?;
        blob.write_all(b"\n")?;
        pos += (t.len() - shared) as u64 + 1;
        if pos > u32::MAX as u64 {
            return Err(EngineError::InvalidArgument(format!("{}: more than 4 GiB of distinct terms in one part; lower partRecords", field)));
        }
        prev = t;
    }
    blob.flush()?;
    std::fs::write(dir.join(format!("{}.tix", field)), tix.finish(pos as usize))?;
    Ok(())
}

/// `write` from a plain table (`term\n` for each term, in order), as a merge builds it.
pub fn write_plain(dir: &Path, field: &str, plain: &[u8], coding: Coding) -> Result<()> {
    let body = &plain[..plain.len().saturating_sub(1)];
    write(dir, field, body.split(|&b| b == b'\n').filter(|_| !plain.is_empty()), coding)
}

#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The plain-text form of the terms of a run of blocks of a `.tfc`, `src` (the blocks'
/// bytes), appended to `out`: `term\n` for each, 8 bytes at a time. Decoding costs far more a
/// term than a memmem over a plain table: why the tables scanned whole by the benchmark's
/// query classes stay plain (`front_coded`).
#[inline]
fn decode_blocks(src: &[u8], step: usize, out: &mut Vec<u8>) {
    const NL: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let base = out.len();
    out.reserve(src.len() * 2 + 64);
    let mut cap = out.capacity();
    let mut o = out.as_mut_ptr();
    let (mut p, mut w, mut k, mut prev) = (0usize, base, 0usize, base);
    // Room for `n` more bytes plus 8 of slack for the word-wide copies.
    macro_rules! room {
        ($n:expr) => {
            if w + $n + 8 > cap {
                // SAFETY: bytes up to w are written.
                unsafe { out.set_len(w) };
                out.reserve($n + 8 + out.len() / 2);
                cap = out.capacity();
                o = out.as_mut_ptr();
            }
        };
    }
    while p < src.len() {
        let start = w;
        if k % step != 0 {
            // At most the previous term's length (a corrupt file cannot make it read past).
            let shared = (src[p] as usize).min((start - prev).saturating_sub(1));
            p += 1;
            room!(shared);
            // SAFETY: prev + shared < start <= w and w + shared <= cap; `copy` allows overlap.
            unsafe { std::ptr::copy(o.add(prev), o.add(w), shared) };
            w += shared;
        }
        // The rest of the term and its newline, 8 bytes at a time while 8 are readable.
        loop {
            if p + 8 <= src.len() {
                room!(8);
                let y = u64::from_le_bytes(src[p..p + 8].try_into().unwrap()) ^ NL;
                // The lowest byte flagged is the first newline (borrows only flag bytes above it).
                let found = y.wrapping_sub(LO) & !y & HI;
                // SAFETY: w + 8 <= cap (room!).
                unsafe { std::ptr::copy_nonoverlapping(src.as_ptr().add(p), o.add(w), 8) };
                if found != 0 {
                    let n = (found.trailing_zeros() / 8) as usize + 1;
                    p += n;
                    w += n;
                    break;
                }
                p += 8;
                w += 8;
            } else {
                let e = memchr::memchr(b'\n', &src[p..]).map(|x| p + x + 1).unwrap_or(src.len());
                room!(e - p);
                // SAFETY: w + (e - p) <= cap (room!).
                unsafe { std::ptr::copy_nonoverlapping(src.as_ptr().add(p), o.add(w), e - p) };
                w += e - p;
                p = e;
                break;
            }
        }
        prev = start;
        k += 1;
    }
    // SAFETY: bytes base..w were written above.
    unsafe { out.set_len(w) };
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
    /// An email's local part (`fields::email_local`) contains this literal (without `@`).
    InLocal(Vec<u8>),
}

/// `Check::InLocal`, out of line: `matches` stays small enough to be inlined into the scans
/// (inlined, this arm would make `matches` too large to inline, a call for every candidate
/// of every scan).
#[inline(never)]
fn in_local(term: &[u8], lit: &[u8]) -> bool {
    memchr::memmem::find(crate::fields::email_local(term), lit).is_some()
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
            Check::InLocal(lit) => in_local(term, lit),
        }
    }
}

impl TermDict {
    pub fn open(dir: &Path, field: &str) -> Result<Option<TermDict>> {
        let dig = dir.join(format!("{}.dig", field));
        if dig.exists() {
            return Self::open_digest(&dig).map(Some);
        }
        let p = dir.join(format!("{}.tix", field));
        if !p.exists() {
            return Ok(None);
        }
        let offs = Bytes::open(&p)?;
        let tfc = dir.join(format!("{}.tfc", field));
        let front = tfc.exists();
        let blob = Bytes::open(&if front { tfc } else { dir.join(format!("{}.terms", field)) })?;
        if offs.len() < 8 || offs.len() % 4 != 0 {
            return Err(EngineError::Corrupt(format!("{}: bad length", p.display())));
        }
        let len = offs.u32_at(0) as usize;
        let (step, head) = (offs.u32_at(1) as usize, 2);
        let last = offs.len() / 4 - 1;
        if step == 0 || last != head + (len + step - 1) / step || offs.u32_at(last) as usize != blob.len() {
            return Err(EngineError::Corrupt(format!("{}: term offsets do not match", p.display())));
        }
        if front && SAMPLE % step != 0 {
            return Err(EngineError::Corrupt(format!("{}: front-coded blocks of {} terms", p.display(), step)));
        }
        let mut d = TermDict { samples: Vec::new(), blob, front, offs, step, head, len, digest: 0, whole: 0 };
        // Every sample is the first term of a block: whole in a front-coded table too.
        d.samples = (0..len).step_by(SAMPLE).map(|o| prefix8(d.block_first(o / step))).collect();
        Ok(Some(d))
    }

    /// A `.dig` table (format 6): u32 `DIG_PREFIXES | w`, u32 the whole digests' width, then
    /// the first w bytes of each digest, ascending. (Format 5's whole digests, without the
    /// flag, are no longer read.)
    fn open_digest(p: &Path) -> Result<TermDict> {
        let blob = Bytes::open(p)?;
        let raw = if blob.len() >= 8 { blob.u32_at(0) } else { 0 };
        let w = (raw & !DIG_PREFIXES) as usize;
        let head = 8;
        let whole = if raw & DIG_PREFIXES != 0 { blob.u32_at(1) as usize } else { 0 };
        let ok = (1..=64).contains(&w) && blob.len() >= head && (blob.len() - head) % w == 0 && (w..=64).contains(&whole);
        if !ok {
            return Err(EngineError::Corrupt(format!("{}: bad digest table length", p.display())));
        }
        let len = (blob.len() - head) / w;
        Ok(TermDict { samples: Vec::new(), blob, front: false, offs: Bytes::Empty, step: 1, head, len, digest: w, whole })
    }

    /// The whole digests' width of a table of digest prefixes (0 for a text table).
    pub fn prefix_of(&self) -> usize {
        self.whole
    }

    /// Candidates in a table of digest prefixes for a lower-case hex digest or
    /// prefix of one: the entries whose prefix agrees with `hex` as far as either goes.
    pub fn digest_candidates(&self, hex: &[u8]) -> Range<u32> {
        self.digest_range(&hex[..hex.len().min(2 * self.digest)])
    }

    /// Digest `ord` of a digest table (binary).
    #[inline]
    fn digest_at(&self, ord: usize) -> &[u8] {
        &self.blob[self.head + ord * self.digest..self.head + (ord + 1) * self.digest]
    }

    /// Whether this is a digest table (`.dig`).
    pub fn is_digest(&self) -> bool {
        self.digest > 0
    }

    /// Term `ord` appended to `out`: as stored, or as lower-case hex in a digest table.
    pub fn term_into(&self, ord: u32, out: &mut Vec<u8>) {
        if self.digest > 0 {
            crate::digest::hex_into(self.digest_at(ord as usize), out);
        } else {
            out.extend_from_slice(self.term(ord));
        }
    }

    /// The binary digest prefix of term `ord` of a digest table (`None` in a text table).
    pub fn term_digest(&self, ord: u32) -> Option<&[u8]> {
        (self.digest > 0).then(|| self.digest_at(ord as usize))
    }

    /// A digest table's ordinals whose hex starts with `hex` (any length up to the width's;
    /// lower-case).
    fn digest_range(&self, hex: &[u8]) -> Range<u32> {
        let Some(nib) = hex.iter().map(|&c| crate::digest::nibble(c)).collect::<Option<Vec<u8>>>() else { return 0..0 };
        if nib.len() > 2 * self.digest {
            return 0..0;
        }
        // The digests' first ⌈n/2⌉ bytes lie between `lo` and `hi` (an odd last nibble:
        // its byte from x0 to xf).
        let k = (nib.len() + 1) / 2;
        let mut lo = vec![0u8; k];
        let mut hi = vec![0u8; k];
        for (i, &n) in nib.iter().enumerate() {
            lo[i / 2] |= if i % 2 == 0 { n << 4 } else { n };
        }
        hi.copy_from_slice(&lo);
        if nib.len() % 2 == 1 {
            hi[k - 1] |= 0x0f;
        }
        let head = |o: usize| &self.digest_at(o)[..k];
        let start = partition_point(self.len, |o| head(o) < &lo[..]);
        let end = partition_point(self.len, |o| head(o) <= &hi[..]);
        start as u32..end.max(start) as u32
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn get(&self, term: &[u8]) -> Option<u32> {
        if self.digest > 0 {
            // Prefixes only: a lookup goes through `FieldIndex::hash_terms`.
            return None;
        }
        match self.lower_bound(term) {
            (o, true) => Some(o),
            _ => None,
        }
    }

    /// The whole first term of block `b` (ordinal `b * step`).
    #[inline]
    fn block_first(&self, b: usize) -> &[u8] {
        let s = self.offs.u32_at(self.head + b) as usize;
        let e = memchr::memchr(b'\n', &self.blob[s..]).map(|p| s + p).unwrap_or(self.blob.len());
        &self.blob[s..e]
    }

    /// Bytes of blocks `blocks` in the table (front-coded).
    #[inline]
    fn block_bytes(&self, blocks: Range<usize>) -> &[u8] {
        let s = self.offs.u32_at(self.head + blocks.start) as usize;
        let e = self.offs.u32_at(self.head + blocks.end) as usize;
        &self.blob[s..e]
    }

    /// Plain `term\n` bytes of the terms in `range` (and of the rest of their blocks when
    /// front-coded) and the ordinal of the first term in them.
    fn plain_range<'a>(&'a self, range: Range<u32>, buf: &'a mut Vec<u8>) -> (&'a [u8], u32) {
        if !self.front {
            return (&self.blob[self.start(range.start)..self.start(range.end)], range.start);
        }
        let (b0, b1) = (range.start as usize / self.step, (range.end as usize + self.step - 1) / self.step);
        buf.clear();
        decode_blocks(self.block_bytes(b0..b1), self.step, buf);
        (&buf[..], (b0 * self.step) as u32)
    }

    /// Every term in order, `term\n` each: the table itself, or decoded when front-coded.
    pub fn plain(&self) -> std::borrow::Cow<'_, [u8]> {
        if self.digest > 0 {
            let mut out = Vec::with_capacity(self.len * (2 * self.digest + 1));
            for o in 0..self.len as u32 {
                self.term_into(o, &mut out);
                out.push(b'\n');
            }
            return std::borrow::Cow::Owned(out);
        }
        if !self.front {
            return std::borrow::Cow::Borrowed(&self.blob);
        }
        let mut out = Vec::with_capacity(self.blob.len() * 3 / 2);
        decode_blocks(&self.blob, self.step, &mut out);
        std::borrow::Cow::Owned(out)
    }

    /// Byte offset of term `ord` in a plain table (`ord == len`: the table's length).
    #[inline]
    fn start(&self, ord: u32) -> usize {
        let ord = ord as usize;
        if ord >= self.len {
            return self.blob.len();
        }
        let mut s = self.offs.u32_at(self.head + ord / self.step) as usize;
        for _ in 0..ord % self.step {
            s += memchr::memchr(b'\n', &self.blob[s..]).map(|p| p + 1).unwrap_or(self.blob.len() - s);
        }
        s
    }

    /// Term `ord` of a plain table, borrowed from it: the tables that are never front-coded
    /// (the derived password tables, see `front_coded`) and older formats. Others: `for_each`.
    #[inline]
    pub fn term(&self, ord: u32) -> &[u8] {
        debug_assert!(!self.front, "term() of a front-coded table");
        assert!(self.digest == 0, "term() of a digest table (term_into)");
        let s = self.start(ord);
        let e = memchr::memchr(b'\n', &self.blob[s..]).map(|p| s + p).unwrap_or(self.blob.len());
        &self.blob[s..e]
    }

    /// Call `f(ord, term)` for every ordinal in `range`, walking the table once.
    #[inline]
    pub fn for_each(&self, range: Range<u32>, mut f: impl FnMut(u32, &[u8]) -> Result<()>) -> Result<()> {
        if range.start >= range.end {
            return Ok(());
        }
        if self.digest > 0 {
            let mut buf = Vec::with_capacity(2 * self.digest);
            for ord in range {
                buf.clear();
                self.term_into(ord, &mut buf);
                f(ord, &buf)?;
            }
            return Ok(());
        }
        if self.front {
            // A few hundred blocks at a time.
            let mut buf = Vec::new();
            let mut from = range.start;
            while from < range.end {
                let to = (from - from % self.step as u32 + 256 * self.step as u32).min(range.end);
                let (hay, mut ord) = self.plain_range(from..to, &mut buf);
                for t in hay.split(|&b| b == b'\n') {
                    if ord >= to {
                        break;
                    }
                    if ord >= from {
                        f(ord, t)?;
                    }
                    ord += 1;
                }
                from = to;
            }
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

    /// First ordinal whose term is >= `key`, and whether that term is `key`.
    fn lower_bound(&self, key: &[u8]) -> (u32, bool) {
        // Terms never contain NUL, so zero-padded 8-byte prefixes order like the terms:
        // samples with a smaller prefix are below the key, with a larger one above it.
        let kp = prefix8(key);
        let below = self.samples.partition_point(|&s| s < kp);
        let not_above = self.samples.partition_point(|&s| s <= kp);
        let mut lo = below.saturating_sub(1) * SAMPLE;
        let mut hi = (not_above * SAMPLE).min(self.len);
        if self.front {
            // The blocks' whole first terms, then one block decoded.
            let (mut a, mut z) = (lo / self.step, (hi + self.step - 1) / self.step);
            let first = a;
            while a < z {
                let m = (a + z) / 2;
                if self.block_first(m) < key {
                    a = m + 1;
                } else {
                    z = m;
                }
            }
            // Block `a` is the first whose first term is >= key: the answer is in block a-1.
            if a == first {
                let o = (a * self.step).min(self.len);
                return (o as u32, o < self.len && self.block_first(a) == key);
            }
            // Its terms decoded one at a time up to the first >= key (on average half a
            // block: blocks of 32 terms cost a lookup about 16 decoded terms, not 32).
            let src = self.block_bytes(a - 1..a);
            let mut ord = (a - 1) * self.step;
            let mut term: Vec<u8> = Vec::with_capacity(64);
            let mut p = 0;
            while p < src.len() {
                if ord % self.step != 0 {
                    // At most the previous term's length (a corrupt file cannot make it panic).
                    term.truncate(src[p] as usize);
                    p += 1;
                }
                let e = memchr::memchr(b'\n', &src[p..]).map(|i| p + i).unwrap_or(src.len());
                term.extend_from_slice(&src[p..e]);
                p = e + 1;
                if term.as_slice() >= key {
                    return (ord as u32, term == key);
                }
                ord += 1;
                if ord % self.step == 0 {
                    term.clear();
                }
            }
            let o = (a * self.step).min(self.len);
            return (o as u32, o < self.len && self.block_first(a) == key);
        }
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.term(mid as u32) < key {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        (lo as u32, lo < self.len && self.term(lo as u32) == key)
    }

    /// Ordinals of the terms starting with `prefix` (a contiguous range: terms are sorted).
    pub fn prefix_range(&self, prefix: &[u8]) -> Range<u32> {
        if prefix.is_empty() {
            return 0..self.len as u32;
        }
        if self.digest > 0 {
            return self.digest_range(prefix);
        }
        let start = self.lower_bound(prefix).0;
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
        let end = if upper.is_empty() { self.len as u32 } else { self.lower_bound(&upper).0 };
        start..end.max(start)
    }

    /// Ordinal of the term containing byte `pos` of the blob.
    fn ord_at(&self, pos: usize) -> u32 {
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
        (lo * self.step + memchr::memchr_iter(b'\n', &self.blob[s..pos]).count()) as u32
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
        if self.digest > 0 {
            return Err(EngineError::Internal("a digest table is not scanned".into()));
        }
        let finder = literal.filter(|l| !l.is_empty()).map(memchr::memmem::Finder::new);
        let first = blocks.partition_point(|&b| (b + 1) * grain <= range.start);
        // Candidate blocks are scattered over the table: fetch their sampled offsets ahead.
        for &b in &blocks[first..] {
            crate::postings::prefetch(&self.offs, (self.head + (b * grain) as usize / self.step) * 4);
        }
        const AHEAD: usize = 8;
        let mut ahead = first;
        let mut fetch_ahead = |upto: usize| {
            while ahead < blocks.len() && ahead < upto {
                let o = blocks[ahead] * grain;
                if (o as usize) < self.len {
                    // A block starts at a sampled term (the grain is the sampling step).
                    let p = if self.front { self.offs.u32_at(self.head + o as usize / self.step) as usize } else { self.start(o) };
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
        let mut buf = Vec::new();
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
            // One memmem over the run's bytes (decoded when front-coded: whole blocks, from
            // ordinal `ord`); a hit's ordinal is counted in newlines.
            let (hay, mut ord) = self.plain_range(s..e, &mut buf);
            let (mut at, mut from) = (0usize, 0usize);
            while let Some(p) = f.find(&hay[from..]) {
                let pos = from + p;
                ord += memchr::memchr_iter(b'\n', &hay[at..pos]).count() as u32;
                let ts = memchr::memrchr(b'\n', &hay[..pos]).map(|x| x + 1).unwrap_or(0);
                let te = memchr::memchr(b'\n', &hay[pos..]).map(|x| pos + x).unwrap_or(hay.len());
                if ord >= s && ord < e && check.matches(&hay[ts..te]) {
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
        if self.digest > 0 {
            return Err(EngineError::Internal("a digest table is not scanned".into()));
        }
        if range.start >= range.end {
            return Ok(());
        }
        if let (true, Some(lit)) = (self.front, literal.filter(|l| !l.is_empty())) {
            // Decoded a few hundred blocks at a time, each run searched like a plain table.
            let finder = memchr::memmem::Finder::new(lit);
            let mut buf = Vec::new();
            let mut from = range.start;
            while from < range.end {
                budget.check()?;
                let to = (from - from % self.step as u32 + 512 * self.step as u32).min(range.end);
                let (hay, first) = self.plain_range(from..to, &mut buf);
                scan_plain(hay, first, from..to, &finder, check, out);
                from = to;
            }
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

impl TermDict {
    /// Ordinals in `range` of the emails whose local part (before the last `@`; the whole
    /// term when it has none) contains `lit`, a literal without `@`: the `email_local` table's
    /// answer, from the emails themselves. One memmem pass; a hit in a domain (`…@gmail.com`
    /// for `gmail`) is told by the bytes around it and skipped without counting ordinals.
    pub fn scan_local(&self, range: Range<u32>, lit: &[u8], budget: &Budget, out: &mut Vec<u32>) -> Result<()> {
        if lit.is_empty() || lit.contains(&b'@') || self.digest > 0 {
            return Err(EngineError::Internal("scan_local: a literal without @ in a text table".into()));
        }
        if range.start >= range.end {
            return Ok(());
        }
        if self.front {
            // (The emails are never front-coded.) Term by term, each hit checked whole.
            return self.scan(range, Some(lit), &Check::InLocal(lit.to_vec()), budget, out);
        }
        let finder = memchr::memmem::Finder::new(lit);
        let base = self.start(range.start);
        let hay = &self.blob[base..self.start(range.end)];
        // The ordinal of a hit: newlines counted from the previous local hit when it is
        // near, else a binary search of the sampled offsets.
        let (mut ord, mut at) = (range.start, 0usize);
        local_hits(
            hay,
            &finder,
            budget,
            |pos| {
                if pos - at > 4096 {
                    ord = self.ord_at(base + pos);
                } else {
                    ord += memchr::memchr_iter(b'\n', &hay[at..pos]).count() as u32;
                }
                at = pos;
                ord
            },
            |o| out.push(o),
        )
    }
}

/// For every term of `hay` (plain `term\n` bytes) whose local part holds `finder`'s
/// literal (which has no `@`): `keep(ord_of(position))`. A term's first occurrence decides:
/// it lies in the local part when an `@` follows it in the term, or when the term has no
/// `@` at all.
fn local_hits(hay: &[u8], finder: &memchr::memmem::Finder, budget: &Budget, mut ord_of: impl FnMut(usize) -> u32, mut keep: impl FnMut(u32)) -> Result<()> {
    let n = finder.needle().len();
    let (mut from, mut hits) = (0usize, 0u32);
    while let Some(p) = finder.find(&hay[from..]) {
        let pos = from + p;
        let end = pos + n;
        let te = memchr::memchr(b'\n', &hay[end..]).map(|x| end + x).unwrap_or(hay.len());
        // `from` starts a term, so the nearest `@` or newline before the hit tells whether
        // its term has an `@` before it.
        let local = memchr::memchr(b'@', &hay[end..te]).is_some() || memchr::memrchr2(b'@', b'\n', &hay[from..pos]).map(|x| hay[from + x] != b'@').unwrap_or(true);
        if local {
            keep(ord_of(pos));
        }
        from = te + 1;
        hits += 1;
        if hits & 4095 == 0 {
            budget.check()?;
        }
        if from >= hay.len() {
            break;
        }
    }
    Ok(())
}

/// Ordinals in `keep` of the terms of `hay` (plain `term\n` bytes whose first term is
/// ordinal `first`) holding `finder`'s literal and passing `check`. One pass over the
/// newlines between hits counts the terms skipped and finds each hit's term end.
fn scan_plain(hay: &[u8], first: u32, keep: Range<u32>, finder: &memchr::memmem::Finder, check: &Check, out: &mut Vec<u32>) {
    let (mut ord, mut at, mut from) = (first, 0usize, 0usize);
    while let Some(p) = finder.find(&hay[from..]) {
        let pos = from + p;
        let mut te = hay.len();
        for x in memchr::memchr_iter(b'\n', &hay[at..]) {
            if at + x >= pos {
                te = at + x;
                break;
            }
            ord += 1;
        }
        if keep.contains(&ord) {
            let ts = memchr::memrchr(b'\n', &hay[..pos]).map(|x| x + 1).unwrap_or(0);
            if check.matches(&hay[ts..te]) {
                out.push(ord);
            }
        }
        at = te;
        from = te + 1;
        if from >= hay.len() {
            break;
        }
    }
}

#[cfg(test)]
mod tests;

