//! The manifest: the list of visible segments. It is replaced atomically (write a temp
//! file, fsync, rename over `MANIFEST`, fsync the directory), under an exclusive `flock`
//! on `LOCK` so that concurrent ingests and removals serialise their updates.

use crate::error::{EngineError, Result};
use crate::keys::KeySet;
use crate::segment::FORMAT_VERSION;
use serde_json::{json, Value};
use std::fs::File;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::collections::HashMap;

#[derive(Debug, Clone)]
pub struct ManifestEntry {
    pub id: String,
    pub well: String,
    pub records: u64,
    pub created: String,
}

#[derive(Debug, Clone, Default)]
pub struct Manifest {
    pub generation: u64,
    pub segments: Vec<ManifestEntry>,
}

pub const MANIFEST: &str = "MANIFEST";

impl Manifest {
    pub fn read(dir: &Path) -> Result<Manifest> {
        let p = dir.join(MANIFEST);
        let bytes = match std::fs::read(&p) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Manifest::default()),
            Err(e) => return Err(e.into()),
        };
        let v: Value = serde_json::from_slice(&bytes).map_err(|e| EngineError::Corrupt(format!("MANIFEST: {}", e)))?;
        match v["format_version"].as_u64() {
            Some(version) => crate::segment::check_version(version, "the index (MANIFEST)")?,
            None => return Err(EngineError::Corrupt(format!("MANIFEST has no format version ({})", v["format_version"]))),
        }
        let mut segments = Vec::new();
        for s in v["segments"].as_array().cloned().unwrap_or_default() {
            segments.push(ManifestEntry {
                id: s["id"].as_str().unwrap_or_default().to_string(),
                well: s["well"].as_str().unwrap_or_default().to_string(),
                records: s["records"].as_u64().unwrap_or(0),
                created: s["created"].as_str().unwrap_or_default().to_string(),
            });
        }
        Ok(Manifest { generation: v["generation"].as_u64().unwrap_or(0), segments })
    }

    /// Atomically replace the manifest. Call with the index lock held.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let v = json!({
            "format_version": FORMAT_VERSION,
            "generation": self.generation,
            "segments": self.segments.iter().map(|s| json!({
                "id": s.id, "well": s.well, "records": s.records, "created": s.created,
            })).collect::<Vec<_>>(),
        });
        let tmp = dir.join(format!("{}.tmp-{}", MANIFEST, std::process::id()));
        std::fs::write(&tmp, serde_json::to_vec_pretty(&v)?)?;
        File::open(&tmp)?.sync_all()?;
        std::fs::rename(&tmp, dir.join(MANIFEST))?;
        sync_dir(dir)?;
        Ok(())
    }
}

pub fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)?.sync_all()?;
    Ok(())
}

/// An exclusive advisory lock on `<index>/LOCK`, released on drop.
pub struct IndexLock {
    file: File,
}

impl IndexLock {
    pub fn acquire(dir: &Path) -> Result<IndexLock> {
        std::fs::create_dir_all(dir)?;
        let file = std::fs::OpenOptions::new().create(true).read(true).write(true).open(dir.join("LOCK"))?;
        loop {
            let r = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
            if r == 0 {
                return Ok(IndexLock { file });
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e.into());
            }
        }
    }
}

impl Drop for IndexLock {
    fn drop(&mut self) {
        unsafe {
            libc::flock(self.file.as_raw_fd(), libc::LOCK_UN);
        }
    }
}

/// Removal tombstones: `tombstones.log`, one line per removal, `<id>\t<dedup key hex>`.
/// An opt-out's tombstones (`suppress.rs`) carry its address's keyed hash before the id,
/// `o:<hash>:<id>\t<key>`, and count only while that hash is suppressed
/// (`suppressions.log`); a reader that predates them reads the key all the same.
pub const TOMBSTONES: &str = "tombstones.log";

/// Opt-out suppressions (`suppress.rs`): `suppressions.log`, appended under `LOCK` and
/// fsynced, `+<hash>\t<unix seconds>` when an address is suppressed, `-<hash>\t<unix
/// seconds>` when that is lifted; the last line of a hash wins. A torn last line is ignored.
pub const SUPPRESSIONS: &str = "suppressions.log";

/// The suppressed hashes (32 hex digits) with the time each was suppressed, and the log's length.
pub fn read_suppressions(dir: &Path) -> Result<(HashMap<String, u64>, u64)> {
    let bytes = match std::fs::read(dir.join(SUPPRESSIONS)) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((HashMap::new(), 0)),
        Err(e) => return Err(e.into()),
    };
    let mut active = HashMap::new();
    // Only whole lines: the part after the last newline is a torn append.
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    for line in bytes[..whole].split(|&b| b == b'\n') {
        let s = String::from_utf8_lossy(line);
        let Some((op_hash, at)) = s.split_once('\t') else { continue };
        let at = at.trim().parse::<u64>().unwrap_or(0);
        match (op_hash.get(..1), op_hash.get(1..)) {
            (Some("+"), Some(h)) if h.len() == 32 => {
                active.insert(h.to_string(), at);
            }
            (Some("-"), Some(h)) => {
                active.remove(h);
            }
            _ => {}
        }
    }
    Ok((active, bytes.len() as u64))
}

