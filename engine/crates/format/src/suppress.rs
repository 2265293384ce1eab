//! Opt-out suppression: an email address kept out of every read path (search, counts, get,
//! password checks, monitoring, stats), in the segments there are and in every segment
//! published later, until the suppression is lifted.
//!
//! Only a keyed hash of the address is stored: HMAC-SHA-256 of its indexed form (`email`'s
//! normalisation: trimmed, lower-cased), keyed by `suppression.key` (32 random bytes made
//! at the first suppression, mode 0600), cut to 16 bytes, 32 hex digits. Suppressing writes
//! `+hash` to `suppressions.log` and one tombstone per record holding the address, tagged
//! with the hash (`o:<hash>:<id>`, `manifest.rs`); an ingest, under the index lock between
//! its segment's rename and the manifest swap, tombstones the records of its new segment
//! whose addresses hash to a suppressed one, so they are never visible. Lifting writes
//! `-hash`: the tagged tombstones stop counting and the records come back, except those
//! removed for another reason (an untagged tombstone of the same content).
//!
//! The key sits in the index directory beside what it protects: every process that reads or
//! publishes the index has it, and whoever reads that directory holds the records themselves.
//! What the hashes guard against is the list alone (a backup of it, a log) telling who
//! opted out.

use crate::digest::{hex_into, sha256_of};
use crate::error::{EngineError, Result};
use crate::fields::{normalize, EMAIL};
use crate::manifest::{append_locked, read_suppressions, SUPPRESSIONS, TOMBSTONES};
use crate::segment::Segment;
use std::collections::HashMap;
use std::path::Path;

pub const KEY_FILE: &str = "suppression.key";

/// HMAC-SHA-256 (RFC 2104) of `msg` under a key of at most 64 bytes.
fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..key.len()].copy_from_slice(key);
    let pad = |x: u8| block.map(|b| b ^ x);
    let inner = sha256_of(&[&pad(0x36), msg]);
    sha256_of(&[&pad(0x5c), &inner])
}

/// Hashes addresses' indexed forms under one index's key.
pub struct Hasher {
    key: Vec<u8>,
    hex: Vec<u8>,
}

impl Hasher {
    pub fn new(key: Vec<u8>) -> Hasher {
        Hasher { key, hex: Vec::new() }
    }

    /// The stored form of one indexed `email` term: 16 bytes of its HMAC as 32 hex digits.
    pub fn hash(&mut self, term: &[u8]) -> &str {
        let mac = hmac_sha256(&self.key, term);
        self.hex.clear();
        hex_into(&mac[..16], &mut self.hex);
        // Hex digits are ASCII.
        std::str::from_utf8(&self.hex).unwrap_or_default()
    }
}

