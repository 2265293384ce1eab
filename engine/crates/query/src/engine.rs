//! The reader side: an open index directory. Holds an immutable snapshot (segments +
//! tombstones) behind an `RwLock<Arc<…>>`; searches take the snapshot and run without
//! locks, a refresh swaps in a new one. The manifest and the tombstone log are checked at
//! most once a second, so a running server sees a new ingest without a restart.

use crate::contract::{EditWellsArgs, EditWellsReply, Entry, GetManyTextHead, PasswordCountReply, PasswordRangeReply, PasswordSuffix, PurgeReply, SearchReply, SourceStats, StatsReply, SuppressReply, SuppressionReply, WatchHit};
use crate::error::{EngineError, Result};
use crate::fields::{HASHED_PASSWORD, PASSWORD, PASSWORD_NTLM, PASSWORD_SHA1, PASSWORD_SHA256};
use crate::keys::{short_key, IntHasher, KeySet, Removed};
use crate::manifest::{append_tombstone, append_well_edits, read_suppressions, read_tombstones, read_well_edits, IndexLock, Manifest, WellEdits, MANIFEST, SUPPRESSIONS, TOMBSTONES, WELLS_LOG};
use crate::suppress;
use crate::planner::{self, Plan};
use crate::query::ParsedQuery;
use crate::render::{self, RawRecord};
use crate::request::{check_paging, GetManyRequest, MatchWatchesRequest, PasswordRequest, SearchRequest, DEFAULT_BUDGET_MS};
use crate::segment::{segment_dir, Part, Segment};
use crate::store::{Block, Line};
use crate::budget::Budget;
use crate::watch::{self, WatchInput};
use std::collections::{BTreeMap, HashMap};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq, Eq, Default, Debug)]
struct Stamp {
    manifest: (i64, i64, u64, u64),
    tombstones: u64,
    suppressions: u64,
    wells: u64,
}

fn stamp(dir: &Path) -> Stamp {
    let m = std::fs::metadata(dir.join(MANIFEST))
        .map(|m| (m.mtime(), m.mtime_nsec(), m.ino(), m.len()))
        .unwrap_or_default();
    let t = std::fs::metadata(dir.join(TOMBSTONES)).map(|m| m.len()).unwrap_or(0);
    let s = std::fs::metadata(dir.join(SUPPRESSIONS)).map(|m| m.len()).unwrap_or(0);
    let w = std::fs::metadata(dir.join(WELLS_LOG)).map(|m| m.len()).unwrap_or(0);
    Stamp { manifest: m, tombstones: t, suppressions: s, wells: w }
}

/// The index a search reads: the segments, the tombstones, the well edits, as one unit.
pub struct Snapshot {
    stamp: Stamp,
    generation: u64,
    pub segments: Vec<Arc<Segment>>,
    removed: Removed,
    /// The operators' well edits (`wells.log`), applied to `segments` when opened.
    edits: WellEdits,
}

pub struct Engine {
    dir: PathBuf,
    snap: RwLock<Arc<Snapshot>>,
    last_check: Mutex<Instant>,
    closed: AtomicBool,
}

/// `<segment>-<part>-<doc>`
fn parse_id(id: &str) -> Option<(&str, usize, u32)> {
    let mut it = id.rsplitn(3, '-');
    let doc = it.next()?.parse().ok()?;
    let part = it.next()?.parse().ok()?;
    let seg = it.next()?;
    Some((seg, part, doc))
}

impl Engine {
    pub fn open(dir: &Path) -> Result<Engine> {
        std::fs::create_dir_all(dir)?;
        let snap = Self::load(dir, None)?;
        Ok(Engine {
            dir: dir.to_path_buf(),
            snap: RwLock::new(Arc::new(snap)),
            last_check: Mutex::new(Instant::now()),
            closed: AtomicBool::new(false),
        })
    }

    fn load(dir: &Path, prev: Option<&Snapshot>) -> Result<Snapshot> {
        // Stamp first: a change racing with the load is seen by the next check.
        let st = stamp(dir);
        let manifest = Manifest::read(dir)?;
        let mut old: HashMap<&str, &Arc<Segment>> = HashMap::new();
        if let Some(p) = prev {
            for s in &p.segments {
                old.insert(s.meta.id.as_str(), s);
            }
        }
        let edits = read_well_edits(dir)?;
        let prev_edits = prev.map(|p| &p.edits);
        let mut segments = Vec::with_capacity(manifest.segments.len());
        for e in &manifest.segments {
            // A segment is reused unless an edit of one of its sources came or went (then it
            // is opened again, cheaply: its files are mapped, not read).
            let same = |pe: &WellEdits, id: &String| pe.deleted.contains(id) == edits.deleted.contains(id) && pe.renamed.get(id) == edits.renamed.get(id);
            let reuse = old.get(e.id.as_str()).filter(|s| match prev_edits {
                Some(pe) if *pe != edits => s.sources.iter().all(|src| same(pe, &src.id)),
                _ => true,
            });
            match reuse {
                Some(s) => segments.push(Arc::clone(s)),
                None => {
                    let mut seg = Segment::open(&segment_dir(dir, &e.id))?;
                    if !edits.is_empty() {
                        seg.apply_edits(&edits.deleted, &edits.renamed);
                    }
                    segments.push(Arc::new(seg));
                }
            }
        }
        // Suppressions first: they say which of the opt-outs' tombstones count.
        let (suppressed, suppressions_len) = read_suppressions(dir)?;
        let (removed, tombstones_len) = read_tombstones(dir, &suppressed)?;
        let removed = Removed::new(removed, tombstones_len + suppressions_len);
        Ok(Snapshot { stamp: st, generation: manifest.generation, segments, removed, edits })
    }

