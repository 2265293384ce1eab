//! Opening one input for the parser: plain files, single-stream compression (gzip, xz,
//! bzip2, zstd), tar archives (plain or compressed) and zip archives, each recognised by its
//! first bytes, never by its name. Every member of an archive goes through `stream()` on
//! its own, labelled `archive!member`. Nothing is ever extracted to disk.
//!
//! Bombs: each decoding layer is capped relative to the bytes it consumed (`max_ratio`,
//! `max_expanded_bytes`), and everything decoded from one file shares one budget relative
//! to the file's size, so members that overlap or nest cannot add up past it. Sizes written
//! in the archive (gzip trailer, zip headers, tar headers) are never used to allocate; zip's
//! are only checked against what was actually read.
//!
//! A read error (truncated or corrupt data, a cap exceeded) stops the run: `run()` then
//! publishes nothing, and the error names the file (or member) and the reason.

use super::Ingest;
use crate::error::{EngineError, Result};
use crate::contract::FileSummary;
use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What the first bytes of an input say it is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    Plain,
    Gzip,
    Xz,
    Bzip2,
    Zstd,
    Zip,
    Tar,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Plain => "none",
            Kind::Gzip => "gzip",
            Kind::Xz => "xz",
            Kind::Bzip2 => "bzip2",
            Kind::Zstd => "zstd",
            Kind::Zip => "zip",
            Kind::Tar => "tar",
        }
    }
}

/// Bytes read ahead to recognise an input: a tar header is the longest signature.
const HEAD: usize = 512;
/// liblzma's memory limit: a hostile header cannot ask for a 1.5 GiB dictionary.
const XZ_MEMLIMIT: u64 = 256 << 20;
/// zstd window: 2^27 = 128 MiB, the format's default limit, written down on purpose.
const ZSTD_WINDOW_LOG_MAX: u32 = 27;
/// Bounds on tar's metadata entries (GNU long names, pax headers), read into memory.
const TAR_MAX_LONG_NAME: u64 = 64 << 10;
const TAR_MAX_PAX: u64 = 1 << 20;
/// Slack over `max_ratio x compressed` for tiny inputs (as for gzip before archives).
const SLACK: u64 = 16 << 20;
/// Directory depth walked below a directory given on the command line.
const MAX_DEPTH: usize = 64;
/// Largest zip central directory read (into memory, a few times its size): room for the
/// 65,535 members one ingest can hold with long names.
const MAX_ZIP_DIRECTORY: u64 = 64 << 20;

pub(crate) fn sniff(head: &[u8]) -> Kind {
    const BZ_BLOCK: [u8; 6] = [0x31, 0x41, 0x59, 0x26, 0x53, 0x59];
    const BZ_END: [u8; 6] = [0x17, 0x72, 0x45, 0x38, 0x50, 0x90];
    if head.starts_with(&[0x1f, 0x8b]) {
        Kind::Gzip
    } else if head.starts_with(&[0xfd, b'7', b'z', b'X', b'Z', 0]) {
        Kind::Xz
    } else if head.len() >= 10 && head.starts_with(b"BZh") && (b'1'..=b'9').contains(&head[3]) && (head[4..10] == BZ_BLOCK || head[4..10] == BZ_END) {
        Kind::Bzip2
    } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        Kind::Zstd
    } else if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Kind::Zip
    } else if head.len() == HEAD && tar_checksum_ok(head) {
        Kind::Tar
    } else {
        Kind::Plain
    }
}

/// Octal number of a tar header field (NUL- or space-terminated), or base-256 when the top
/// bit of the first byte is set (GNU, for sizes of 8 GiB and more).
fn tar_number(f: &[u8]) -> Option<u64> {
    if f.first().map_or(false, |b| b & 0x80 != 0) {
        let mut v: u64 = (f[0] & 0x7f) as u64;
        for &b in &f[1..] {
            v = v.checked_mul(256)?.checked_add(b as u64)?;
        }
        return Some(v);
    }
    let s: &[u8] = {
        let start = f.iter().position(|&b| b != b' ').unwrap_or(f.len());
        let end = f[start..].iter().position(|&b| b == 0 || b == b' ').map_or(f.len(), |p| start + p);
        &f[start..end]
    };
    if s.is_empty() {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        if !(b'0'..=b'7').contains(&b) {
            return None;
        }
        v = v.checked_mul(8)?.checked_add((b - b'0') as u64)?;
    }
    Some(v)
}

