//! Publishing a segment, for ingests and merges alike. A segment is built in
//! `tmp-<id>-<pid>/` (invisible), made durable in one pass (`make_durable`), then made
//! visible under the index lock (`make_visible`): its first-occurrence bits are computed
//! against the segments before it (a merge copies its sources' instead), it is renamed to `seg-<id>/`, and the manifest is
//! swapped atomically. A crash at any moment leaves the old or the new manifest in force;
//! `recover` removes what a crash left behind.

use crate::error::Result;
use crate::dedup::{self, DedupKeys, KeyLines};
use crate::keys::{short_key, IntHasher, KeySet};
use crate::manifest::{sync_dir, Manifest, ManifestEntry};
use crate::segment::{segment_dir, Segment, SegmentMeta};
use crate::source::LineContext;
use crate::store::StoreReader;
use std::cell::OnceCell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// 9 base-36 digits of the time in milliseconds, then 5 random ones: sortable by time,
/// without `-` (record ids are `<segment id>-<part>-<doc>`).
pub fn new_segment_id() -> String {
    let ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
    let mut rnd = [0u8; 8];
    if let Ok(mut f) = File::open("/dev/urandom") {
        let _ = f.read_exact(&mut rnd);
    }
    let r = u64::from_le_bytes(rnd) ^ (std::process::id() as u64).rotate_left(32);
    format!("{}{}", base36(ms, 9), base36(r % 36u64.pow(5), 5))
}

fn base36(mut n: u64, width: usize) -> String {
    const D: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut v = vec![b'0'; width];
    for i in (0..width).rev() {
        v[i] = D[(n % 36) as usize];
        n /= 36;
    }
    String::from_utf8(v).unwrap()
}

/// Where this process builds segment `id` before publishing it.
pub fn temp_dir(index: &Path, id: &str) -> PathBuf {
    index.join(format!("tmp-{}-{}", id, std::process::id()))
}

/// The current UTC time as `YYYY-MM-DDTHH:MM:SSZ` (the `created` of segments).
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let days = (secs / 86400) as i64;
    let rem = secs % 86400;
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
}

fn pid_alive(pid: i32) -> bool {
    unsafe { libc::kill(pid, 0) == 0 || *libc::__errno_location() == libc::EPERM }
}

/// Remove what crashed ingests and merges left: temp dirs of dead processes,
/// published-but-unlisted segment directories. Call with the index lock held.
pub fn recover(dir: &Path, manifest: &Manifest) -> Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().to_string();
        if let Some(rest) = name.strip_prefix("tmp-") {
            let pid: i32 = rest.rsplit('-').next().and_then(|p| p.parse().ok()).unwrap_or(0);
            if pid > 0 && !pid_alive(pid) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        } else if let Some(id) = name.strip_prefix("seg-") {
            if !manifest.segments.iter().any(|s| s.id == id) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        } else if name.starts_with("MANIFEST.tmp-") {
            let _ = std::fs::remove_file(e.path());
        }
    }
    Ok(())
}