    fn check_open(&self) -> Result<()> {
        if self.closed.load(Ordering::Acquire) {
            Err(EngineError::Closed)
        } else {
            Ok(())
        }
    }

    /// Whether the next search checks the manifest and tombstones again (the 1 s throttle of
    /// `refresh` has passed): loading a new index generation is not work for the JS thread.
    pub fn refresh_due(&self) -> bool {
        self.last_check.lock().unwrap_or_else(|e| e.into_inner()).elapsed() >= Duration::from_secs(1)
    }

    /// Reload when the manifest or the tombstones changed. `force` skips the 1 s throttle.
    pub fn refresh(&self, force: bool) -> Result<bool> {
        self.check_open()?;
        {
            let mut last = self.last_check.lock().unwrap_or_else(|e| e.into_inner());
            if !force && last.elapsed() < Duration::from_secs(1) {
                return Ok(false);
            }
            *last = Instant::now();
        }
        let cur = self.snapshot();
        if stamp(&self.dir) == cur.stamp {
            return Ok(false);
        }
        let next = Self::load(&self.dir, Some(&cur))?;
        *self.snap.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(next);
        Ok(true)
    }

    fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&self.snap.read().unwrap_or_else(|e| e.into_inner()))
    }

    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        *self.snap.write().unwrap_or_else(|e| e.into_inner()) =
            Arc::new(Snapshot { stamp: Stamp::default(), generation: 0, segments: vec![], removed: Removed::default(), edits: WellEdits::default() });
    }

    pub fn search(&self, req: &SearchRequest) -> Result<SearchReply> {
        let (total, hits, t0, snap) = self.run_search(req)?;
        let entries = fetch(&snap, &hits, req.raw_record)?;
        Ok(render::search_reply(total, t0, snap.segments.len(), entries))
    }

    /// The search as text for a reply built without parsing the entries again (see
    /// `render::search_text`).
    pub fn search_text(&self, req: &SearchRequest) -> Result<String> {
        let (total, hits, t0, snap) = self.run_search(req)?;
        let out = write_entries(snap, hits, req.raw_record, helper_threads(), b"")?;
        render::search_text(total, t0, out)
    }

    /// The whole body of a public API search reply, `{"balance","entries","took","total"}`,
    /// as the bytes sent: the entries written once, nothing parsed or copied again on the
    /// way out. `prepared` is `prepare`'s answer for `req` (the query parsed once per
    /// search); `t0` is when the search started, for `took`; `helpers`: threads a large
    /// page may be written on besides this one (`write_entries`).
    pub fn search_reply(&self, req: &SearchRequest, prepared: (ParsedQuery, Plan), balance: i64, t0: Instant, helpers: Option<usize>) -> Result<Vec<u8>> {
        let (total, hits, _, snap) = self.run_planned(req, prepared.0, prepared.1, t0)?;
        let out = write_entries(snap, hits, req.raw_record, helpers.unwrap_or_else(helper_threads), &render::reply_head(balance))?;
        Ok(render::reply_end(out, t0.elapsed().as_micros() as u64, total))
    }

    /// Whether the search counts its hits without hashing them: no source filter, and no
    /// dedup or dedup by first-occurrence bits. Its count is then a walk of its terms'
    /// postings (an exact value's: a few µs per 10,000 hits), work bounded enough for the
    /// caller's own thread (napi `searchReply`).
    pub fn counts_without_hashing(&self, req: &SearchRequest, parsed: &ParsedQuery) -> bool {
        parsed.sources.is_empty() && (!req.dedup || dedup_by_bits(&self.snapshot()))
    }

    /// A search's checks in the order a search makes them (engine open, paging, query),
    /// and its query parsed and planned.
    pub fn prepare(&self, req: &SearchRequest) -> Result<(ParsedQuery, Plan)> {
        self.check_open()?;
        check_paging(req.page, req.size, req.max_window)?;
        let parsed = req.parsed()?;
        let plan = planner::plan(&parsed)?;
        Ok((parsed, plan))
    }

    /// The search's total and its page's hits (segment, part, document), in document order.
    /// Public for the measurements of `tests/timing.rs`, as are `run_planned`, `fetch_each`
    /// and `write_entries`: the stages of a search timed apart.
    #[doc(hidden)]
    pub fn run_search(&self, req: &SearchRequest) -> Result<(u64, Vec<(usize, usize, u32)>, Instant, Arc<Snapshot>)> {
        let t0 = Instant::now();
        let (parsed, plan) = self.prepare(req)?;
        self.run_planned(req, parsed, plan, t0)
    }

    #[doc(hidden)]
    pub fn run_planned(&self, req: &SearchRequest, parsed: ParsedQuery, plan: Plan, t0: Instant) -> Result<(u64, Vec<(usize, usize, u32)>, Instant, Arc<Snapshot>)> {
        let _ = self.refresh(false);
        let snap = self.snapshot();
        let budget = Budget {
            deadline: Some(t0 + Duration::from_millis(req.budget_ms.max(1))),
            budget_ms: req.budget_ms,
        };
        let from = (req.page - 1) * req.size;
        let to = from + req.size;
        let mut hits = Hits { total: 0, window: Vec::new(), page: from..to };
        let mut seen = Seen::default();
        // Without a source filter, global first-occurrence bits (computed at publish) give
        // dedup without hashing every hit; a source filter needs the hash set.
        // After a takedown the bits are not enough: a record's first occurrence may be a
        // taken-down one (hidden, or purged), so dedup hashes the hits (see `purge`).
        let use_bits = req.dedup && parsed.sources.is_empty() && dedup_by_bits(&snap);
        // A part's count of this query is remembered when it does not depend on the other
        // parts (dedup by first-occurrence bits, or no dedup) and took a while to compute:
        // the next page, or the same query again, then only evaluates the parts holding the
        // page. The key is a hash: the query's text is not kept.
        let count_key = (req.count_cache.is_some() && parsed.sources.is_empty() && (use_bits || !req.dedup)).then(|| {
            let mut k = Vec::with_capacity(req.query.len() + 4);
            k.extend_from_slice(req.query.as_bytes());
            k.extend_from_slice(&[0, req.mode as u8, req.dedup as u8, req.default_field.map(|f| f as u8 + 1).unwrap_or(0)]);
            xxhash_rust::xxh3::xxh3_128(&k)
        });
        let removed = &snap.removed;
        for (si, seg) in snap.segments.iter().enumerate() {
            if !parsed.sources.is_empty() && !seg.sources.iter().any(|src| parsed.sources.iter().any(|s| *s == src.well_lower)) {
                continue;
            }
            if seg.all_hidden() {
                continue;
            }
            for (pi, part) in seg.parts.iter().enumerate() {
                let cached = count_key.and_then(|key| part.cached_count(key, removed.generation()));
                if let Some(c) = cached {
                    if !hits.overlaps(c as u64) {
                        hits.total += c as u64;
                        continue;
                    }
                }
                // A merged segment holds several wells: a source filter keeps their ranges.
                let ranges = if !parsed.sources.is_empty() && seg.sources.len() > 1 {
                    let r = seg.well_ranges(pi, &parsed.sources);
                    if r.is_empty() {
                        continue;
                    }
                    Some(r)
                } else {
                    None
                };
                let (part_t0, before) = (Instant::now(), hits.total);
                // One exact term, every hit counted or dedup by first-occurrence bits: its
                // postings streamed, never materialised (and, with the part's count known,
                // read only as far as the page).
                let exact = single_exact(&plan).filter(|_| (use_bits || !req.dedup) && ranges.is_none() && seg.hidden[pi].is_empty());
                let first = if use_bits { part.first_bytes().map(Some) } else { Some(None) };
                match (exact, first) {
                    (Some((f, term)), Some(first)) => count_term(part, (si, pi), (f, term), first, cached, removed, &mut hits)?,
                    _ => {
                        let mut docs = planner::eval(&plan, part, &budget)?;
                        seg.drop_hidden(pi, &mut docs);
                        if let Some(r) = ranges {
                            let mut k = 0usize;
                            docs.retain(|&d| {
                                while k < r.len() && r[k].end <= d {
                                    k += 1;
                                }
                                k < r.len() && r[k].start <= d
                            });
                        }
                        count_docs(part, (si, pi), docs, use_bits, req.dedup, removed, &mut seen, &budget, &mut hits)?;
                    }
                }
                if let (Some(key), Some(min)) = (count_key, req.count_cache) {
                    if part_t0.elapsed() >= Duration::from_micros(min) {
                        part.remember_count(key, removed.generation(), (hits.total - before) as u32);
                    }
                }
            }
        }
        Ok((hits.total, hits.window, t0, snap))
    }

    fn locate<'a>(snap: &'a Snapshot, id: &str) -> Option<(usize, &'a Segment, usize, u32)> {
        let (sid, part, doc) = parse_id(id)?;
        if let Some((si, seg)) = snap.segments.iter().enumerate().find(|(_, s)| s.meta.id == sid) {
            let p = seg.parts.get(part)?;
            if doc >= p.docs || seg.is_hidden(part, doc) {
                return None;
            }
            return Some((si, seg, part, doc));
        }
        // An id handed out before a merge: resolve it through the merged segment's aliases.
        for (si, seg) in snap.segments.iter().enumerate() {
            if let Some(a) = seg.meta.aliases.iter().find(|a| a.id == sid) {
                let (p, d) = seg.locate_global(a.locate(part, doc)?)?;
                if seg.is_hidden(p, d) {
                    return None;
                }
                return Some((si, seg, p, d));
            }
        }
        None
    }

    pub fn get(&self, id: &str) -> Result<Option<Entry>> {
        self.check_open()?;
        let _ = self.refresh(false);
        let snap = self.snapshot();
        match Self::locate(&snap, id) {
            None => Ok(None),
            Some((si, seg, part, doc)) => {
                if seg.parts[part].is_removed(doc, &snap.removed)? {
                    return Ok(None);
                }
                let v = fetch(&snap, &[(si, part, doc)], RawRecord::Line)?;
                Ok(v.into_iter().next())
            }
        }
    }

    /// Tombstone a record by id (and by its dedup key). False when unknown or already removed.
    pub fn remove(&self, id: &str) -> Result<bool> {
        self.check_open()?;
        self.refresh(true)?;
        let snap = self.snapshot();
        let (_, seg, part, doc) = match Self::locate(&snap, id) {
            None => return Ok(false),
            Some(x) => x,
        };
        let key = seg.parts[part].dedup_key(doc)?;
        if snap.removed.contains(key) {
            return Ok(false);
        }
        append_tombstone(&self.dir, id, key)?;
        self.refresh(true)?;
        Ok(true)
    }

    /// Opt-out: the address is kept out of every read path, in these segments and in every
    /// one published later, until `unsuppress` (see `suppress.rs`). Answers how many records
    /// hold it (`records`, removed ones included).
    pub fn suppress(&self, email: &str) -> Result<SuppressReply> {
        self.check_open()?;
        let term = suppress::email_term(email)?;
        let records = {
            let _lock = IndexLock::acquire(&self.dir)?;
            // Under the lock no segment is published: the snapshot holds every one.
            self.refresh(true)?;
            let snap = self.snapshot();
            suppress::suppress_locked(&self.dir, &snap.segments, &term)?.1
        };
        self.refresh(true)?;
        Ok(SuppressReply { records: records as u64 })
    }

    /// Lifts an opt-out: the records it hid come back, unless removed for another reason.
    /// False when the address was not suppressed.
    pub fn unsuppress(&self, email: &str) -> Result<bool> {
        self.check_open()?;
        let term = suppress::email_term(email)?;
        let lifted = {
            let _lock = IndexLock::acquire(&self.dir)?;
            suppress::lift_locked(&self.dir, &term)?
        };
        self.refresh(true)?;
        Ok(lifted)
    }

    /// Whether the address is suppressed, and since when (`since`: unix seconds, or null).
    pub fn suppression(&self, email: &str) -> Result<SuppressionReply> {
        self.check_open()?;
        let term = suppress::email_term(email)?;
        let since = suppress::suppressed_since(&self.dir, &term)?;
        Ok(SuppressionReply { suppressed: since.is_some(), since })
    }

    /// For monitoring: which (field, value) watches match records of one segment (see
    /// `watch.rs`). Answers `[{i, total, recordIds}]` for the watches with at least one
    /// match, in the order given (`i`: the watch's position): `total` counts every
    /// matching record (removed ones left out), `recordIds` are the first `limit` in
    /// document order.
    pub fn match_watches(&self, req: &MatchWatchesRequest) -> Result<Vec<WatchHit>> {
        let segment_id = req.segment_id.as_str();
        self.check_open()?;
        self.refresh(true)?;
        let snap = self.snapshot();
        // The segment of an ingest, or the merged segment that now holds its records
        // (then only that ingest's document range is matched).
        let (seg, range) = match snap.segments.iter().find(|s| s.meta.id == segment_id) {
            Some(s) => (s, 0..s.records),
            None => match snap.segments.iter().find_map(|s| s.meta.aliases.iter().find(|a| a.id == segment_id).map(|a| (s, a))) {
                Some((s, a)) => (s, a.start..a.start + a.part_docs.iter().map(|&d| d as u64).sum::<u64>()),
                None => return Err(EngineError::InvalidArgument(format!("unknown segment {}", segment_id))),
            },
        };
        let inputs: Vec<WatchInput> = req.watches.iter().map(|w| WatchInput { field: &w.field, value: &w.value }).collect();
        let found = watch::match_segment(seg, range, &inputs, &snap.removed, req.limit, req.strategy)?;
        let mut out = Vec::new();
        for (i, h) in found.into_iter().enumerate() {
            if h.total == 0 {
                continue;
            }
            let record_ids = h.docs.iter().map(|&(pi, d)| format!("{}-{}-{}", seg.meta.id, pi, d)).collect();
            out.push(WatchHit { i: i as u64, total: h.total, record_ids });
        }
        Ok(out)
    }

    /// The (segment, part, document) of each id found and not removed, in document order,
    /// with the id's position in `ids`.
    fn locate_many(snap: &Snapshot, ids: &[String]) -> Result<Vec<((usize, usize, u32), usize)>> {
        let mut at: Vec<((usize, usize, u32), usize)> = Vec::with_capacity(ids.len());
        for (k, id) in ids.iter().enumerate() {
            if let Some((si, seg, part, doc)) = Self::locate(snap, id) {
                if !seg.parts[part].is_removed(doc, &snap.removed)? {
                    at.push(((si, part, doc), k));
                }
            }
        }
        at.sort_unstable();
        Ok(at)
    }

    /// Entries by id, in the order asked, `null` for an unknown or removed id; each store
    /// block is taken once for all the ids in it.
    pub fn get_many(&self, req: &GetManyRequest) -> Result<Vec<Option<Entry>>> {
        self.check_open()?;
        let _ = self.refresh(false);
        let snap = self.snapshot();
        let at = Self::locate_many(&snap, &req.ids)?;
        let window: Vec<(usize, usize, u32)> = at.iter().map(|a| a.0).collect();
        let entries = fetch(&snap, &window, req.raw_record)?;
        let mut out = vec![None; req.ids.len()];
        for (e, (_, k)) in entries.into_iter().zip(at) {
            out[k] = Some(e);
        }
        Ok(out)
    }

    /// `get_many` as text for a reply built without parsing the entries again: a JSON line
    /// `{"found": n}`, a newline, then the JSON array of the entries found, in the order
    /// asked (unknown and removed ids left out).
    pub fn get_many_text(&self, req: &GetManyRequest) -> Result<String> {
        self.check_open()?;
        let _ = self.refresh(false);
        let snap = self.snapshot();
        let mut at = Self::locate_many(&snap, &req.ids)?;
        let window: Vec<(usize, usize, u32)> = at.iter().map(|a| a.0).collect();
        let mut buf = Vec::with_capacity(window.len() * 256);
        let mut w = render::EntryWriter::default();
        let mut n = 0usize;
        fetch_each(&snap, &window, |seg, pi, d, ctx, line| {
            let start = buf.len();
            w.write(&mut buf, seg, pi, d, ctx, line, req.raw_record);
            // Where the entry's text is, in place of its document (no longer needed).
            at[n].0 = (start, buf.len(), 0);
            n += 1;
        })?;
        // Back to the order asked.
        at.sort_unstable_by_key(|a| a.1);
        let mut out = serde_json::to_vec(&GetManyTextHead { found: at.len() as u64 })?;
        out.extend_from_slice(b"\n[");
        for (i, ((s, e, _), _)) in at.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(&buf[*s..*e]);
        }
        out.push(b']');
        String::from_utf8(out).map_err(|e| EngineError::Internal(e.to_string()))
    }

    /// Password check: how many records (dedup on, removals hidden) hold this hash, as a
    /// stored `hashed_password` or as the SHA-256, SHA-1 or NTLM of their plaintext
    /// `password` (the derived tables, formats 3 and 12). One exact lookup per table and part; a record found
    /// in several tables counts once. `{total, tookMicros}`.
    pub fn password_count(&self, req: &PasswordRequest) -> Result<PasswordCountReply> {
        let t0 = Instant::now();
        self.check_open()?;
        let _ = self.refresh(false);
        let snap = self.snapshot();
        let budget = Budget { deadline: Some(t0 + Duration::from_millis(DEFAULT_BUDGET_MS)), budget_ms: DEFAULT_BUDGET_MS };
        let use_bits = snap.edits.deleted.is_empty() && snap.segments.iter().all(|s| s.parts.iter().all(|p| p.has_first_bits()));
        let mut hits = Hits { total: 0, window: Vec::new(), page: 0..0 };
        let mut seen = Seen::default();
        let term = req.hex.as_bytes();
        for (si, seg) in snap.segments.iter().enumerate() {
            for (pi, part) in seg.parts.iter().enumerate() {
                let mut docs = Vec::new();
                let mut lists = 0;
                for f in PASSWORD_TABLES {
                    if let Some(fi) = &part.fields[f] {
                        fi.hash_terms(part.fields[PASSWORD].as_ref(), term, true, |o, _| {
                            fi.postings_into(o, &mut docs);
                            lists += 1;
                            Ok(())
                        })?;
                    }
                }
                if lists > 1 {
                    docs.sort_unstable();
                    docs.dedup();
                }
                seg.drop_hidden(pi, &mut docs);
                count_docs(part, (si, pi), docs, use_bits, true, &snap.removed, &mut seen, &budget, &mut hits)?;
            }
        }
        Ok(PasswordCountReply { total: hits.total, took_micros: t0.elapsed().as_micros() as u64 })
    }

    /// Password range (k-anonymity): every hash starting with the prefix, in the same three
    /// tables, as its suffix and its count of records (no dedup, removals hidden; a record
    /// holding one hash in two tables counts once). One prefix range per table and part.
    /// `{prefix, suffixes: [{suffix, count}] (by suffix), truncated, tookMicros}`.
    pub fn password_range(&self, req: &PasswordRequest) -> Result<PasswordRangeReply> {
        let t0 = Instant::now();
        self.check_open()?;
        let _ = self.refresh(false);
        let snap = self.snapshot();
        let budget = Budget { deadline: Some(t0 + Duration::from_millis(DEFAULT_BUDGET_MS)), budget_ms: DEFAULT_BUDGET_MS };
        let prefix = req.hex.as_bytes();
        let removed = &snap.removed;
        let mut counts: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
        let mut truncated = false;
        for seg in snap.segments.iter() {
            for (pi, part) in seg.parts.iter().enumerate() {
                // Keyed by the hex term (the derived tables hold binary digest prefixes,
                // written out as hex; the others hold hex text).
                let mut found: HashMap<Vec<u8>, Vec<u32>> = HashMap::new();
                for f in PASSWORD_TABLES {
                    let Some(fi) = &part.fields[f] else { continue };
                    fi.hash_terms(part.fields[PASSWORD].as_ref(), prefix, false, |ord, hex| {
                        if ord & 1023 == 1023 {
                            budget.check()?;
                        }
                        let docs = match found.get_mut(hex) {
                            Some(d) => d,
                            None => found.entry(hex.to_vec()).or_default(),
                        };
                        fi.postings_into(ord, docs);
                        Ok(())
                    })?;
                }
                for (t, mut docs) in found {
                    docs.sort_unstable();
                    docs.dedup();
                    seg.drop_hidden(pi, &mut docs);
                    if !removed.is_empty() {
                        let mut kept = Vec::with_capacity(docs.len());
                        for d in docs {
                            if !part.is_removed(d, removed)? {
                                kept.push(d);
                            }
                        }
                        docs = kept;
                    }
                    if docs.is_empty() {
                        continue;
                    }
                    if counts.len() >= MAX_PASSWORD_SUFFIXES && !counts.contains_key(&t) {
                        truncated = true;
                        continue;
                    }
                    *counts.entry(t).or_default() += docs.len() as u64;
                }
            }
        }
        let suffixes = counts
            .iter()
            .map(|(t, c)| PasswordSuffix { suffix: String::from_utf8_lossy(&t[prefix.len()..]).into_owned(), count: *c })
            .collect();
        Ok(PasswordRangeReply { prefix: req.hex.clone(), suffixes, truncated, took_micros: t0.elapsed().as_micros() as u64 })
    }

    pub fn stats(&self) -> Result<StatsReply> {
        self.check_open()?;
        let _ = self.refresh(false);
        let snap = self.snapshot();
        let mut wells: BTreeMap<String, u64> = BTreeMap::new();
        // The sources of every live ingest: id, well (renamed), records.
        let mut sources = Vec::new();
        for src in snap.segments.iter().flat_map(|s| s.sources.iter()) {
            if snap.edits.deleted.contains(&src.id) {
                continue;
            }
            *wells.entry(src.well.clone()).or_default() += src.records;
            sources.push(SourceStats { id: src.id.clone(), well: src.well.clone(), records: src.records });
        }
        Ok(StatsReply {
            records: snap.segments.iter().map(|s| s.records - s.hidden_records).sum(),
            hidden_records: snap.segments.iter().map(|s| s.hidden_records).sum(),
            sources,
            segments: snap.segments.len() as u64,
            parts: snap.segments.iter().map(|s| s.parts.len() as u64).sum(),
            generation: snap.generation,
            removed: snap.removed.len() as u64,
            wells,
            segment_ids: snap.segments.iter().map(|s| s.meta.id.clone()).collect(),
        })
    }

    /// Operator edits of data wells (`wells.log`): sources taken down and renamed. Applied
    /// here at once, by every other reader at its next check.
    pub fn edit_wells(&self, arg: &EditWellsArgs) -> Result<EditWellsReply> {
        self.check_open()?;
        let deleted = arg.delete.iter().map(|id| (id.clone(), None));
        let renamed = arg.rename.iter().map(|(id, name)| (id.clone(), Some(name.clone())));
        let edits: Vec<(String, Option<String>)> = deleted.chain(renamed).collect();
        if !edits.is_empty() {
            append_well_edits(&self.dir, &edits)?;
        }
        self.refresh(true)?;
        Ok(EditWellsReply { edits: edits.len() as u64 })
    }

    /// Reclaims the bytes of taken-down sources now: every segment whose sources are all
    /// taken down leaves the manifest and its directory is deleted; a merged segment that
    /// also holds live sources is rewritten by a merge that leaves the deleted ones out
    /// (`merge::run` with `purge`). `{dropped: [segment ids], rewritten: [segment ids]}`.
    /// The rewriting is the ingest crate's `merge::purge`, given by the caller (the binding):
    /// searches do not depend on the ingest.
    pub fn purge(&self, purge_index: impl FnOnce(&Path) -> Result<PurgeReply>) -> Result<PurgeReply> {
        self.check_open()?;
        let out = purge_index(&self.dir)?;
        self.refresh(true)?;
        Ok(out)
    }
}