fn tar_checksum_ok(h: &[u8]) -> bool {
    let Some(stored) = tar_number(&h[148..156]) else { return false };
    let sum: u64 = h.iter().enumerate().map(|(i, &b)| if (148..156).contains(&i) { b' ' as u64 } else { b as u64 }).sum();
    stored == sum
}

fn tar_name(h: &[u8]) -> String {
    let field = |f: &[u8]| String::from_utf8_lossy(&f[..f.iter().position(|&b| b == 0).unwrap_or(f.len())]).into_owned();
    let name = field(&h[0..100]);
    // ustar splits long names into a prefix and a name.
    if &h[257..262] == b"ustar" && h[345] != 0 {
        format!("{}/{}", field(&h[345..500]), name)
    } else {
        name
    }
}

/// `path` and `size` of a pax extended header ("LEN key=value\n" records).
fn pax_fields(data: &[u8]) -> (Option<String>, Option<u64>) {
    let (mut path, mut size) = (None, None);
    let mut rest = data;
    while !rest.is_empty() {
        let Some(sp) = rest.iter().position(|&b| b == b' ') else { break };
        let Some(len) = std::str::from_utf8(&rest[..sp]).ok().and_then(|s| s.parse::<usize>().ok()) else { break };
        if len <= sp + 1 || len > rest.len() {
            break;
        }
        let rec = &rest[sp + 1..len];
        let rec = rec.strip_suffix(b"\n").unwrap_or(rec);
        if let Some(v) = rec.strip_prefix(b"path=") {
            path = Some(String::from_utf8_lossy(v).into_owned());
        } else if let Some(v) = rec.strip_prefix(b"size=") {
            size = std::str::from_utf8(v).ok().and_then(|s| s.parse().ok());
        }
        rest = &rest[len..];
    }
    (path, size)
}

/// Members the operator did not mean as data: dot files and macOS resource forks.
fn hidden_member(name: &str) -> bool {
    name.split('/').any(|c| (c.starts_with('.') && c != "." && c != "..") || c == "__MACOSX")
}