/// Makes a segment built in `dir` durable before it is published: the write-back of every
/// file is started at once, then each file is waited for (fsync), then the directories,
/// deepest first. Writers do not fsync file by file: a small ingest wrote some 30 files a
/// part and waited for each in turn.
pub fn sync_tree(dir: &Path) -> Result<()> {
    fn walk(dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) -> Result<()> {
        dirs.push(dir.to_path_buf());
        for e in std::fs::read_dir(dir)? {
            let e = e?;
            if e.file_type()?.is_dir() {
                walk(&e.path(), files, dirs)?;
            } else {
                files.push(e.path());
            }
        }
        Ok(())
    }
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    walk(dir, &mut files, &mut dirs)?;
    let opened = files.iter().map(File::open).collect::<std::io::Result<Vec<File>>>()?;
    #[cfg(target_os = "linux")]
    for f in &opened {
        use std::os::unix::io::AsRawFd;
        // Only a hint to start writing; the fsync below is what guarantees durability.
        unsafe {
            libc::sync_file_range(f.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
        }
    }
    for f in &opened {
        f.sync_all()?;
    }
    for d in dirs.iter().rev() {
        sync_dir(d)?;
    }
    Ok(())
}

/// The `result`, after removing the unpublished segment `tmp` when it is an error.
fn or_discard<T>(tmp: &Path, result: Result<T>) -> Result<T> {
    if result.is_err() {
        let _ = std::fs::remove_dir_all(tmp);
    }
    result
}

/// Writes `segment.json` into the segment built in `tmp`, then makes every file and
/// directory of it durable. On failure the segment is removed.
pub fn make_durable(tmp: &Path, meta: &SegmentMeta) -> Result<()> {
    or_discard(
        tmp,
        (|| {
            std::fs::write(tmp.join("segment.json"), serde_json::to_vec_pretty(&meta.to_json())?)?;
            sync_tree(tmp)
        })(),
    )
}

/// Publishes the durable segment `tmp` (`parts` parts) as `entry`, in place of the
/// manifest's segments `place` (an empty range at the end for an ingest, the merged run
/// for a merge). Call with the index lock held: the segment's place in the global search
/// order is fixed, so its first-occurrence bits are computed here. Returns the new
/// manifest. A failure before the rename removes the segment; after it, the previous
/// manifest stays in force and the unlisted directory is removed by `recover`.
/// `marked`: its parts already hold their `first.dat` (a merge of parts that all had one).
pub fn make_visible(dir: &Path, manifest: &Manifest, tmp: &Path, parts: u32, marked: bool, place: Range<usize>, entry: ManifestEntry, new_records: bool) -> Result<Manifest> {
    let seg_dir = segment_dir(dir, &entry.id);
    let mark = || if marked { Ok(()) } else { mark_first_occurrences(dir, &manifest.segments[..place.start], tmp, parts) };
    or_discard(tmp, mark().and_then(|()| Ok(std::fs::rename(tmp, &seg_dir)?)))?;
    sync_dir(dir)?;
    // An ingest's records whose addresses are suppressed are tombstoned before the manifest
    // names their segment: no reader ever sees them (a merge only moves records whose
    // tombstones already hold).
    if new_records {
        if let Err(e) = Segment::open(&seg_dir).and_then(|seg| crate::suppress::apply_to_new_segment(dir, &seg)) {
            let _ = std::fs::remove_dir_all(&seg_dir);
            return Err(e);
        }
    }
    let mut next = manifest.clone();
    next.generation += 1;
    next.segments.splice(place, std::iter::once(entry));
    next.write(dir)?;
    Ok(next)
}

/// Per short key, how many of a new segment's keys having it are not yet found earlier.
type OpenShorts = HashMap<u32, u32, BuildHasherDefault<IntHasher>>;

/// Write `first.dat` into every part of the new segment: bit d set when document d is
/// the first, in global search order, with its dedup key; then the part's keys in the
/// format 10 form (`dedup.rs`: short keys, and whole keys of the records that are not
/// first), in place of the whole keys (`dedup.dat`) it was built with. Reads the short keys
/// of the segments `before` it (their whole keys in formats 6-9); an earlier record whose
/// short key is a new record's is confirmed with its whole key, stored or (a first record
/// of a format 10 part) computed again from its line.
pub(crate) fn mark_first_occurrences(dir: &Path, before: &[ManifestEntry], tmp: &Path, parts: u32) -> Result<()> {
    // The new segment's keys in a set (small, cache-resident); the earlier segments'
    // short keys are streamed through the new ones' to find which keys already occur. No
    // set of every key of the index is built (that made each ingest slower as the index
    // grew).
    let mut new_keys: Vec<Vec<u64>> = Vec::with_capacity(parts as usize);
    let mut mine = KeySet::default();
    for i in 0..parts {
        let b = std::fs::read(tmp.join(format!("part-{}", i)).join(dedup::WHOLE))?;
        let keys: Vec<u64> = b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap())).collect();
        mine.extend(keys.iter().copied());
        new_keys.push(keys);
    }
    let mut open = OpenShorts::default();
    for &k in &mine {
        *open.entry(short_key(k)).or_default() += 1;
    }
    let mut seen = KeySet::default();
    for e in before {
        let seg = segment_dir(dir, &e.id);
        // Read when a first record's key is computed again.
        let contexts: OnceCell<Vec<LineContext>> = OnceCell::new();
        let mut i = 0;
        while seg.join(format!("part-{}", i)).is_dir() {
            let part = seg.join(format!("part-{}", i));
            let keys = DedupKeys::open(&part)?;
            let store: OnceCell<StoreReader> = OnceCell::new();
            let mut lines: Option<KeyLines> = None;
            let open_short = |open: &OpenShorts, s: u32| matches!(open.get(&s), Some(&n) if n > 0);
            for d in keys.docs_with_short(|s| open_short(&open, s)) {
                // Still open (an earlier document may have found every new key of its short key).
                if !open_short(&open, keys.short(d)) {
                    continue;
                }
                let k = match keys.stored(d) {
                    Some(k) => k,
                    None => {
                        if lines.is_none() {
                            if contexts.get().is_none() {
                                let _ = contexts.set(SegmentMeta::read(&seg)?.contexts);
                            }
                            let _ = store.set(StoreReader::open(&part)?);
                            lines = Some(KeyLines::new(store.get().unwrap(), contexts.get().unwrap()));
                        }
                        lines.as_mut().unwrap().key(d)?
                    }
                };
                if mine.contains(&k) && seen.insert(k) {
                    *open.get_mut(&short_key(k)).unwrap() -= 1;
                }
            }
            i += 1;
        }
    }
    drop(mine);
    for (i, keys) in new_keys.iter().enumerate() {
        let part = tmp.join(format!("part-{}", i));
        let mut bits = vec![0u64; (keys.len() + 63) / 64];
        for (d, k) in keys.iter().enumerate() {
            if seen.insert(*k) {
                bits[d >> 6] |= 1u64 << (d & 63);
            }
        }
        let bytes: Vec<u8> = bits.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(part.join(dedup::FIRST), &bytes)?;
        let (mut top, mut rest) = (Vec::with_capacity(keys.len() * 4), Vec::new());
        dedup::push_short(keys.iter().enumerate().map(|(d, &k)| (k, bits[d >> 6] >> (d & 63) & 1 == 1)), &mut top, &mut rest);
        dedup::write_short(&part, &top, &rest)?;
        std::fs::remove_file(part.join(dedup::WHOLE))?;
    }
    // The new files and names, durable at once (the segment's other files are already: their
    // fsyncs find nothing to write).
    sync_tree(tmp)
}