/// The tables a password hash is looked up in: stored hashes, then the derived ones. A
/// hash's length tells its kind (64 hex digits: SHA-256, 40: SHA-1, 32: NTLM or a stored
/// 32-digit hash such as MD5); each table answers only hashes of its own width.
const PASSWORD_TABLES: [usize; 4] = [HASHED_PASSWORD, PASSWORD_SHA256, PASSWORD_SHA1, PASSWORD_NTLM];
/// Distinct hashes a range answers at most (then `truncated`); a 5-hex prefix is 1/1,048,576
/// of the hashes: this is about 10^11 distinct hashes in the index.
const MAX_PASSWORD_SUFFIXES: usize = 100_000;

/// The running total of a search and the hits of its page.
struct Hits {
    total: u64,
    window: Vec<(usize, usize, u32)>,
    page: std::ops::Range<u64>,
}

impl Hits {
    #[inline]
    fn push(&mut self, at: (usize, usize), d: u32) {
        if self.page.contains(&self.total) {
            self.window.push((at.0, at.1, d));
        }
        self.total += 1;
    }

    /// Whether the next `count` hits reach into the page.
    fn overlaps(&self, count: u64) -> bool {
        self.total < self.page.end && self.total + count > self.page.start
    }
}

/// One exact term (`password:123456`, `email:*@yahoo.com`) with dedup by first-occurrence
/// bits (`first`), or without dedup (`None`: every hit counts): its postings decoded and
/// counted in one pass, without materialising the hits. Past the page (and without
/// tombstones) the loop only adds first-occurrence bits, or stops at once when the part's
/// count is `known` (the count cache): a first page of a domain's million addresses reads
/// the postings of its twenty.
#[allow(clippy::too_many_arguments)]
fn count_term(part: &Part, at: (usize, usize), (field, term): (usize, &[u8]), first: Option<&[u8]>, known: Option<u32>, removed: &Removed, hits: &mut Hits) -> Result<()> {
    let Some(fi) = &part.fields[field] else { return Ok(()) };
    let Some(ord) = fi.dict.get(term) else { return Ok(()) };
    let before = hits.total;
    let is_first = |d: u32| first.map_or(1, |first| (first[(d >> 3) as usize] >> (d & 7)) & 1);
    let kept = |d: u32| -> Result<bool> { Ok(is_first(d) == 1 && !part.is_removed(d, removed)?) };
    let bytes = match fi.stored_postings(ord) {
        crate::segment::StoredPostings::Varints(b) => b,
        crate::segment::StoredPostings::One(d) => {
            if kept(d)? {
                hits.push(at, d);
            }
            return Ok(());
        }
    };
    // Delta varints; the first value is a delta from 0.
    let next = |i: &mut usize, d: &mut u32| *d = d.wrapping_add(crate::postings::varint_at(bytes, i) as u32);
    let (mut i, mut d) = (0usize, 0u32);
    while i < bytes.len() && (hits.total < hits.page.end || !removed.is_empty()) {
        next(&mut i, &mut d);
        if kept(d)? {
            hits.push(at, d);
        }
    }
    if let Some(n) = known.filter(|_| removed.is_empty()) {
        hits.total = before + n as u64;
        return Ok(());
    }
    let mut count = 0u64;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            i += 1;
            d = d.wrapping_add(b as u32);
        } else {
            next(&mut i, &mut d);
        }
        count += is_first(d) as u64;
    }
    hits.total += count;
    Ok(())
}