/// A member name as it appears in labels, the summary and the report: hostile bytes, so no
/// control characters (a newline would forge a report line) and a bounded length.
fn clean_name(name: &str) -> String {
    let mut s: String = name.chars().map(|c| if c.is_control() { '?' } else { c }).collect();
    if s.len() > 512 {
        let mut cut = 512;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

fn member_label(path: &Path, name: &str) -> PathBuf {
    PathBuf::from(format!("{}!{}", path.display(), clean_name(name)))
}

/// The size of a zip's central directory as its end records say (zip64 included), or None
/// when they cannot be found (the zip crate then says what is wrong).
fn zip_directory_size(f: &mut File) -> io::Result<Option<u64>> {
    let len = f.metadata()?.len();
    let tail_len = len.min(22 + 65535);
    if tail_len < 22 {
        return Ok(None);
    }
    f.seek(SeekFrom::Start(len - tail_len))?;
    let mut tail = vec![0u8; tail_len as usize];
    f.read_exact(&mut tail)?;
    let Some(pos) = (0..=tail.len() - 22).rev().find(|&i| tail[i..i + 4] == [0x50, 0x4b, 0x05, 0x06]) else { return Ok(None) };
    let size = u32::from_le_bytes([tail[pos + 12], tail[pos + 13], tail[pos + 14], tail[pos + 15]]);
    if size != u32::MAX {
        return Ok(Some(size as u64));
    }
    // Zip64: a locator just before the end record points at the zip64 end record.
    if pos < 20 || tail[pos - 20..pos - 16] != [0x50, 0x4b, 0x06, 0x07] {
        return Ok(None);
    }
    let at = u64::from_le_bytes(tail[pos - 12..pos - 4].try_into().unwrap_or([0; 8]));
    let mut end64 = [0u8; 56];
    f.seek(SeekFrom::Start(at))?;
    if read_full(f, &mut end64)? < 56 || end64[..4] != [0x50, 0x4b, 0x06, 0x06] {
        return Ok(None);
    }
    Ok(Some(u64::from_le_bytes(end64[40..48].try_into().unwrap_or([0; 8]))))
}

fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Reads the first bytes of `r` and gives them back with a reader that still yields them.
fn peek(mut r: Box<dyn Read>) -> io::Result<(Vec<u8>, Box<dyn Read>)> {
    let mut head = vec![0u8; HEAD];
    let n = read_full(&mut *r, &mut head)?;
    head.truncate(n);
    Ok((head.clone(), Box::new(Cursor::new(head).chain(r))))
}

fn decoder(kind: Kind, r: Box<dyn Read>) -> io::Result<Box<dyn Read>> {
    Ok(match kind {
        Kind::Gzip => Box::new(flate2::read::MultiGzDecoder::new(r)),
        Kind::Xz => Box::new(xz2::read::XzDecoder::new_stream(r, xz2::stream::Stream::new_stream_decoder(XZ_MEMLIMIT, xz2::stream::CONCATENATED)?)),
        Kind::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(r)),
        Kind::Zstd => {
            let mut d = zstd::stream::read::Decoder::new(r)?;
            d.window_log_max(ZSTD_WINDOW_LOG_MAX)?;
            Box::new(d)
        }
        Kind::Plain | Kind::Zip | Kind::Tar => r,
    })
}

/// Counts the bytes consumed from the layer below, for progress and the ratio caps.
struct CountingReader<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// What everything decoded from one input file may add up to.
struct Budget {
    used: Cell<u64>,
    cap: u64,
    file_size: u64,
}

/// Stops a decoding layer that expands past the caps (a compression bomb): at most
/// `max_ratio x consumed + 16 MiB` and `max_expanded` for this layer, and the file's budget
/// for all layers together. Enforced on every read: the sizes an archive declares are not
/// trusted (gzip's trailer is mod 2^32 and garbage in a truncated file; zip's are written by
/// whoever made the file).
struct ExpansionGuard {
    inner: Box<dyn Read>,
    compressed: Arc<AtomicU64>,
    expanded: u64,
    max_ratio: u64,
    max_expanded: u64,
    budget: Rc<Budget>,
}

impl Read for ExpansionGuard {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.expanded += n as u64;
        let c = self.compressed.load(Ordering::Relaxed);
        if self.expanded > self.max_expanded || self.expanded > self.max_ratio.saturating_mul(c).saturating_add(SLACK) {
            return Err(io::Error::new(
                io::ErrorKind::Other,
                format!("expansion cap exceeded ({} bytes from {} compressed; ratio cap {})", self.expanded, c, self.max_ratio),
            ));
        }
        let used = self.budget.used.get() + n as u64;
        self.budget.used.set(used);
        if used > self.budget.cap {
            return Err(io::Error::new(
                io::ErrorKind::Other,
                format!("expansion cap exceeded ({} bytes decoded from a file of {} bytes; ratio cap {})", used, self.budget.file_size, self.max_ratio),
            ));
        }
        Ok(n)
    }
}

/// Verifies a zip member against its central directory entry: exactly the declared size
/// (never more is read) and the declared CRC-32.
struct ZipCheck {
    inner: Box<dyn Read>,
    crc: flate2::Crc,
    crc_expected: u32,
    size_expected: u64,
}

impl Read for ZipCheck {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.crc.update(&buf[..n]);
        let got = self.crc.amount() as u64;
        if got > self.size_expected {
            return Err(io::Error::new(io::ErrorKind::InvalidData, format!("zip member longer than its declared {} bytes (corrupt, or a bomb)", self.size_expected)));
        }
        if n == 0 && !buf.is_empty() {
            if got < self.size_expected {
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, format!("zip member ends after {} of its {} bytes (truncated or corrupt)", got, self.size_expected)));
            }
            if self.crc.sum() != self.crc_expected {
                return Err(io::Error::new(io::ErrorKind::InvalidData, "zip member fails its CRC-32 check (corrupt)"));
            }
        }
        Ok(n)
    }
}