/// The index's key, when a suppression was ever made.
pub fn read_key(dir: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(dir.join(KEY_FILE)) {
        Ok(b) if b.len() == 32 => Ok(Some(b)),
        Ok(_) => Err(EngineError::Corrupt(format!("{}: not 32 bytes", dir.join(KEY_FILE).display()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The index's key, made (32 bytes of the OS's randomness, owner-only) when missing. The caller holds `LOCK`.
pub fn ensure_key(dir: &Path) -> Result<Vec<u8>> {
    use std::io::{Read, Write};
    use std::os::unix::fs::OpenOptionsExt;
    if let Some(k) = read_key(dir)? {
        return Ok(k);
    }
    let mut key = vec![0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut key)?;
    let tmp = dir.join(format!("{}.tmp-{}", KEY_FILE, std::process::id()));
    let mut f = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(&tmp)?;
    f.write_all(&key)?;
    f.sync_all()?;
    std::fs::rename(&tmp, dir.join(KEY_FILE))?;
    Ok(key)
}

/// The indexed form of an address, or an error naming it invalid.
pub fn email_term(email: &str) -> Result<String> {
    match normalize(EMAIL, email) {
        Some(t) if t.contains('@') => Ok(t),
        _ => Err(EngineError::InvalidArgument("an email address is required".into())),
    }
}

/// Tombstone lines, tagged with `hash`, for the records of `seg` whose `email` holds one
/// of `terms` (each with its hash). Appended to `out`; returns how many records.
fn tagged_lines(seg: &Segment, terms: &[(Vec<u8>, String)], out: &mut String) -> Result<usize> {
    let mut docs = Vec::new();
    let mut n = 0;
    for (pi, part) in seg.parts.iter().enumerate() {
        let Some(field) = part.fields.get(EMAIL).and_then(|f| f.as_ref()) else { continue };
        for (term, hash) in terms {
            let Some(ord) = field.dict.get(term) else { continue };
            docs.clear();
            field.postings_into(ord, &mut docs);
            for &doc in &docs {
                let key = part.dedup_key(doc)?;
                out.push_str(&format!("o:{}:{}-{}-{}\t{:016x}\n", hash, seg.meta.id, pi, doc, key));
                n += 1;
            }
        }
    }
    Ok(n)
}

/// Suppresses `term` (an `email_term`) in `segments`: `+hash` in the log, then a tagged
/// tombstone for each record holding it. The caller holds `LOCK` and has every published
/// segment in `segments`. Returns the hash and how many records were tombstoned.
pub fn suppress_locked(dir: &Path, segments: &[std::sync::Arc<Segment>], term: &str) -> Result<(String, usize)> {
    let mut hasher = Hasher::new(ensure_key(dir)?);
    let hash = hasher.hash(term.as_bytes()).to_string();
    append_locked(dir, SUPPRESSIONS, &format!("+{}\t{}\n", hash, unix_now()))?;
    let mut lines = String::new();
    let mut n = 0;
    let terms = [(term.as_bytes().to_vec(), hash.clone())];
    for seg in segments {
        n += tagged_lines(seg, &terms, &mut lines)?;
    }
    if !lines.is_empty() {
        append_locked(dir, TOMBSTONES, &lines)?;
    }
    Ok((hash, n))
}

/// Lifts the suppression of `term`; false when it was not suppressed. The caller holds `LOCK`.
pub fn lift_locked(dir: &Path, term: &str) -> Result<bool> {
    let Some(key) = read_key(dir)? else { return Ok(false) };
    let hash = Hasher::new(key).hash(term.as_bytes()).to_string();
    if !read_suppressions(dir)?.0.contains_key(&hash) {
        return Ok(false);
    }
    append_locked(dir, SUPPRESSIONS, &format!("-{}\t{}\n", hash, unix_now()))?;
    Ok(true)
}

/// When `term` was suppressed (unix seconds), or None. Reads the logs as they are now.
pub fn suppressed_since(dir: &Path, term: &str) -> Result<Option<u64>> {
    let Some(key) = read_key(dir)? else { return Ok(None) };
    let hash = Hasher::new(key).hash(term.as_bytes()).to_string();
    Ok(read_suppressions(dir)?.0.get(&hash).copied())
}

/// At an ingest's publication, under `LOCK`, after its segment is renamed into place and
/// before the manifest names it: tombstones the records of `seg` whose addresses are
/// suppressed. One HMAC per distinct address of the segment, and only when something is
/// suppressed. Returns how many records.
pub fn apply_to_new_segment(dir: &Path, seg: &Segment) -> Result<usize> {
    let (active, _) = read_suppressions(dir)?;
    if active.is_empty() {
        return Ok(0);
    }
    let Some(key) = read_key(dir)? else { return Ok(0) };
    let mut hasher = Hasher::new(key);
    let mut found: HashMap<Vec<u8>, String> = HashMap::new();
    for part in &seg.parts {
        let Some(field) = part.fields.get(EMAIL).and_then(|f| f.as_ref()) else { continue };
        field.dict.for_each(0..field.dict.len() as u32, |_, term| {
            if !found.contains_key(term) {
                let hash = hasher.hash(term);
                if active.contains_key(hash) {
                    found.insert(term.to_vec(), hash.to_string());
                }
            }
            Ok(())
        })?;
    }
    if found.is_empty() {
        return Ok(0);
    }
    let terms: Vec<(Vec<u8>, String)> = found.into_iter().collect();
    let mut lines = String::new();
    let n = tagged_lines(seg, &terms, &mut lines)?;
    append_locked(dir, TOMBSTONES, &lines)?;
    Ok(n)
}

fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4231, test cases 1 and 2.
    #[test]
    fn hmac_sha256_matches_rfc_4231() {
        let mut hex = Vec::new();
        let mac = hmac_sha256(&[0x0b; 20], b"Hi There");
        hex_into(&mac, &mut hex);
        assert_eq!(std::str::from_utf8(&hex).unwrap(), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        hex.clear();
        hex_into(&mac, &mut hex);
        assert_eq!(std::str::from_utf8(&hex).unwrap(), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    #[test]
    fn an_address_hashes_by_its_indexed_form_and_by_key() {
        let term = email_term("  Alice@Example.COM ").unwrap();
        assert_eq!(term, "alice@example.com");
        let a = Hasher::new(vec![1; 32]).hash(term.as_bytes()).to_string();
        assert_eq!(a.len(), 32);
        assert_eq!(a, Hasher::new(vec![1; 32]).hash(b"alice@example.com"));
        assert_ne!(a, Hasher::new(vec![2; 32]).hash(b"alice@example.com"));
        assert!(email_term("not an address").is_err());
    }

    #[test]
    fn the_key_is_made_once_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = crate::test_dir("suppress-key");
        assert!(read_key(&dir).unwrap().is_none());
        let k = ensure_key(&dir).unwrap();
        assert_eq!(ensure_key(&dir).unwrap(), k);
        assert_eq!(std::fs::metadata(dir.join(KEY_FILE)).unwrap().permissions().mode() & 0o777, 0o600);
    }
}