/// Dedup by a hash set (a source filter, or parts without first-occurrence bits): the whole
/// keys of the hits so far, and the hits whose whole key is not known yet (the first
/// records of format 10 parts, which keep only a short key), by short key. Such a hit is
/// the first with its key in global order, hence among the hits: it is kept, and its key
/// computed only when a later hit with a known whole key shares its short key.
#[derive(Default)]
struct Seen<'a> {
    keys: KeySet,
    /// Short key -> the last of its pending hits, in `list`.
    pending: HashMap<u32, usize, std::hash::BuildHasherDefault<IntHasher>>,
    /// Pending hits: (part, document, the previous one with the same short key).
    list: Vec<(&'a Part, u32, usize)>,
}

impl<'a> Seen<'a> {
    /// Whether document `d` of `part` is the first hit with its dedup key.
    fn first(&mut self, part: &'a Part, d: u32) -> Result<bool> {
        let Some(key) = part.keys.stored(d) else {
            let prev = self.pending.insert(part.keys.short(d), self.list.len()).unwrap_or(usize::MAX);
            self.list.push((part, d, prev));
            return Ok(true);
        };
        if let Some(mut i) = self.pending.remove(&short_key(key)) {
            while i != usize::MAX {
                let (p, e, prev) = self.list[i];
                self.keys.insert(p.dedup_key(e)?);
                i = prev;
            }
        }
        Ok(self.keys.insert(key))
    }
}