/// Remembers the first read error of an input, which `stream()` reports as a bad line and
/// stops at; the caller then fails the whole run.
struct Watch {
    inner: Box<dyn Read>,
    failed: Rc<RefCell<Option<String>>>,
}

impl Read for Watch {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            if e.kind() != io::ErrorKind::Interrupted {
                self.failed.borrow_mut().get_or_insert_with(|| e.to_string());
            }
            e
        })
    }
}

/// One tar member's data, read from the archive stream it shares with the walker.
struct TarMember {
    src: Rc<RefCell<Box<dyn Read>>>,
    left: Rc<Cell<u64>>,
}

impl Read for TarMember {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.left.get();
        if left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let want = buf.len().min(left.min(usize::MAX as u64) as usize);
        let n = self.src.borrow_mut().read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, format!("tar member ends {} bytes early (truncated)", left)));
        }
        self.left.set(left - n as u64);
        Ok(n)
    }
}

fn skip(r: &mut dyn Read, mut n: u64) -> io::Result<()> {
    let mut buf = [0u8; 8192];
    while n > 0 {
        let k = r.read(&mut buf[..n.min(8192) as usize])?;
        if k == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "tar archive ends inside a member (truncated)"));
        }
        n -= k as u64;
    }
    Ok(())
}

fn read_small(r: &mut dyn Read, n: u64, cap: u64, what: &str) -> io::Result<Vec<u8>> {
    if n > cap {
        return Err(io::Error::new(io::ErrorKind::InvalidData, format!("tar {} of {} bytes is over the {} byte cap", what, n, cap)));
    }
    let mut v = vec![0u8; n as usize];
    if read_full(r, &mut v)? < v.len() {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "tar archive ends inside a header (truncated)"));
    }
    Ok(v)
}

fn pad(size: u64) -> u64 {
    (512 - size % 512) % 512
}

/// Summary fields an archive adds to a member's entry.
struct Origin {
    compression: Kind,
    archive: Option<Kind>,
}

fn fail(label: &Path, reason: impl std::fmt::Display) -> EngineError {
    EngineError::Input(format!("{}: {}; nothing was published", label.display(), reason))
}

impl<'a> Ingest<'a> {
    fn guard(&self, inner: Box<dyn Read>, compressed: Arc<AtomicU64>, budget: &Rc<Budget>) -> Box<dyn Read> {
        Box::new(ExpansionGuard { inner, compressed, expanded: 0, max_ratio: self.opts.max_ratio, max_expanded: self.opts.max_expanded_bytes, budget: Rc::clone(budget) })
    }

    /// A file or member left out with a reason: a report line and a summary entry.
    fn skipped(&mut self, label: &Path, reason: &str, report: bool) -> Result<()> {
        if report {
            self.bad(label, 0, reason, b"")?;
        }
        self.files.push(super::skipped_input(label, reason, report as u64));
        Ok(())
    }