/// Appends whole lines to an index log and syncs it. The caller holds `LOCK`.
pub fn append_locked(dir: &Path, log: &str, text: &str) -> Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(dir.join(log))?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    Ok(())
}

/// The removed dedup keys (an opt-out's only while its hash is in `suppressed`) and the log's length.
pub fn read_tombstones(dir: &Path, suppressed: &HashMap<String, u64>) -> Result<(KeySet, u64)> {
    let p = dir.join(TOMBSTONES);
    let bytes = match std::fs::read(&p) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Default::default(), 0)),
        Err(e) => return Err(e.into()),
    };
    let mut keys = KeySet::default();
    for line in bytes.split(|&b| b == b'\n') {
        // A torn last line (crash mid-append) has no key yet: skip it.
        let s = String::from_utf8_lossy(line);
        if let Some((id, key)) = s.split_once('\t') {
            if let Some(tagged) = id.strip_prefix("o:") {
                if !tagged.get(..32).is_some_and(|h| suppressed.contains_key(h)) {
                    continue;
                }
            }
            if let Ok(k) = u64::from_str_radix(key.trim(), 16) {
                keys.insert(k);
            }
        }
    }
    Ok((keys, bytes.len() as u64))
}

pub fn append_tombstone(dir: &Path, id: &str, key: u64) -> Result<()> {
    let _lock = IndexLock::acquire(dir)?;
    append_locked(dir, TOMBSTONES, &format!("{}\t{:016x}\n", id, key))
}

/// Operator edits of data wells: `wells.log`, appended under `LOCK` and fsynced, one line
/// per edit, each naming an original ingest (a source: the segment id of the ingest, kept
/// in `sources` when merged):
/// - `delete\t<source id>`: a takedown. The source's records are hidden from every read
///   path (search, counts, get, password checks, monitoring, stats) on every reader at its
///   next refresh, and dropped when their segment is purged or merged.
/// - `rename\t<source id>\t<well name>`: the source's records belong to that well from now
///   on (`database_name`, source filters, stats); the last rename of a source wins.
///
/// A torn last line (no newline) is ignored.
pub const WELLS_LOG: &str = "wells.log";

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct WellEdits {
    pub deleted: std::collections::HashSet<String>,
    pub renamed: std::collections::HashMap<String, String>,
}

impl WellEdits {
    pub fn is_empty(&self) -> bool {
        self.deleted.is_empty() && self.renamed.is_empty()
    }

    /// Whether `source` is named by an edit.
    pub fn touches(&self, source: &str) -> bool {
        self.deleted.contains(source) || self.renamed.contains_key(source)
    }

    pub fn parse(bytes: &[u8]) -> WellEdits {
        let mut e = WellEdits::default();
        let complete = match bytes.iter().rposition(|&b| b == b'\n') {
            Some(i) => &bytes[..=i],
            None => return e,
        };
        for line in complete.split(|&b| b == b'\n') {
            let s = String::from_utf8_lossy(line);
            let mut it = s.split('\t');
            match (it.next(), it.next(), it.next()) {
                (Some("delete"), Some(id), None) if !id.is_empty() => {
                    e.deleted.insert(id.to_string());
                }
                (Some("rename"), Some(id), Some(name)) if !id.is_empty() && !name.is_empty() => {
                    e.renamed.insert(id.to_string(), name.to_string());
                }
                _ => {}
            }
        }
        e
    }
}

pub fn read_well_edits(dir: &Path) -> Result<WellEdits> {
    match std::fs::read(dir.join(WELLS_LOG)) {
        Ok(b) => Ok(WellEdits::parse(&b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(WellEdits::default()),
        Err(e) => Err(e.into()),
    }
}

/// A well name fit for `wells.log` and `segment.json`: not empty, at most 256 bytes, no
/// control character.
pub fn check_well_name(name: &str) -> Result<()> {
    if name.trim().is_empty() || name.len() > 256 || name.chars().any(|c| c.is_control()) {
        return Err(crate::error::EngineError::InvalidArgument("a well name must be 1 to 256 bytes without control characters".into()));
    }
    Ok(())
}

/// Append edits (each `(source id, None)` a delete, `(source id, Some(name))` a rename)
/// under the index lock, fsynced.
pub fn append_well_edits(dir: &Path, edits: &[(String, Option<String>)]) -> Result<()> {
    use std::io::Write;
    let mut text = String::new();
    for (id, name) in edits {
        if id.is_empty() || id.chars().any(|c| c.is_control()) {
            return Err(crate::error::EngineError::InvalidArgument(format!("bad source id {:?}", id)));
        }
        match name {
            None => text.push_str(&format!("delete\t{}\n", id)),
            Some(n) => {
                check_well_name(n)?;
                text.push_str(&format!("rename\t{}\t{}\n", id, n));
            }
        }
    }
    let _lock = IndexLock::acquire(dir)?;
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(dir.join(WELLS_LOG))?;
    f.write_all(text.as_bytes())?;
    f.sync_all()?;
    Ok(())
}