/// Counts a part's matching documents (ascending) after dedup and removals.
#[allow(clippy::too_many_arguments)]
fn count_docs<'a>(part: &'a Part, at: (usize, usize), docs: Vec<u32>, use_bits: bool, dedup: bool, removed: &Removed, seen: &mut Seen<'a>, budget: &Budget, hits: &mut Hits) -> Result<()> {
    // The common cases, no removal and dedup by first-occurrence bits (a bit test per hit)
    // or no dedup (every hit).
    if removed.is_empty() && (use_bits || !dedup) {
        let first = part.first_bytes().filter(|_| use_bits);
        for (n, &d) in docs.iter().enumerate() {
            if n & 8191 == 8191 {
                budget.check()?;
            }
            if first.map_or(true, |first| first[(d >> 3) as usize] >> (d & 7) & 1 == 1) {
                hits.push(at, d);
            }
        }
        return Ok(());
    }
    let (removals, by_set) = (!removed.is_empty(), !use_bits && dedup);
    for (n, d) in docs.into_iter().enumerate() {
        if n & 8191 == 8191 {
            budget.check()?;
        }
        if (use_bits && !part.is_first(d)) || (removals && part.is_removed(d, removed)?) || (by_set && !seen.first(part, d)?) {
            continue;
        }
        hits.push(at, d);
    }
    Ok(())
}