    /// One input file: recognise it, then stream it, its decoded content or its members.
    pub(super) fn file(&mut self, path: &Path) -> Result<()> {
        let f = File::open(path).map_err(|e| EngineError::Input(format!("{}: {}", path.display(), e)))?;
        let size = f.metadata()?.len();
        let counter = Arc::new(AtomicU64::new(0));
        let base_read = self.progress.bytes_read.load(Ordering::Relaxed);
        let budget = Rc::new(Budget {
            used: Cell::new(0),
            cap: self.opts.max_ratio.saturating_mul(size).saturating_add(SLACK).min(self.opts.max_expanded_bytes),
            file_size: size,
        });
        let (head, reader) = peek(Box::new(CountingReader { inner: f, count: Arc::clone(&counter) })).map_err(|e| fail(path, e))?;
        let kind = sniff(&head);
        if kind != Kind::Plain && kind != Kind::Tar && size > self.opts.max_compressed_bytes {
            let msg = format!("compressed file of {} bytes is over the {} byte cap; skipped", size, self.opts.max_compressed_bytes);
            self.bad(path, 0, &msg, b"")?;
            self.files.push(FileSummary {
                path: path.display().to_string(),
                format: "skipped".into(),
                gzip: kind == Kind::Gzip,
                compression: Some(kind.name().to_string()),
                bad_lines: 1,
                error: Some(msg),
                ..Default::default()
            });
            self.progress.bytes_read.store(base_read + size, Ordering::Relaxed);
            return Ok(());
        }
        match kind {
            Kind::Zip => {
                drop(reader);
                self.zip(path, &budget, base_read)
            }
            Kind::Tar => self.tar(path, reader, Kind::Plain, &counter, base_read, &budget),
            Kind::Plain => self.watched(path, reader, Origin { compression: Kind::Plain, archive: None }, &counter, base_read),
            codec => {
                let decoded = decoder(codec, reader).map_err(|e| fail(path, e))?;
                let (inner_head, decoded) = peek(self.guard(decoded, Arc::clone(&counter), &budget)).map_err(|e| fail(path, e))?;
                match sniff(&inner_head) {
                    Kind::Tar => self.tar(path, decoded, codec, &counter, base_read, &budget),
                    Kind::Plain => self.watched(path, decoded, Origin { compression: codec, archive: None }, &counter, base_read),
                    inner => self.skipped(path, &format!("{} inside {}: nested archives are not opened; decompress the outer layer first", inner.name(), codec.name()), true),
                }
            }
        }?;
        // The whole file is dealt with: progress past it, whatever was left unread (a zip's
        // central directory, a tar's padding, a nested archive left out).
        self.progress.bytes_read.store(base_read + size, Ordering::Relaxed);
        Ok(())
    }

    /// Streams one decoded input and fails the run if reading it failed.
    fn watched(&mut self, label: &Path, reader: Box<dyn Read>, origin: Origin, counter: &Arc<AtomicU64>, base_read: u64) -> Result<()> {
        let failed = Rc::new(RefCell::new(None));
        let n = self.files.len();
        self.stream(label, Box::new(Watch { inner: reader, failed: Rc::clone(&failed) }), origin.compression == Kind::Gzip, counter, base_read)?;
        if self.files.len() > n {
            if let Some(info) = self.files.last_mut() {
                if origin.compression != Kind::Plain {
                    info.compression = Some(origin.compression.name().to_string());
                }
                if let Some(a) = origin.archive {
                    info.archive = Some(a.name().to_string());
                }
            }
        }
        let reason = failed.borrow_mut().take();
        match reason {
            Some(reason) => Err(fail(label, reason)),
            None => Ok(()),
        }
    }

    /// One archive member: decompressed when it is itself compressed (one level), left out
    /// with a report line when it is an archive. `progress` counts the on-disk bytes behind
    /// this member (from `base_read`); the ratio cap of a compressed member is relative to
    /// the member's own bytes.
    fn member(&mut self, label: &Path, body: Box<dyn Read>, origin: Origin, progress: &Arc<AtomicU64>, base_read: u64, budget: &Rc<Budget>) -> Result<()> {
        let archive = origin.archive.unwrap_or(Kind::Plain);
        let member_counter = Arc::new(AtomicU64::new(0));
        let counted: Box<dyn Read> = Box::new(CountingReader { inner: body, count: Arc::clone(&member_counter) });
        let (head, body) = peek(counted).map_err(|e| fail(label, e))?;
        match sniff(&head) {
            Kind::Plain => self.watched(label, body, origin, progress, base_read),
            kind @ (Kind::Zip | Kind::Tar) => self.skipped(label, &format!("{} inside {}: nested archives are not opened; extract it and ingest it on its own", kind.name(), archive.name()), true),
            codec => {
                let decoded = decoder(codec, body).map_err(|e| fail(label, e))?;
                let (inner_head, decoded) = peek(self.guard(decoded, member_counter, budget)).map_err(|e| fail(label, e))?;
                let inner = sniff(&inner_head);
                if inner != Kind::Plain {
                    return self.skipped(label, &format!("{} inside {} inside {}: nested archives are not opened; extract it and ingest it on its own", inner.name(), codec.name(), archive.name()), true);
                }
                self.watched(label, decoded, Origin { compression: codec, archive: origin.archive }, progress, base_read)
            }
        }
    }

    /// A tar stream (already decompressed): regular files are members; directories, links
    /// and devices are passed over; GNU long names and pax headers name the next member.
    fn tar(&mut self, path: &Path, reader: Box<dyn Read>, compression: Kind, counter: &Arc<AtomicU64>, base_read: u64, budget: &Rc<Budget>) -> Result<()> {
        let src: Rc<RefCell<Box<dyn Read>>> = Rc::new(RefCell::new(reader));
        let (mut long_name, mut pax_path, mut pax_size): (Option<String>, Option<String>, Option<u64>) = (None, None, None);
        let mut index = 0u64;
        loop {
            let mut h = [0u8; 512];
            let n = read_full(&mut **src.borrow_mut(), &mut h).map_err(|e| fail(path, e))?;
            if n == 0 {
                return Err(fail(path, "tar archive ends without its end marker (truncated)"));
            }
            if n < 512 {
                return Err(fail(path, "tar archive ends inside a header (truncated)"));
            }
            if h.iter().all(|&b| b == 0) {
                break;
            }
            index += 1;
            if !tar_checksum_ok(&h) {
                return Err(fail(path, format!("tar header {} fails its checksum (corrupt)", index)));
            }
            let size = match pax_size.take() {
                Some(s) => s,
                None => tar_number(&h[124..136]).ok_or_else(|| fail(path, format!("tar header {} has no valid size (corrupt)", index)))?,
            };
            let padded = size.checked_add(pad(size)).ok_or_else(|| fail(path, "tar size overflows"))?;
            match h[156] {
                b'L' => {
                    let v = read_small(&mut **src.borrow_mut(), size, TAR_MAX_LONG_NAME, "long name").map_err(|e| fail(path, e))?;
                    long_name = Some(String::from_utf8_lossy(&v[..v.iter().position(|&b| b == 0).unwrap_or(v.len())]).into_owned());
                    skip(&mut **src.borrow_mut(), pad(size)).map_err(|e| fail(path, e))?;
                }
                b'x' => {
                    let v = read_small(&mut **src.borrow_mut(), size, TAR_MAX_PAX, "pax header").map_err(|e| fail(path, e))?;
                    let (p, s) = pax_fields(&v);
                    pax_path = p.or(pax_path);
                    pax_size = s.or(pax_size);
                    skip(&mut **src.borrow_mut(), pad(size)).map_err(|e| fail(path, e))?;
                }
                b'0' | 0 | b'7' => {
                    let name = pax_path.take().or_else(|| long_name.take()).unwrap_or_else(|| tar_name(&h));
                    let label = member_label(path, &name);
                    let left = Rc::new(Cell::new(size));
                    if hidden_member(&name) {
                        self.files.push(super::skipped_input(&label, "hidden member", 0));
                    } else {
                        // A member of a compressed tar shows the archive's compression, unless
                        // it has its own.
                        let body = Box::new(TarMember { src: Rc::clone(&src), left: Rc::clone(&left) });
                        self.member(&label, body, Origin { compression, archive: Some(Kind::Tar) }, counter, base_read, budget)?;
                    }
                    // What the parser left unread (it may stop early) is still read: a truncated
                    // archive is detected wherever it ends.
                    skip(&mut **src.borrow_mut(), left.get() + pad(size)).map_err(|e| fail(path, e))?;
                }
                _ => {
                    // Directories, links, devices, global pax headers, GNU volume entries.
                    pax_path = None;
                    long_name = None;
                    skip(&mut **src.borrow_mut(), padded).map_err(|e| fail(path, e))?;
                }
            }
        }
        // The rest (the second end block, record padding, a compressed stream's trailer) is
        // read to its end, so a corrupt trailer is noticed too; the caps still apply.
        std::io::copy(&mut *src.borrow_mut(), &mut std::io::sink()).map_err(|e| fail(path, e))?;
        Ok(())
    }