/// The (field, normalised value) of a query that is one exact term of one field.
/// Dedup by the global first-occurrence bits is exact: no takedown since (a record's first
/// occurrence may be a taken-down one) and every part has them.
fn dedup_by_bits(snap: &Snapshot) -> bool {
    snap.edits.deleted.is_empty() && snap.segments.iter().all(|s| s.parts.iter().all(|p| p.has_first_bits()))
}

fn single_exact(plan: &Plan) -> Option<(usize, &[u8])> {
    match plan {
        Plan::Term(planner::TermPlan::Exact(list)) if list.len() == 1 => Some((list[0].0, &list[0].1)),
        _ => None,
    }
}

/// Calls `f(segment, part, document, context, line)` for each hit of `window` (in
/// document order: segment, part, document), taking each store block once however many
/// hits it holds: from the block cache, or decompressed (then cached), up to
/// `FETCH_BLOCKS` blocks at a time (`StoreReader::blocks_holding`: one lock of the cache
/// for them).
#[doc(hidden)]
pub fn fetch_each(snap: &Snapshot, window: &[(usize, usize, u32)], mut f: impl FnMut(&Segment, usize, u32, u16, Line<'_>)) -> Result<()> {
    let mut blocks: Vec<Arc<Block>> = Vec::new();
    let mut docs: Vec<u32> = Vec::new();
    let mut i = 0;
    while i < window.len() {
        let (si, pi, _) = window[i];
        let seg = &snap.segments[si];
        let store = &seg.parts[pi].store;
        // The run of hits in this part.
        let run = window[i..].iter().take_while(|h| h.0 == si && h.1 == pi).count();
        docs.clear();
        docs.extend(window[i..i + run].iter().map(|h| h.2));
        let mut k = 0;
        while k < run {
            let n = store.blocks_holding(&docs[k..], FETCH_BLOCKS, &mut blocks)?;
            let mut b = 0;
            for &d in &docs[k..k + n] {
                if !blocks[b].holds(d) && b + 1 < blocks.len() {
                    b += 1;
                }
                let (ctx, line) = blocks[b].line(d)?;
                f(seg, pi, d, ctx, line);
            }
            k += n;
        }
        i += run;
    }
    Ok(())
}

/// Blocks looked up in the block cache at a time by `fetch_each` (the blocks of a page
/// without the cache, `LEAKWELL_STORE_CACHE_MB=0`, are held until their entries are
/// written: 256 are about 0.5 MB).
const FETCH_BLOCKS: usize = 256;

/// Pages of at least this many entries are fetched and written on more than one thread.
const PARALLEL_ENTRIES: usize = 1024;
/// ... in chunks of about this many entries, taken in turn by the threads.
const CHUNK_ENTRIES: usize = 512;

/// Other threads that help write a large page: one less than the cores, at most 3.
/// Computed once: `available_parallelism` reads the cgroup's CPU quota files on Linux (a
/// few system calls), too dear for every `/v2/search` call.
fn helper_threads() -> usize {
    static HELPERS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *HELPERS.get_or_init(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1).clamp(1, 4) - 1)
}