    /// A zip archive: each member read from its offset, decompressed, checked against its
    /// declared size and CRC-32, then streamed. Encrypted members and unknown methods are
    /// left out with a report line.
    fn zip(&mut self, path: &Path, budget: &Rc<Budget>, base_read: u64) -> Result<()> {
        let mut f = File::open(path)?;
        if let Some(n) = zip_directory_size(&mut f).map_err(|e| fail(path, e))? {
            if n > MAX_ZIP_DIRECTORY {
                return Err(fail(path, format!("zip central directory of {} bytes is over the {} byte cap", n, MAX_ZIP_DIRECTORY)));
            }
        }
        let mut za = zip::ZipArchive::new(f).map_err(|e| fail(path, format!("zip: {} (truncated or corrupt)", e)))?;
        let mut raw = File::open(path)?;
        for i in 0..za.len() {
            let (name, csize, usize_, crc, start, dir, central) = {
                let m = za.by_index_raw(i).map_err(|e| fail(path, format!("zip member {}: {} (corrupt)", i + 1, e)))?;
                (m.name().to_string(), m.compressed_size(), m.size(), m.crc32(), m.data_start(), m.is_dir(), m.central_header_start())
            };
            if dir {
                continue;
            }
            let label = member_label(path, &name);
            if hidden_member(&name) {
                self.files.push(super::skipped_input(&label, "hidden member", 0));
                continue;
            }
            // Flags and method from the central directory entry itself (the crate only
            // decodes methods it was built with).
            let mut ch = [0u8; 12];
            raw.seek(SeekFrom::Start(central))?;
            raw.read_exact(&mut ch).map_err(|e| fail(&label, e))?;
            let flags = u16::from_le_bytes([ch[8], ch[9]]);
            let method = u16::from_le_bytes([ch[10], ch[11]]);
            if flags & 1 != 0 {
                self.skipped(&label, "encrypted zip member; skipped", true)?;
                continue;
            }
            let mut data = File::open(path)?;
            data.seek(SeekFrom::Start(start))?;
            let member_counter = Arc::new(AtomicU64::new(0));
            let counted: Box<dyn Read> = Box::new(CountingReader { inner: data.take(csize), count: Arc::clone(&member_counter) });
            let decoded: Box<dyn Read> = match method {
                0 => counted,
                8 => Box::new(flate2::read::DeflateDecoder::new(counted)),
                12 => decoder(Kind::Bzip2, counted).map_err(|e| fail(&label, e))?,
                93 => decoder(Kind::Zstd, counted).map_err(|e| fail(&label, e))?,
                95 => decoder(Kind::Xz, counted).map_err(|e| fail(&label, e))?,
                m => {
                    self.skipped(&label, &format!("zip compression method {} is not supported; skipped", m), true)?;
                    continue;
                }
            };
            let guarded = self.guard(decoded, Arc::clone(&member_counter), budget);
            let checked = Box::new(ZipCheck { inner: guarded, crc: flate2::Crc::new(), crc_expected: crc, size_expected: usize_ });
            self.member(&label, checked, Origin { compression: Kind::Plain, archive: Some(Kind::Zip) }, &member_counter, base_read + start, budget)?;
        }
        Ok(())
    }
}

/// The files a list of command-line paths stands for: files as given; directories walked
/// recursively in byte order of names, leaving out dot files and dot directories, special
/// files, and symbolic links that resolve outside the directory given or to a directory.
/// Returns the files and what was left out, with why (dot files are left out silently).
pub(crate) fn expand_inputs(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<(PathBuf, &'static str)>)> {
    let (mut files, mut skipped) = (Vec::new(), Vec::new());
    for p in paths {
        let md = std::fs::metadata(p).map_err(|e| EngineError::Input(format!("{}: {}", p.display(), e)))?;
        if md.is_dir() {
            let root = p.canonicalize()?;
            walk(&root, p, 0, &mut files, &mut skipped)?;
        } else if md.is_file() {
            files.push(p.clone());
        } else {
            return Err(EngineError::Input(format!("{}: not a readable file", p.display())));
        }
    }
    Ok((files, skipped))
}

fn walk(root: &Path, dir: &Path, depth: usize, files: &mut Vec<PathBuf>, skipped: &mut Vec<(PathBuf, &'static str)>) -> Result<()> {
    if depth > MAX_DEPTH {
        skipped.push((dir.to_path_buf(), "directory nested too deep"));
        return Ok(());
    }
    let mut entries: Vec<std::fs::DirEntry> = std::fs::read_dir(dir).map_err(|e| EngineError::Input(format!("{}: {}", dir.display(), e)))?.collect::<std::io::Result<_>>()?;
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let p = e.path();
        let ft = e.file_type()?;
        if ft.is_dir() {
            walk(root, &p, depth + 1, files, skipped)?;
        } else if ft.is_file() {
            files.push(p);
        } else if ft.is_symlink() {
            match p.canonicalize() {
                Ok(t) if !t.starts_with(root) => skipped.push((p, "symbolic link out of the directory")),
                Ok(t) if t.is_file() => files.push(p),
                Ok(_) => skipped.push((p, "symbolic link to a directory (not followed)")),
                Err(_) => skipped.push((p, "broken symbolic link")),
            }
        } else {
            skipped.push((p, "not a regular file"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_by_content() {
        assert_eq!(sniff(&[0x1f, 0x8b, 8, 0]), Kind::Gzip);
        assert_eq!(sniff(b"\xfd7zXZ\0rest"), Kind::Xz);
        assert_eq!(sniff(b"BZh91AY&SYxx"), Kind::Bzip2);
        assert_eq!(sniff(b"BZh9 is a username:pw\n"), Kind::Plain);
        assert_eq!(sniff(&[0x28, 0xb5, 0x2f, 0xfd, 0]), Kind::Zstd);
        assert_eq!(sniff(b"PK\x03\x04...."), Kind::Zip);
        assert_eq!(sniff(b"a@b.com:pw\n"), Kind::Plain);
        let mut h = [0u8; 512];
        h[..9].copy_from_slice(b"users.csv");
        h[124..135].copy_from_slice(b"00000000012");
        h[156] = b'0';
        let sum: u64 = h.iter().map(|&b| b as u64).sum::<u64>() + 8 * 32;
        h[148..155].copy_from_slice(format!("{:06o}\0", sum).as_bytes());
        assert_eq!(sniff(&h), Kind::Tar);
        h[0] = b'U';
        assert_eq!(sniff(&h), Kind::Plain, "a bad checksum is not a tar header");
    }

    #[test]
    fn tar_numbers_and_pax() {
        assert_eq!(tar_number(b"0000644\0"), Some(0o644));
        assert_eq!(tar_number(b"     17 "), Some(0o17));
        assert_eq!(tar_number(b"\0\0\0\0"), None);
        assert_eq!(tar_number(b"0009"), None);
        assert_eq!(tar_number(&[0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0]), Some(256));
        assert_eq!(pax_fields(b"18 path=a/b/c.csv\n11 size=42\n"), (Some("a/b/c.csv".into()), Some(42)));
        assert_eq!(pax_fields(b"999 path=x\n"), (None, None), "a length past the data ends parsing");
    }

    #[test]
    fn member_names() {
        assert!(hidden_member("__MACOSX/._users.csv"));
        assert!(hidden_member("dump/.DS_Store"));
        assert!(!hidden_member("./dump/users.csv"));
        assert!(!hidden_member("../../etc/passwd"));
        assert_eq!(clean_name("a\nb\u{1b}c"), "a?b?c");
        assert!(clean_name(&"é".repeat(1000)).len() <= 515);
    }
}