/// A large page's entries, written in chunks by the calling thread and helpers (jobs of
/// the quick lane). Each chunk is a run of hits ending at a store block's end, so no
/// block is decompressed twice. A helper that starts late finds every chunk taken and
/// returns: the caller never waits for a job that has not started.
struct PageJob {
    snap: Arc<Snapshot>,
    hits: Vec<(usize, usize, u32)>,
    /// [start, end) of each chunk in `hits`.
    chunks: Vec<(usize, usize)>,
    raw: RawRecord,
    next: AtomicUsize,
    /// Each chunk's text (entries separated by commas), and how many are done.
    done: Mutex<(Vec<Option<Result<Vec<u8>>>>, usize)>,
    all_done: Condvar,
}

impl PageJob {
    fn work(&self) {
        let mut w = render::EntryWriter::default();
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(&(s, e)) = self.chunks.get(i) else { return };
            // A panic must not leave the caller waiting for this chunk.
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut out = render::page_buffer((e - s) * 192);
                fetch_each(&self.snap, &self.hits[s..e], |seg, pi, d, ctx, line| {
                    if !out.is_empty() {
                        out.push(b',');
                    }
                    w.write(&mut out, seg, pi, d, ctx, line, self.raw);
                })
                .map(|_| out)
            }))
            .unwrap_or_else(|_| Err(EngineError::Internal("writing a page's entries failed".into())));
            let mut g = self.done.lock().unwrap_or_else(|p| p.into_inner());
            g.0[i] = Some(r);
            g.1 += 1;
            if g.1 == self.chunks.len() {
                self.all_done.notify_all();
            }
        }
    }
}

/// `head`, then the JSON array of the entries of `hits` (in document order), on this thread
/// and up to `helpers` others when the page is large; with room for `render::TAIL_ROOM`
/// bytes more (a reply's end), so that neither the head nor the end moves the page's bytes.
#[doc(hidden)]
pub fn write_entries(snap: Arc<Snapshot>, hits: Vec<(usize, usize, u32)>, raw: RawRecord, helpers: usize, head: &[u8]) -> Result<Vec<u8>> {
    let start = head.len() + 1;
    if helpers == 0 || hits.len() < PARALLEL_ENTRIES {
        let mut out = render::page_buffer(hits.len() * 192 + start + 1 + render::TAIL_ROOM);
        out.extend_from_slice(head);
        out.push(b'[');
        let mut w = render::EntryWriter::default();
        fetch_each(&snap, &hits, |seg, pi, d, ctx, line| {
            if out.len() > start {
                out.push(b',');
            }
            w.write(&mut out, seg, pi, d, ctx, line, raw);
        })?;
        out.push(b']');
        return Ok(out);
    }
    let block = |h: &(usize, usize, u32)| (h.0, h.1, snap.segments[h.0].parts[h.1].store.block_of(h.2));
    let mut chunks = Vec::with_capacity(hits.len() / CHUNK_ENTRIES + 1);
    let mut s = 0;
    while s < hits.len() {
        let mut e = (s + CHUNK_ENTRIES).min(hits.len());
        if e < hits.len() {
            // Move the end past the other hits of the last hit's block.
            let last = block(&hits[e - 1]);
            while e < hits.len() && (hits[e].0, hits[e].1) == (last.0, last.1) && block(&hits[e]) == last {
                e += 1;
            }
        }
        chunks.push((s, e));
        s = e;
    }
    let n = chunks.len();
    let job = Arc::new(PageJob { snap, hits, chunks, raw, next: AtomicUsize::new(0), done: Mutex::new(((0..n).map(|_| None).collect(), 0)), all_done: Condvar::new() });
    for _ in 0..helpers.min(n - 1) {
        let j = Arc::clone(&job);
        // Without a pool the caller writes every chunk itself.
        let _ = crate::pool::submit(crate::pool::Lane::Quick, Box::new(move || j.work()));
    }
    job.work();
    let mut g = job.done.lock().unwrap_or_else(|p| p.into_inner());
    while g.1 < n {
        g = job.all_done.wait(g).unwrap_or_else(|p| p.into_inner());
    }
    // The page's buffer is taken once its size is known: a page grown by doubling copies
    // its bytes and faults in fresh memory at each step.
    let mut size = start + 1 + render::TAIL_ROOM;
    for c in g.0.iter() {
        match c {
            Some(Ok(text)) => size += text.len() + 1,
            Some(Err(_)) => {}
            None => unreachable!("every chunk is done"),
        }
    }
    let mut out = render::page_buffer(size);
    out.extend_from_slice(head);
    out.push(b'[');
    for c in g.0.iter_mut() {
        let text = c.take().expect("every chunk is done")?;
        if !text.is_empty() {
            if out.len() > start {
                out.push(b',');
            }
            out.extend_from_slice(&text);
        }
        render::give_back(text);
    }
    out.push(b']');
    Ok(out)
}

/// The page's entries as values (`search`, `get`, `getMany`).
fn fetch(snap: &Snapshot, window: &[(usize, usize, u32)], raw: RawRecord) -> Result<Vec<Entry>> {
    let mut out = Vec::with_capacity(window.len());
    fetch_each(snap, window, |seg, pi, d, ctx, line| out.push(render::entry_json(seg, pi, d, ctx, &String::from_utf8_lossy(line.bytes()), raw)))?;
    Ok(out)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod email_infix_tests;

#[cfg(test)]
mod page_tests;

#[cfg(test)]
mod json_line_tests;

#[cfg(test)]
mod dedup_tests;

#[cfg(test)]
mod takedown_tests;

#[cfg(test)]
mod ntlm_tests;

#[cfg(test)]
mod test_ingest;

mod well_counts;
