//! The reader side: an open index directory. Holds an immutable snapshot (segments +
//! tombstones) behind an `RwLock<Arc<…>>`; searches take the snapshot and run without
//! locks, a refresh swaps in a new one. The manifest and the tombstone log are checked at
//! most once a second, so a running server sees a new ingest without a restart.

use crate::error::{EngineError, Result};
use crate::fields::{HASHED_PASSWORD, PASSWORD, PASSWORD_SHA1, PASSWORD_SHA256};
use crate::keys::{short_key, IntHasher, KeySet, Removed};
use crate::manifest::{append_tombstone, append_well_edits, read_tombstones, read_well_edits, Manifest, WellEdits, MANIFEST, TOMBSTONES, WELLS_LOG};
use crate::planner::{self, Plan};
use crate::query::ParsedQuery;
use crate::render::{self, RawRecord};
use crate::request::{check_paging, GetManyRequest, MatchWatchesRequest, PasswordRequest, SearchRequest, DEFAULT_BUDGET_MS};
use crate::segment::{segment_dir, Part, Segment};
use crate::store::Block;
use crate::termdict::Budget;
use crate::watch::{self, WatchInput};
use serde_json::{json, Map, Value};
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
    wells: u64,
}

fn stamp(dir: &Path) -> Stamp {
    let m = std::fs::metadata(dir.join(MANIFEST))
        .map(|m| (m.mtime(), m.mtime_nsec(), m.ino(), m.len()))
        .unwrap_or_default();
    let t = std::fs::metadata(dir.join(TOMBSTONES)).map(|m| m.len()).unwrap_or(0);
    let w = std::fs::metadata(dir.join(WELLS_LOG)).map(|m| m.len()).unwrap_or(0);
    Stamp { manifest: m, tombstones: t, wells: w }
}

struct Snapshot {
    stamp: Stamp,
    generation: u64,
    segments: Vec<Arc<Segment>>,
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
        let (removed, _) = read_tombstones(dir)?;
        Ok(Snapshot { stamp: st, generation: manifest.generation, segments, removed: Removed::new(removed), edits })
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

    pub fn search(&self, req: &SearchRequest) -> Result<Value> {
        let (total, hits, t0, snap) = self.run_search(req)?;
        let entries = fetch(&snap, &hits, req.raw_record)?;
        Ok(render::search_json(total, t0, snap.segments.len(), entries))
    }

    /// The search as text for a reply built without parsing the entries again (see
    /// `render::search_text`).
    pub fn search_text(&self, req: &SearchRequest) -> Result<String> {
        let (total, hits, t0, snap) = self.run_search(req)?;
        let out = write_entries(snap, hits, req.raw_record, helper_threads())?;
        render::search_text(total, t0, out)
    }

    /// The whole body of a public API search reply, `{"balance","entries","took","total"}`,
    /// as the bytes sent: the entries written once, nothing parsed or copied again on the
    /// way out. `prepared` is `prepare`'s answer for `req` (the query parsed once per
    /// search); `t0` is when the search started, for `took`; `helpers`: threads a large
    /// page may be written on besides this one (`write_entries`).
    pub fn search_reply(&self, req: &SearchRequest, prepared: (ParsedQuery, Plan), balance: i64, t0: Instant, helpers: Option<usize>) -> Result<Vec<u8>> {
        let (total, hits, _, snap) = self.run_planned(req, prepared.0, prepared.1, t0)?;
        let out = write_entries(snap, hits, req.raw_record, helpers.unwrap_or_else(helper_threads))?;
        Ok(render::reply_bytes(balance, out, t0.elapsed().as_micros() as u64, total))
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
    fn run_search(&self, req: &SearchRequest) -> Result<(u64, Vec<(usize, usize, u32)>, Instant, Arc<Snapshot>)> {
        let t0 = Instant::now();
        let (parsed, plan) = self.prepare(req)?;
        self.run_planned(req, parsed, plan, t0)
    }

    fn run_planned(&self, req: &SearchRequest, parsed: ParsedQuery, plan: Plan, t0: Instant) -> Result<(u64, Vec<(usize, usize, u32)>, Instant, Arc<Snapshot>)> {
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
                if let Some(c) = count_key.and_then(|key| part.cached_count(key, removed.len())) {
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
                let exact = single_exact(&plan).filter(|_| use_bits && ranges.is_none() && seg.hidden[pi].is_empty());
                match (exact, part.first_bytes()) {
                    (Some((f, term)), Some(first)) => count_term(part, (si, pi), f, term, first, removed, &mut hits)?,
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
                        part.remember_count(key, removed.len(), (hits.total - before) as u32);
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

    pub fn get(&self, id: &str) -> Result<Value> {
        self.check_open()?;
        let _ = self.refresh(false);
        let snap = self.snapshot();
        match Self::locate(&snap, id) {
            None => Ok(Value::Null),
            Some((si, seg, part, doc)) => {
                if seg.parts[part].is_removed(doc, &snap.removed)? {
                    return Ok(Value::Null);
                }
                let v = fetch(&snap, &[(si, part, doc)], RawRecord::Line)?;
                Ok(v.into_iter().next().unwrap_or(Value::Null))
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

    /// For monitoring: which (field, value) watches match records of one segment (see
    /// `watch.rs`). Answers `[{i, total, recordIds}]` for the watches with at least one
    /// match, in the order given (`i`: the watch's position): `total` counts every
    /// matching record (removed ones left out), `recordIds` are the first `limit` in
    /// document order.
    pub fn match_watches(&self, req: &MatchWatchesRequest) -> Result<Value> {
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
            let ids: Vec<Value> = h.docs.iter().map(|&(pi, d)| Value::String(format!("{}-{}-{}", seg.meta.id, pi, d))).collect();
            out.push(json!({ "i": i, "total": h.total, "recordIds": ids }));
        }
        Ok(Value::Array(out))
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
    pub fn get_many(&self, req: &GetManyRequest) -> Result<Vec<Value>> {
        self.check_open()?;
        let _ = self.refresh(false);
        let snap = self.snapshot();
        let at = Self::locate_many(&snap, &req.ids)?;
        let window: Vec<(usize, usize, u32)> = at.iter().map(|a| a.0).collect();
        let entries = fetch(&snap, &window, req.raw_record)?;
        let mut out = vec![Value::Null; req.ids.len()];
        for (e, (_, k)) in entries.into_iter().zip(at) {
            out[k] = e;
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
        let mut out = format!("{}\n[", json!({ "found": at.len() })).into_bytes();
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
    /// stored `hashed_password` or as the SHA-256 or SHA-1 of their plaintext `password`
    /// (the derived tables, format 3). One exact lookup per table and part; a record found
    /// in several tables counts once. `{total, tookMicros}`.
    pub fn password_count(&self, req: &PasswordRequest) -> Result<Value> {
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
        Ok(json!({ "total": hits.total, "tookMicros": t0.elapsed().as_micros() as u64 }))
    }

    /// Password range (k-anonymity): every hash starting with the prefix, in the same three
    /// tables, as its suffix and its count of records (no dedup, removals hidden; a record
    /// holding one hash in two tables counts once). One prefix range per table and part.
    /// `{prefix, suffixes: [{suffix, count}] (by suffix), truncated, tookMicros}`.
    pub fn password_range(&self, req: &PasswordRequest) -> Result<Value> {
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
                // Keyed by the hex term (the derived tables of format 5 hold binary digests,
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
        let suffixes: Vec<Value> = counts
            .iter()
            .map(|(t, c)| json!({ "suffix": String::from_utf8_lossy(&t[prefix.len()..]), "count": c }))
            .collect();
        Ok(json!({ "prefix": req.hex, "suffixes": suffixes, "truncated": truncated, "tookMicros": t0.elapsed().as_micros() as u64 }))
    }

    pub fn stats(&self) -> Result<Value> {
        self.check_open()?;
        let _ = self.refresh(false);
        let snap = self.snapshot();
        let mut wells: Map<String, Value> = Map::new();
        for src in snap.segments.iter().flat_map(|s| s.sources.iter()) {
            if snap.edits.deleted.contains(&src.id) {
                continue;
            }
            let e = wells.entry(src.well.clone()).or_insert(json!(0));
            *e = json!(e.as_u64().unwrap_or(0) + src.records);
        }
        // The sources of every live ingest: id, well (renamed), records.
        let sources: Vec<Value> = snap
            .segments
            .iter()
            .flat_map(|s| s.sources.iter())
            .filter(|src| !snap.edits.deleted.contains(&src.id))
            .map(|src| json!({ "id": src.id, "well": src.well, "records": src.records }))
            .collect();
        Ok(json!({
            "records": snap.segments.iter().map(|s| s.records - s.hidden_records).sum::<u64>(),
            "hiddenRecords": snap.segments.iter().map(|s| s.hidden_records).sum::<u64>(),
            "sources": sources,
            "segments": snap.segments.len(),
            "parts": snap.segments.iter().map(|s| s.parts.len()).sum::<usize>(),
            "generation": snap.generation,
            "removed": snap.removed.len(),
            "wells": wells,
            "segmentIds": snap.segments.iter().map(|s| s.meta.id.clone()).collect::<Vec<_>>(),
        }))
    }

    /// Operator edits of data wells (`wells.log`): `{"delete": [source ids], "rename":
    /// [[source id, name]]}`. Applied here at once, by every other reader at its next check.
    pub fn edit_wells(&self, arg: &Value) -> Result<Value> {
        self.check_open()?;
        let ids = |v: &Value| -> Result<Vec<String>> {
            match v {
                Value::Null => Ok(vec![]),
                Value::Array(a) => a.iter().map(|x| x.as_str().map(str::to_string).ok_or_else(|| EngineError::InvalidArgument("source ids must be strings".into()))).collect(),
                _ => Err(EngineError::InvalidArgument("delete must be an array of source ids".into())),
            }
        };
        let mut edits: Vec<(String, Option<String>)> = ids(&arg["delete"])?.into_iter().map(|id| (id, None)).collect();
        if let Value::Array(a) = &arg["rename"] {
            for pair in a {
                match (pair[0].as_str(), pair[1].as_str()) {
                    (Some(id), Some(name)) => edits.push((id.to_string(), Some(name.to_string()))),
                    _ => return Err(EngineError::InvalidArgument("rename must be [source id, name] pairs".into())),
                }
            }
        }
        if !edits.is_empty() {
            append_well_edits(&self.dir, &edits)?;
        }
        self.refresh(true)?;
        Ok(json!({ "edits": edits.len() }))
    }

    /// Reclaims the bytes of taken-down sources now: every segment whose sources are all
    /// taken down leaves the manifest and its directory is deleted; a merged segment that
    /// also holds live sources is rewritten by a merge that leaves the deleted ones out
    /// (`merge::run` with `purge`). `{dropped: [segment ids], rewritten: [segment ids]}`.
    pub fn purge(&self) -> Result<Value> {
        self.check_open()?;
        let out = crate::merge::purge(&self.dir)?;
        self.refresh(true)?;
        Ok(out)
    }
}

/// The tables a password hash is looked up in: stored hashes, then the derived ones.
const PASSWORD_TABLES: [usize; 3] = [HASHED_PASSWORD, PASSWORD_SHA256, PASSWORD_SHA1];
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
/// bits: its postings decoded and counted in one pass, without materialising the hits.
/// Past the page (and without tombstones) the loop only adds first-occurrence bits.
#[allow(clippy::too_many_arguments)]
fn count_term(part: &Part, at: (usize, usize), field: usize, term: &[u8], first: &[u8], removed: &Removed, hits: &mut Hits) -> Result<()> {
    let Some(fi) = &part.fields[field] else { return Ok(()) };
    let Some(ord) = fi.dict.get(term) else { return Ok(()) };
    let is_first = |d: u32| (first[(d >> 3) as usize] >> (d & 7)) & 1;
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
/// hits it holds: from the block cache, or decompressed (then cached).
fn fetch_each(snap: &Snapshot, window: &[(usize, usize, u32)], mut f: impl FnMut(&Segment, usize, u32, u16, &[u8])) -> Result<()> {
    let mut cur: Option<(usize, usize, Arc<Block>)> = None;
    for &(si, pi, d) in window {
        let seg = &snap.segments[si];
        let fresh = !matches!(&cur, Some((s, p, b)) if *s == si && *p == pi && b.holds(d));
        if fresh {
            cur = Some((si, pi, seg.parts[pi].store.block_holding(d)?));
        }
        let (ctx, line) = cur.as_ref().map(|c| &c.2).expect("block taken above").record(d)?;
        f(seg, pi, d, ctx, line);
    }
    Ok(())
}

/// Pages of at least this many entries are fetched and written on more than one thread.
const PARALLEL_ENTRIES: usize = 2048;
/// ... in chunks of about this many entries, taken in turn by the threads.
const CHUNK_ENTRIES: usize = 1024;

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

/// The JSON array of the entries of `hits` (in document order), on this thread and up to
/// `helpers` others when the page is large.
fn write_entries(snap: Arc<Snapshot>, hits: Vec<(usize, usize, u32)>, raw: RawRecord, helpers: usize) -> Result<Vec<u8>> {
    let mut out = render::page_buffer(hits.len() * 192 + 2);
    out.push(b'[');
    if helpers == 0 || hits.len() < PARALLEL_ENTRIES {
        let mut w = render::EntryWriter::default();
        fetch_each(&snap, &hits, |seg, pi, d, ctx, line| {
            if out.len() > 1 {
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
    for c in g.0.iter_mut() {
        let text = c.take().expect("every chunk is done")?;
        if !text.is_empty() {
            if out.len() > 1 {
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
fn fetch(snap: &Snapshot, window: &[(usize, usize, u32)], raw: RawRecord) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(window.len());
    fetch_each(snap, window, |seg, pi, d, ctx, line| out.push(render::entry_json(seg, pi, d, ctx, &String::from_utf8_lossy(line), raw)))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::Watch;
    use crate::watch::Strategy;

    fn watches(list: &[(&str, &str, &str)]) -> Vec<Watch> {
        list.iter().map(|&(_, field, value)| Watch { field: field.into(), value: value.into() }).collect()
    }

    #[test]
    fn match_watches_domains_strategies_limit_and_removals() {
        let dir = crate::test_dir("watch-test");
        let mut lines = vec![
            r#"{"email":"Alice@Mail.Example.com"}"#.to_string(),
            r#"{"url":"https://shop.example.com/x"}"#.to_string(),
            r#"{"url":"http://EXAMPLE.com:8080"}"#.to_string(),
            r#"{"email":"bob@notexample.com","url":"https://example.com.evil.net/"}"#.to_string(),
            r#"{"domain":"example.com.","username":"Carol"}"#.to_string(),
        ];
        for i in 0..50 {
            lines.push(format!(r#"{{"email":"user{}@gmail.com","phone":"+1 555 {:04}"}}"#, i, i % 7));
        }
        std::fs::write(dir.join("a.jsonl"), lines.join("\n")).unwrap();
        let opts = crate::ingest::IngestOptions::from_json(&json!({
            "indexDir": dir.join("index").to_str().unwrap(), "well": "W", "files": [dir.join("a.jsonl").to_str().unwrap()], "partRecords": 16,
        }))
        .unwrap();
        let res = crate::ingest::run(&opts, &Default::default()).unwrap();
        let seg = res["segmentId"].as_str().unwrap().to_string();
        let engine = Engine::open(&dir.join("index")).unwrap();
        let run = |ws: &[(&str, &str, &str)], limit: usize, strategy: Strategy| {
            engine.match_watches(&MatchWatchesRequest { segment_id: seg.clone(), watches: watches(ws), limit, strategy }).unwrap()
        };
        let ws = [("d", "domain", "EXAMPLE.com"), ("e", "domain", "evil.net"), ("n", "domain", "ample.com"), ("u", "username", " carol "), ("p", "phone", "1 (555) 000-3"), ("g", "domain", "gmail.com")];
        let lookup = run(&ws, 1000, Strategy::Lookup);
        assert_eq!(lookup, run(&ws, 1000, Strategy::Walk));
        assert_eq!(lookup, run(&ws, 1000, Strategy::Auto));
        let by = |v: &Value, id: &str| {
            let i = ws.iter().position(|w| w.0 == id).unwrap();
            v.as_array().unwrap().iter().find(|m| m["i"] == i).cloned()
        };
        let ids = |m: &Value| m["recordIds"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect::<Vec<_>>();
        // Records 0, 1, 2 and 4 are under example.com; record 3 is not (in the part's order:
        // the input's lines 1, 2, 0, 3, 4).
        let d = by(&lookup, "d").unwrap();
        assert_eq!(d["total"], 4);
        assert_eq!(ids(&d), [format!("{}-0-0", seg), format!("{}-0-1", seg), format!("{}-0-2", seg), format!("{}-0-4", seg)]);
        assert_eq!(ids(&by(&lookup, "e").unwrap()), [format!("{}-0-3", seg)]);
        assert!(by(&lookup, "n").is_none());
        assert_eq!(by(&lookup, "u").unwrap()["total"], 1);
        assert_eq!(by(&lookup, "p").unwrap()["total"], 7, "phones 0003 of 50 records across parts");
        // limit: the first ids in document order (across parts), total unchanged.
        let g = by(&run(&ws, 20, Strategy::Auto), "g").unwrap();
        assert_eq!(g["total"], 50);
        assert_eq!(ids(&g).len(), 20);
        assert_eq!(ids(&g)[..], ids(&by(&lookup, "g").unwrap())[..20]);
        // A removed record is neither matched nor fetched.
        let first = format!("{}-0-0", seg);
        assert!(engine.remove(&first).unwrap());
        assert_eq!(by(&run(&ws, 1000, Strategy::Walk), "d").unwrap()["total"], 3);
        let many = engine.get_many(&GetManyRequest { ids: vec![format!("{}-0-1", seg), first, "x-0-0".into()], raw_record: RawRecord::Line }).unwrap();
        // The part's order (`segment::PartOrder`): the two records with neither a username
        // nor an email first, in the input's order, then by email or username (alice, bob,
        // carol, user…): document 1 is the input's third line.
        assert_eq!(many[0]["url"], json!(["http://EXAMPLE.com:8080"]));
        assert_eq!(many[1..], [Value::Null, Value::Null]);
        engine.close();
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[cfg(test)]
mod email_infix_tests {
    use crate::fields::EMAIL;
    use crate::planner::{eval, plan};
    use crate::query::{parse, Mode};
    use crate::segment::{segment_dir, Segment};
    use crate::termdict::Budget;
    use serde_json::json;
    use std::path::Path;

    /// Every record (global document number, in manifest order) matching `query`.
    fn hits(index: &Path, query: &str) -> Vec<u64> {
        let p = plan(&parse(query, Mode::Wildcard, None).unwrap()).unwrap();
        let budget = Budget { deadline: None, budget_ms: 0 };
        let mut out = Vec::new();
        let mut base = 0u64;
        for e in crate::manifest::Manifest::read(index).unwrap().segments {
            let seg = Segment::open(&segment_dir(index, &e.id)).unwrap();
            for (k, part) in seg.parts.iter().enumerate() {
                out.extend(eval(&p, part, &budget).unwrap().into_iter().map(|d| base + seg.part_start[k] + d as u64));
            }
            base += seg.records;
        }
        out
    }

    /// Every record's email (global document number, in manifest order).
    fn stored_emails(index: &Path) -> Vec<String> {
        let mut out = Vec::new();
        for e in crate::manifest::Manifest::read(index).unwrap().segments {
            let seg = Segment::open(&segment_dir(index, &e.id)).unwrap();
            for part in &seg.parts {
                for d in 0..part.docs {
                    let block = part.store.block_holding(d).unwrap();
                    let line: serde_json::Value = serde_json::from_slice(block.record(d).unwrap().1).unwrap();
                    out.push(line["email"].as_str().unwrap().to_string());
                }
            }
        }
        out
    }

    /// `email:*lit*` equals a brute-force check of the records (the emails holding the
    /// literal) on fresh format 11 segments and after a merge of them: literals in local
    /// parts, in domains, in both, spanning the `@`, in emails with two `@`s or none. Without
    /// an `@`, the local parts are found through `email.ltri` (a literal common in domains:
    /// `gmail`) or one pass over the emails (common in local parts too, or shorter than a
    /// trigram), and the domains through `email_domain`.
    #[test]
    fn email_infixes_equal_a_brute_force_check() {
        let dir = crate::test_dir("email-infix");
        let mut emails: Vec<String> = Vec::new();
        for i in 0..3000 {
            emails.push(format!("user{}@gmail.com", i));
        }
        for i in 0..2500 {
            emails.push(format!("{}{}.anna@annamail.net", ["bob", "carla", "dmitri", "eve", "zed"][i % 5], i));
        }
        for i in 0..1500 {
            emails.push(format!("{}{}@example{}.org", ["kim", "lee", "mo"][i % 3], i, i % 50));
        }
        for e in [
            "gmailfan@yahoo.com", "mygmail@gmail.com", "a@gmail@example.org", "x@y@gmail.com", "nogmail-at-all", "gmail@", "@gmail.com", "gm@ail.com",
            "l@gmx.net", "anna@@gmail.com", "yahoo", "mail.annex@yahoo.com", "gmail.com@evil.org", "@@", "ann", "a@b@c@gmail",
        ] {
            emails.push(e.into());
        }
        // Spread over both segments (7919 is a prime above the count: a permutation).
        let n = emails.len();
        let emails: Vec<String> = (0..n).map(|i| emails[i * 7919 % n].clone()).collect();
        let index = dir.join("index");
        let half = emails.len() / 2;
        for (k, chunk) in [&emails[..half], &emails[half..]].iter().enumerate() {
            let file = dir.join(format!("{}.jsonl", k));
            std::fs::write(&file, chunk.iter().map(|e| json!({ "email": e }).to_string() + "\n").collect::<String>()).unwrap();
            let opts = crate::ingest::IngestOptions::from_json(&json!({ "indexDir": index.to_str().unwrap(), "well": "W", "files": [file.to_str().unwrap()], "partRecords": 100_000 })).unwrap();
            crate::ingest::run(&opts, &Default::default()).unwrap();
        }
        let lits = [
            "gmail", "gmai", "mail", "ail", "yahoo", "anna", "ann", "an", "a", "l@gm", "y@g", "gmail.com", "example1", "mygmail", "zzz", "@@", "anna@", ".org", "at-all", "c@gmail",
        ];
        let check = |when: &str| {
            // The brute force goes over the records in the index's order (a part numbers its
            // records by email, `segment::PartOrder`), read back from the stores.
            let stored = stored_emails(&index);
            let mut sorted = stored.clone();
            sorted.sort();
            let mut given = emails.clone();
            given.sort();
            assert_eq!(sorted, given, "{}: every email stored once", when);
            for lit in lits {
                let want: Vec<u64> = stored.iter().enumerate().filter(|(_, e)| e.contains(lit)).map(|(i, _)| i as u64).collect();
                let got = hits(&index, &format!("email:*{}*", lit));
                let first_diff = got.iter().zip(&want).position(|(a, b)| a != b);
                assert!(got == want, "{}: email:*{}*: {} hits, {} wanted, first difference at {:?}", when, lit, got.len(), want.len(), first_diff);
            }
        };
        check("fresh segments");
        // The routes taken: `.ltri` narrows `gmail` to the blocks of the few local parts
        // holding it; `anna` (in most local parts) and `an` (no trigram) scan the emails.
        let m = crate::manifest::Manifest::read(&index).unwrap();
        let seg = Segment::open(&segment_dir(&index, &m.segments[0].id)).unwrap();
        let fi = seg.parts[0].fields[EMAIL].as_ref().unwrap();
        let (tri, ltri) = (fi.tri.as_ref().unwrap(), fi.ltri.as_ref().unwrap());
        let blocks = (fi.dict.len() as u32 + 7) / 8;
        let cap = blocks as usize / 4;
        let lit = |l: &str| vec![l.as_bytes().to_vec()];
        assert!(tri.candidates(&lit("gmail"), 0..blocks, cap).is_none(), "gmail is in too many blocks for .tri");
        let local = tri.local_candidates(ltri, &lit("gmail"), 0..blocks, cap).unwrap();
        assert!(!local.is_empty() && local.len() <= 4, "{:?}", local);
        assert!(tri.local_candidates(ltri, &lit("anna"), 0..blocks, cap).is_none());
        assert!(tri.local_candidates(ltri, &lit("an"), 0..blocks, cap).is_none());
        assert!(!seg.parts[0].fields[crate::fields::EMAIL_LOCAL].is_some(), "format 11 writes no email_local");
        crate::merge::run(&index, &crate::merge::MergeOptions { all: true, max_segments: 8, part_docs: 100_000 }).unwrap();
        assert_eq!(crate::manifest::Manifest::read(&index).unwrap().segments.len(), 1);
        check("merged");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[cfg(test)]
mod page_tests {
    use super::*;

    /// A large page written on several threads is the text one thread writes, for pages
    /// whose hits are dense (many in a block), scattered (one in a block) and across
    /// parts, each read cold (a newly opened index: none of its blocks cached).
    #[test]
    fn a_large_page_written_on_helpers_equals_the_one_thread_text() {
        let dir = crate::test_dir("page-test");
        let mut combo = String::new();
        let mut csv = String::from("email,username,password\n");
        let mut jsonl = String::new();
        for i in 0..4000 {
            let host = if i % 3 == 0 { "gmail.com" } else { "mail.example" };
            combo.push_str(&format!("user{}{}@{}:pw{}\n", i, "x".repeat(i % 50), host, i % 3));
            csv.push_str(&format!("c{}@{},name{},\"quoted, {}\"\n", i, host, i % 11, i));
            jsonl.push_str(&format!("{{\"email\":\"j{}@{}\",\"password\":\"pw{}\"}}\n", i, host, i % 3));
        }
        for (name, text) in [("a.txt", &combo), ("b.csv", &csv), ("c.jsonl", &jsonl)] {
            std::fs::write(dir.join(name), text).unwrap();
        }
        let files: Vec<String> = ["a.txt", "b.csv", "c.jsonl"].iter().map(|f| dir.join(f).to_str().unwrap().to_string()).collect();
        let opts = crate::ingest::IngestOptions::from_json(&json!({ "indexDir": dir.join("index").to_str().unwrap(), "well": "W", "files": files, "partRecords": 10000 })).unwrap();
        crate::ingest::run(&opts, &Default::default()).unwrap();
        // (Few engines: the block cache is the process's, and another test of this process
        // bounds the resident set.)
        for (q, mode, raw) in [("email:*@gmail.com", "wildcard", "omit"), ("password:pw2", "exact", "line"), ("email:*@mail.example", "wildcard", "le")] {
            {
                let req = SearchRequest::from_json(&json!({ "query": q, "mode": mode, "size": 10000, "countCache": false, "rawRecord": raw, "dedup": false })).unwrap();
                let mut texts = Vec::new();
                for helpers in [0, 1, 3] {
                    // A new engine each time: its stores are new to the block cache.
                    let e = Engine::open(&dir.join("index")).unwrap();
                    let (_, hits, _, snap) = e.run_search(&req).unwrap();
                    assert!(hits.len() > PARALLEL_ENTRIES, "{}: {} hits", q, hits.len());
                    texts.push(write_entries(snap, hits, req.raw_record, helpers).unwrap());
                    e.close();
                }
                let v: Value = serde_json::from_slice(&texts[0]).unwrap();
                assert!(v.as_array().unwrap().len() > PARALLEL_ENTRIES);
                assert!(texts[1] == texts[0] && texts[2] == texts[0], "{} {}", q, raw);
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[cfg(test)]
mod json_line_tests {
    use super::*;

    /// Every JSON line is written by `EntryWriter` (its fast path or the general way) as
    /// the serialised `entry_json` value, byte for byte, with each raw-record choice.
    #[test]
    fn json_lines_are_written_as_their_values_serialise() {
        let dir = crate::test_dir("json-lines");
        let lines = [
            r#"{"email":"a@b.c","password":"p1"}"#,
            r#"{"password":"p2","email":"b@b.c"}"#,
            r#"{"user":"u1","username":"u2","email":"c@b.c"}"#,
            r#"{"username":"u2","user":"u1","email":"d@b.c"}"#,
            r#"{"email":"e@b.c","email":"f@b.c"}"#,
            r#"{"email":"g@b.c","email":""}"#,
            r#"{"email":"h@b.c","password":null,"phone":123,"zip":-5,"x":1.5e3,"ok":true}"#,
            r#"{"email":"i@b.c","phone":-12}"#,
            r#"{"email":"j@b.c","phone":1.0}"#,
            r#"{"email":"k@b.c","password":"a\"q\\b","note":"x\ny"}"#,
            r#"  { "email" : "l@b.c" , "password" : "  " , "extra":{"n":[1,2]} }  "#,
            r#"{"email":"m@b.c","phone":["+1","+2"]}"#,
            r#"{"E-Mail":"n@b.c","pass":"p"}"#,
            r#"{"email":"o@b.c","password":false,"phone":0,"ip":"01"}"#,
            r#"{"email":"p@b.c","phone":12345678901234567890123}"#,
            r#"{"email":"q@b.c","name":"ünï ✓","url":"t\u00e9"}"#,
            r#"{"email":"r@b.c","username":"x","a":"\\","b":"\""}"#,
            r#"{"email":"s@b.c","password":"tab\there","phone":999999999999999999}"#,
            r#"{"email":" t@b.c ","name":" two  words "}"#,
        ];
        std::fs::write(dir.join("a.jsonl"), lines.join("\n")).unwrap();
        let opts = crate::ingest::IngestOptions::from_json(&json!({ "indexDir": dir.join("index").to_str().unwrap(), "well": "W", "files": [dir.join("a.jsonl").to_str().unwrap()] })).unwrap();
        crate::ingest::run(&opts, &Default::default()).unwrap();
        let e = Engine::open(&dir.join("index")).unwrap();
        let snap = e.snapshot();
        let window: Vec<(usize, usize, u32)> = (0..snap.segments[0].parts[0].docs).map(|d| (0, 0, d)).collect();
        // (The ingest turns away the line whose only value is empty.)
        assert_eq!(window.len(), lines.len() - 1);
        for raw in [RawRecord::Omit, RawRecord::Line, RawRecord::LawEnforcement] {
            let mut w = render::EntryWriter::default();
            fetch_each(&snap, &window, |seg, pi, d, ctx, line| {
                let mut text = Vec::new();
                w.write(&mut text, seg, pi, d, ctx, line, raw);
                let value = serde_json::to_vec(&render::entry_json(seg, pi, d, ctx, &String::from_utf8_lossy(line), raw)).unwrap();
                assert_eq!(String::from_utf8(text).unwrap(), String::from_utf8(value).unwrap());
            })
            .unwrap();
        }
        e.close();
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[cfg(test)]
mod fetch_timing {
    use super::*;

    /// `LEAKWELL_INDEX=dir LEAKWELL_QUERY='email:*@gmail.com' cargo test --release fetch_timing
    /// -- --ignored --nocapture`: the time of a page of 10,000 split into search and fetch.
    #[test]
    #[ignore]
    fn page_timing() {
        let dir = std::env::var("LEAKWELL_INDEX").expect("LEAKWELL_INDEX");
        let q = std::env::var("LEAKWELL_QUERY").expect("LEAKWELL_QUERY");
        let e = Engine::open(Path::new(&dir)).unwrap();
        let req = SearchRequest::from_json(&json!({ "query": q, "mode": if q.contains('*') { "wildcard" } else { "exact" }, "size": 10000, "countCache": false, "rawRecord": "omit" })).unwrap();
        let reps: usize = std::env::var("LEAKWELL_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
        for _ in 0..reps {
            let cpu = crate::cpu_clock::thread;
            let c0 = cpu();
            let t = Instant::now();
            let (total, hits, _, snap) = e.run_search(&req).unwrap();
            let t1 = t.elapsed();
            let mut n = 0usize;
            fetch_each(&snap, &hits, |_, _, _, _, line| n += line.len()).unwrap();
            let t2 = t.elapsed();
            let text = e.search_text(&req).unwrap();
            let t3 = t.elapsed();
            let c3 = cpu() - c0;
            println!("total {} hits {} search {:?} fetch-only {:?} search_text {:?} ({} bytes); thread CPU of all three {:?}", total, hits.len(), t1, t2 - t1, t3 - t2, text.len(), c3);
        }
    }
}

#[cfg(test)]
mod cold_timing {
    use super::*;

    use crate::cpu_clock::{process as process_cpu, thread as cpu};

    fn minflt() -> i64 {
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // Safety: a valid rusage for the call to fill.
        unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
        ru.ru_minflt
    }

    /// `LEAKWELL_INDEX=dir LEAKWELL_QUERIES='password:"123456";password:"password"'
    /// [LEAKWELL_COLD_MODE=plain|touch|load] [LEAKWELL_HELPERS=n] cargo test --release
    /// cold_page -- --ignored --nocapture`: each query's first (cold) `search_text` in this
    /// process, then a warm one, with the caller's and the process's CPU time (helpers
    /// included); `touch` first reads the first and last byte of the page's frames (the
    /// page faults alone), `load` also decompresses its blocks once without caching them;
    /// LEAKWELL_HELPERS writes the page with that many helper threads instead of the default;
    /// LEAKWELL_NO_WARM skips the warm run (for `valgrind --tool=callgrind
    /// --toggle-collect='*write_entries*'`: the instructions of the cold page alone).
    #[test]
    #[ignore]
    fn cold_page() {
        let dir = std::env::var("LEAKWELL_INDEX").expect("LEAKWELL_INDEX");
        let qs = std::env::var("LEAKWELL_QUERIES").expect("LEAKWELL_QUERIES");
        let mode = std::env::var("LEAKWELL_COLD_MODE").unwrap_or_else(|_| "plain".into());
        let (t, p0) = (Instant::now(), process_cpu());
        let e = Engine::open(Path::new(&dir)).unwrap();
        // The stores mapped in by the background thread first (as a server's would be).
        while crate::store::stores_mapping() > 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
        println!("open and map-in {:?} (process CPU {:?})", t.elapsed(), process_cpu() - p0);
        for q in qs.split(';') {
            let req = SearchRequest::from_json(&json!({ "query": q, "mode": if q.contains('*') { "wildcard" } else { "exact" }, "size": 10000, "countCache": false, "rawRecord": "omit" })).unwrap();
            let (_, hits, _, snap) = e.run_search(&req).unwrap();
            let mut blocks: Vec<(usize, usize, usize)> = hits.iter().map(|&(si, pi, d)| (si, pi, snap.segments[si].parts[pi].store.block_of(d))).collect();
            blocks.dedup();
            let mut pre = String::new();
            if mode == "touch" || mode == "load" {
                let (c0, f0, t) = (cpu(), minflt(), Instant::now());
                let mut x = 0u8;
                for &(si, pi, b) in &blocks {
                    let f = snap.segments[si].parts[pi].store.stored(b).0;
                    x ^= unsafe { std::ptr::read_volatile(&f[0]) } ^ unsafe { std::ptr::read_volatile(&f[f.len() - 1]) };
                }
                std::hint::black_box(x);
                pre += &format!(" touch {:?} (cpu {:?}, {} faults)", t.elapsed(), cpu() - c0, minflt() - f0);
            }
            if mode == "load" {
                let (c0, t) = (cpu(), Instant::now());
                for &(si, pi, b) in &blocks {
                    std::hint::black_box(snap.segments[si].parts[pi].store.load(b).unwrap());
                }
                pre += &format!(" load {:?} (cpu {:?})", t.elapsed(), cpu() - c0);
            }
            // LEAKWELL_HELPERS: that many helper threads instead of the default.
            // The reply's first line; its buffer is given back as `napi.rs` does.
            let run = || {
                let text = match std::env::var("LEAKWELL_HELPERS").ok().and_then(|h| h.parse().ok()) {
                    Some(h) => {
                        let t0 = Instant::now();
                        let (total, hits, _, snap) = e.run_search(&req).unwrap();
                        let out = write_entries(snap, hits, req.raw_record, h).unwrap();
                        render::search_text(total, t0, out).unwrap()
                    }
                    None => e.search_text(&req).unwrap(),
                };
                let head = text[..text.find('\n').unwrap()].to_string();
                render::give_back(text.into_bytes());
                head
            };
            let (c0, p0, f0, t) = (cpu(), process_cpu(), minflt(), Instant::now());
            let text = run();
            let (wall, c, p, f) = (t.elapsed(), cpu() - c0, process_cpu() - p0, minflt() - f0);
            let took = &text;
            if std::env::var("LEAKWELL_NO_WARM").is_ok() {
                println!("{} hits {} blocks {}{} | cold {} wall {} ms, CPU {} ms caller / {} ms process, {} faults", q, hits.len(), blocks.len(), pre, took, wall.as_secs_f64() * 1e3, c.as_secs_f64() * 1e3, p.as_secs_f64() * 1e3, f);
                continue;
            }
            let (c1, p1, f1, t) = (cpu(), process_cpu(), minflt(), Instant::now());
            let text2 = run();
            let (wall2, c2, p2, f2) = (t.elapsed(), cpu() - c1, process_cpu() - p1, minflt() - f1);
            let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
            println!("{} hits {} blocks {}{} | cold {} wall {} ms, CPU {} ms caller / {} ms process, {} faults | warm {} wall {} ms, CPU {} / {} ms, {} faults", q, hits.len(), blocks.len(), pre, took, ms(wall), ms(c), ms(p), f, &text2, ms(wall2), ms(c2), ms(p2), f2);
        }
    }
}

#[cfg(test)]
mod dedup_tests {
    use super::Engine;
    use crate::dedup::{FIRST, REST, TOP, WHOLE};
    use crate::keys::{short_key, SHORT_BITS};
    use crate::manifest::Manifest;
    use crate::merge::MergeOptions;
    use crate::request::{PasswordRequest, SearchRequest};
    use crate::segment::{segment_dir, Segment};
    use serde_json::{json, Value};
    use std::collections::{HashMap, HashSet};
    use std::path::Path;

    /// Record `r` of the test's pool of 40 distinct records: records are equal (one dedup
    /// key) exactly when their `r` is.
    fn line(r: usize) -> String {
        format!(r#"{{"email":"u{}@x.com","password":"p{}"}}"#, r, r % 3)
    }

    /// (part, document, well, r) of a segment's records.
    type Records = Vec<(usize, u32, String, usize)>;

    /// Every record of the index in global order: (segment, part, document, well, r), r read
    /// back from the record's email.
    fn records(index: &Path) -> Vec<(Segment, Records)> {
        let m = Manifest::read(index).unwrap();
        m.segments
            .iter()
            .map(|e| {
                let seg = Segment::open(&segment_dir(index, &e.id)).unwrap();
                let mut docs = Vec::new();
                for (pi, part) in seg.parts.iter().enumerate() {
                    for d in 0..part.docs {
                        let b = part.store.load(part.store.block_of(d)).unwrap();
                        let l = String::from_utf8(b.record(d).unwrap().1.to_vec()).unwrap();
                        let r: usize = l[l.find("\"u").unwrap() + 2..l.find('@').unwrap()].parse().unwrap();
                        docs.push((pi, d, seg.source_of(pi, d).well.clone(), r));
                    }
                }
                (seg, docs)
            })
            .collect()
    }

    /// Ingests well `W<k>`: records `rs`, parts of `part_records`.
    fn ingest(dir: &Path, k: usize, rs: impl Iterator<Item = usize>, part_records: u32) {
        let lines: Vec<String> = rs.map(line).collect();
        let f = dir.join(format!("w{}.jsonl", k));
        std::fs::write(&f, lines.join("\n")).unwrap();
        let opts = crate::ingest::IngestOptions::from_json(&json!({
            "indexDir": dir.join("index").to_str().unwrap(), "well": format!("W{}", k), "files": [f.to_str().unwrap()], "partRecords": part_records, "maxSegments": 0,
        }))
        .unwrap();
        crate::ingest::run(&opts, &Default::default()).unwrap();
    }

    /// Tombstones document `d` (record `r`) of part `pi` of `seg`, then checks the index.
    fn remove(index: &Path, (seg, pi, d, r): (&Segment, usize, u32, usize), removed: &mut HashSet<usize>) {
        let engine = Engine::open(index).unwrap();
        assert!(engine.remove(&format!("{}-{}-{}", seg.meta.id, pi, d)).unwrap());
        engine.close();
        removed.insert(r);
        check(index, removed);
    }

    /// Merges, then checks the index.
    fn merge(index: &Path, opts: &MergeOptions, removed: &HashSet<usize>) {
        assert!(crate::merge::run(index, opts).unwrap()["segmentId"].is_string());
        check(index, removed);
    }

    /// The index answers as whole keys do: first bits, keys, searches (dedup by first bits,
    /// by a hash set under a source filter, off), a password count, removals (`removed`: the
    /// records removed, by `r`).
    fn check(index: &Path, removed: &HashSet<usize>) {
        let all = records(index);
        // First bits and keys: the first record of each `r` in global order; one key per `r`.
        let mut key_of: HashMap<usize, u64> = HashMap::new();
        let mut shorts = HashSet::new();
        for (seg, docs) in &all {
            for &(pi, d, _, r) in docs {
                let part = &seg.parts[pi];
                let k = part.dedup_key(d).unwrap();
                assert_eq!(part.keys.short(d), short_key(k));
                shorts.insert(short_key(k));
                let new = !key_of.contains_key(&r);
                assert_eq!(*key_of.entry(r).or_insert(k), k, "record {} has one key", r);
                if part.has_first_bits() {
                    assert_eq!(part.is_first(d), new, "first bit of {}-{}-{} (r {})", seg.meta.id, pi, d, r);
                }
                assert_eq!(part.keys.stored(d).is_none(), new && !part.keys.is_whole(), "a format 10 part stores the keys of records that are not first");
            }
        }
        assert_eq!(key_of.values().collect::<HashSet<_>>().len(), key_of.len(), "distinct records, distinct keys");
        assert!(shorts.len() < key_of.len() && shorts.len() <= 1 << SHORT_BITS, "short keys collide: {} for {} keys", shorts.len(), key_of.len());
        let engine = Engine::open(index).unwrap();
        let search = |q: &str, dedup: bool| -> Value {
            engine.search(&SearchRequest::from_json(&json!({ "query": q, "dedup": dedup, "countCache": false, "size": 500 })).unwrap()).unwrap()
        };
        // Expected: the matching records in global order, removed ones left out, each key once
        // with dedup on.
        let expect = |pw: &str, wells: &[&str], dedup: bool| -> Vec<(String, String)> {
            let mut seen = HashSet::new();
            let mut out = Vec::new();
            for (_, docs) in &all {
                for (_, _, well, r) in docs {
                    if format!("p{}", r % 3) != pw || removed.contains(r) || (!wells.is_empty() && !wells.contains(&well.as_str())) || (dedup && !seen.insert(*r)) {
                        continue;
                    }
                    out.push((well.clone(), format!("u{}@x.com", r)));
                }
            }
            out
        };
        let got = |v: &Value| -> Vec<(String, String)> {
            v["entries"].as_array().unwrap().iter().map(|e| (e["database_name"].as_str().unwrap().to_string(), e["email"][0].as_str().unwrap().to_string())).collect()
        };
        for pw in ["p0", "p1", "p2"] {
            for dedup in [true, false] {
                let want = expect(pw, &[], dedup);
                let v = search(&format!("password:{}", pw), dedup);
                assert_eq!((v["total"].as_u64().unwrap() as usize, got(&v)), (want.len(), want.clone()), "password:{} dedup {}", pw, dedup);
                let wells = ["W1", "W3"];
                let want = expect(pw, &wells, dedup);
                let v = search(&format!("password:{}&database_name=W1&database_name=W3", pw), dedup);
                assert_eq!((v["total"].as_u64().unwrap() as usize, got(&v)), (want.len(), want), "password:{} in W1, W3, dedup {}", pw, dedup);
            }
            let hex: String = crate::digest::sha1(pw.as_bytes(), &mut Vec::new()).iter().map(|b| format!("{:02x}", b)).collect();
            let c = engine.password_count(&PasswordRequest { hex }).unwrap();
            assert_eq!(c["total"].as_u64().unwrap() as usize, expect(pw, &[], true).len(), "password count of {}", pw);
        }
        // Removed records are gone by id too; the others are found.
        for (seg, docs) in &all {
            for &(pi, d, _, r) in docs {
                let got = engine.get(&format!("{}-{}-{}", seg.meta.id, pi, d)).unwrap();
                assert_eq!(got.is_null(), removed.contains(&r), "get of r {}", r);
            }
        }
        engine.close();
    }

    /// With the unit tests' 4-bit short keys, 40 distinct records share at most 16 short
    /// keys: every confirmation by the whole key runs (publishing against format 10 parts,
    /// dedup by hash set, removals, merges) and the answers are those of the whole keys.
    #[test]
    fn colliding_short_keys_answer_as_whole_keys() {
        assert_eq!(SHORT_BITS, 4);
        let dir = crate::test_dir("dedup-collisions");
        let index = dir.join("index");
        let records_of = |k: usize| (0..30).map(move |j| (j * 7 + k * 11) % 53 % 40);
        for k in 0..4 {
            ingest(&dir, k, records_of(k), 7);
        }
        let mut removed = HashSet::new();
        check(&index, &removed);
        // Remove a first record (its key computed again) whose short key another record has.
        let all = records(&index);
        let (seg, docs) = &all[1];
        let part_key = |pi: usize, d: u32| seg.parts[pi].dedup_key(d).unwrap();
        let &(pi, d, _, r) = docs
            .iter()
            .find(|&&(pi, d, _, r)| seg.parts[pi].is_first(d) && docs.iter().any(|&(pj, e, _, s)| s != r && short_key(part_key(pj, e)) == short_key(part_key(pi, d))))
            .expect("a first record sharing its short key");
        remove(&index, (seg, pi, d, r), &mut removed);
        // Merges of parts with first bits: the format 10 form copied side by side.
        let some = MergeOptions { all: false, max_segments: 2, part_docs: 40 };
        merge(&index, &some, &removed);
        // A new ingest published against merged format 10 parts.
        ingest(&dir, 4, records_of(4), 7);
        check(&index, &removed);
        merge(&index, &MergeOptions { all: true, ..some }, &removed);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Parts of formats 1-7 (whole keys, with and without first bits) are read beside
    /// format 10 ones, and a merge of all of them writes format 10 (the parts without first
    /// bits make it compute them at publish, from whole keys, the format 10 parts' first
    /// records' computed again).
    #[test]
    fn whole_keys_read_and_merge_with_short_ones() {
        let dir = crate::test_dir("dedup-whole");
        let index = dir.join("index");
        for k in 0..3 {
            ingest(&dir, k, (0..25).map(|j| (j * 5 + k * 13) % 47 % 40), 6);
        }
        // Segment 0 as format 7 wrote it (whole keys, first bits); segment 1 as formats
        // before first bits (whole keys only).
        let m = Manifest::read(&index).unwrap();
        for (i, e) in m.segments.iter().take(2).enumerate() {
            let seg = Segment::open(&segment_dir(&index, &e.id)).unwrap();
            for (pi, part) in seg.parts.iter().enumerate() {
                let p = segment_dir(&index, &e.id).join(format!("part-{}", pi));
                let whole: Vec<u8> = part.dedup_keys().unwrap().iter().flat_map(|k| k.to_le_bytes()).collect();
                std::fs::write(p.join(WHOLE), whole).unwrap();
                std::fs::remove_file(p.join(TOP)).unwrap();
                std::fs::remove_file(p.join(REST)).unwrap();
                if i == 1 {
                    std::fs::remove_file(p.join(FIRST)).unwrap();
                }
            }
        }
        let mut removed = HashSet::new();
        check(&index, &removed);
        // Remove a record of the format 10 segment: hidden in the older ones too.
        let all = records(&index);
        let (seg, docs) = &all[2];
        let &(pi, d, _, r) = docs.iter().find(|&&(pi, d, _, _)| seg.parts[pi].is_first(d)).expect("a first record in the last segment");
        remove(&index, (seg, pi, d, r), &mut removed);
        merge(&index, &MergeOptions { all: true, max_segments: 2, part_docs: 20 }, &removed);
        for (seg, _) in records(&index) {
            assert!(seg.parts.iter().all(|p| !p.keys.is_whole() && p.has_first_bits()), "merged into format 10");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// What computing a first record's key again costs (LEAKWELL_INDEX: an index): every
    /// 7th first record of each part, its block decoded (`store.load`) then its line's key.
    #[test]
    #[ignore]
    fn recompute_cost() {
        let dir = std::path::PathBuf::from(std::env::var("LEAKWELL_INDEX").expect("LEAKWELL_INDEX"));
        let m = crate::manifest::Manifest::read(&dir).unwrap();
        let (mut n, mut load, mut key) = (0u64, std::time::Duration::ZERO, std::time::Duration::ZERO);
        for e in &m.segments {
            let seg = crate::segment::Segment::open(&crate::segment::segment_dir(&dir, &e.id)).unwrap();
            for part in &seg.parts {
                for d in (0..part.docs).step_by(7).filter(|&d| part.is_first(d)) {
                    let t0 = crate::cpu_clock::thread();
                    let b = part.store.load(part.store.block_of(d)).unwrap();
                    let t1 = crate::cpu_clock::thread();
                    std::hint::black_box(crate::dedup::block_key(&b, d, &seg.meta.contexts).unwrap());
                    key += crate::cpu_clock::thread() - t1;
                    load += t1 - t0;
                    n += 1;
                }
            }
        }
        println!("{} records: block load {:.2} µs, key {:.2} µs a record", n, load.as_secs_f64() * 1e6 / n as f64, key.as_secs_f64() * 1e6 / n as f64);
    }
}

#[cfg(test)]
mod takedown_tests {
    use super::Engine;
    use crate::merge::MergeOptions;
    use crate::request::{GetManyRequest, MatchWatchesRequest, PasswordRequest, SearchRequest, Watch};
    use crate::render::RawRecord;
    use crate::watch::Strategy;
    use serde_json::{json, Value};
    use std::path::Path;

    fn ingest(dir: &Path, well: &str, lines: &[String]) -> String {
        let file = dir.join(format!("{}.jsonl", well));
        std::fs::write(&file, lines.join("\n")).unwrap();
        let opts = crate::ingest::IngestOptions::from_json(&json!({
            "indexDir": dir.join("index").to_str().unwrap(), "well": well, "files": [file.to_str().unwrap()], "partRecords": 7,
        }))
        .unwrap();
        crate::ingest::run(&opts, &Default::default()).unwrap()["segmentId"].as_str().unwrap().to_string()
    }

    fn bytes(dir: &Path) -> u64 {
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            n += if m.is_dir() { bytes(&e.path()) } else { m.len() };
        }
        n
    }

    fn sha1(pw: &str) -> String {
        crate::digest::sha1(pw.as_bytes(), &mut Vec::new()).iter().map(|b| format!("{:02x}", b)).collect()
    }

    /// Two wells merged into one part share a record; one is taken down: every read path
    /// hides its records (a second reader too, after its refresh), the shared record is found
    /// in the other well with dedup on; a rename follows through `database_name` and source
    /// filters; a purge rewrites the merged segment without the taken-down records (smaller),
    /// answering the same.
    #[test]
    fn takedown_hides_a_merged_well_everywhere_and_purge_drops_it() {
        let dir = crate::test_dir("takedown");
        let index = dir.join("index");
        let shared = r#"{"email":"shared@x.com","password":"both-pw"}"#.to_string();
        let mut a: Vec<String> = (0..30).map(|i| format!(r#"{{"email":"a{}@x.com","password":"gone-pw-{}","url":"https://a{}.takedown.example/"}}"#, i, i % 4, i)).collect();
        a.insert(3, shared.clone());
        let mut b: Vec<String> = (0..20).map(|i| format!(r#"{{"email":"b{}@x.com","password":"kept-pw-{}"}}"#, i, i % 4)).collect();
        b.push(shared);
        let seg_a = ingest(&dir, "WellA", &a);
        let seg_b = ingest(&dir, "WellB", &b);
        crate::merge::run(&index, &MergeOptions { all: true, max_segments: 8, part_docs: 100_000 }).unwrap();
        let engine = Engine::open(&index).unwrap();
        let other = Engine::open(&index).unwrap();
        let search = |e: &Engine, q: &str, dedup: bool| -> Value {
            e.search(&SearchRequest::from_json(&json!({ "query": q, "mode": if q.contains('*') { "wildcard" } else { "exact" }, "dedup": dedup, "countCache": false, "size": 500 })).unwrap()).unwrap()
        };
        let wells_of = |v: &Value| -> Vec<String> { v["entries"].as_array().unwrap().iter().map(|e| e["database_name"].as_str().unwrap().to_string()).collect() };
        assert_eq!(engine.stats().unwrap()["segments"], 1, "one merged segment");
        assert_eq!(search(&engine, "email:*@x.com", true)["total"], 51);
        let a_ids: Vec<String> = search(&engine, "email:a1*", false)["entries"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().to_string()).collect();
        assert!(!a_ids.is_empty());
        let watch = |e: &Engine, seg: &str| -> Value {
            e.match_watches(&MatchWatchesRequest {
                segment_id: seg.to_string(),
                watches: vec![Watch { field: "email".into(), value: "a1@x.com".into() }, Watch { field: "domain".into(), value: "takedown.example".into() }, Watch { field: "email".into(), value: "b1@x.com".into() }],
                limit: 10,
                strategy: Strategy::Auto,
            })
            .unwrap()
        };
        assert_eq!(watch(&engine, &seg_a).as_array().unwrap().len(), 2, "a1 and the domain match before");
        assert_eq!(engine.password_count(&PasswordRequest { hex: sha1("gone-pw-1") }).unwrap()["total"], 8);

        engine.edit_wells(&json!({ "delete": [seg_a] })).unwrap();
        other.refresh(true).unwrap();
        for e in [&engine, &other] {
            for dedup in [true, false] {
                let v = search(e, "email:*@x.com", dedup);
                assert_eq!(v["total"], 21, "B's 21 records, the shared one from B (dedup {})", dedup);
                assert!(wells_of(&v).iter().all(|w| w == "WellB"));
                assert_eq!(search(e, "email:a1*", dedup)["total"], 0);
                assert_eq!(search(e, "password:both-pw", dedup)["total"], 1);
                assert_eq!(search(e, "url:*takedown*", dedup)["total"], 0);
                assert_eq!(search(e, "email:*x.com&database_name=WellA", dedup)["total"], 0);
            }
            assert_eq!(e.password_count(&PasswordRequest { hex: sha1("gone-pw-1") }).unwrap()["total"], 0);
            assert_eq!(e.password_count(&PasswordRequest { hex: sha1("kept-pw-1") }).unwrap()["total"], 5);
            assert_eq!(e.password_count(&PasswordRequest { hex: sha1("both-pw") }).unwrap()["total"], 1);
            let range = e.password_range(&PasswordRequest { hex: sha1("gone-pw-2")[..5].to_string() }).unwrap();
            assert!(range["suffixes"].as_array().unwrap().iter().all(|s| s["suffix"] != json!(sha1("gone-pw-2")[5..])));
            assert!(a_ids.iter().all(|id| e.get(id).unwrap().is_null()));
            assert!(e.get_many(&GetManyRequest { ids: a_ids.clone(), raw_record: RawRecord::Line }).unwrap().iter().all(Value::is_null));
            assert_eq!(watch(e, &seg_a), json!([]), "a taken-down ingest matches nothing");
            assert_eq!(watch(e, &seg_b).as_array().unwrap().len(), 1, "b1 still matches");
            let st = e.stats().unwrap();
            assert_eq!(st["records"], 21);
            assert_eq!(st["hiddenRecords"], 31);
            assert!(st["wells"].get("WellA").is_none());
        }
        assert!(!engine.remove(&a_ids[0]).unwrap(), "a taken-down record is unknown");

        engine.edit_wells(&json!({ "rename": [[seg_b, "WellB2"]] })).unwrap();
        other.refresh(true).unwrap();
        for e in [&engine, &other] {
            let v = search(e, "email:*@x.com&database_name=WellB2", true);
            assert_eq!(v["total"], 21);
            assert!(wells_of(&v).iter().all(|w| w == "WellB2"));
            assert_eq!(search(e, "email:*@x.com&database_name=WellB", true)["total"], 0);
        }

        let before = bytes(&index);
        let p = engine.purge().unwrap();
        assert_eq!(p["rewritten"].as_array().unwrap().len(), 1, "{}", p);
        let after = bytes(&index);
        assert!(after < before, "purge shrinks the index: {} -> {}", before, after);
        other.refresh(true).unwrap();
        for e in [&engine, &other] {
            for dedup in [true, false] {
                let v = search(e, "email:*@x.com", dedup);
                assert_eq!(v["total"], 21);
                assert!(wells_of(&v).iter().all(|w| w == "WellB2"));
                assert_eq!(search(e, "password:both-pw", dedup)["total"], 1);
                assert_eq!(search(e, "url:*takedown*", dedup)["total"], 0);
            }
            let st = e.stats().unwrap();
            assert_eq!((st["records"].clone(), st["hiddenRecords"].clone()), (json!(21), json!(0)));
            assert_eq!(e.password_count(&PasswordRequest { hex: sha1("kept-pw-1") }).unwrap()["total"], 5);
            assert_eq!(e.password_count(&PasswordRequest { hex: sha1("gone-pw-1") }).unwrap()["total"], 0);
            assert_eq!(watch(e, &seg_b).as_array().unwrap().len(), 1, "B's ingest id still matches after the rewrite");
        }
        // Every record of the rewritten segment is B's, read back from its store.
        let v = search(&engine, "email:b1@x.com", false);
        assert_eq!(v["total"], 1);
        assert_eq!(v["entries"][0]["email"], json!(["b1@x.com"]));
        // A later merge keeps the well's records out; a well wholly taken down is dropped whole.
        let seg_c = ingest(&dir, "WellC", &["{\"email\":\"c0@x.com\"}".to_string()]);
        engine.edit_wells(&json!({ "delete": [seg_c] })).unwrap();
        let p = engine.purge().unwrap();
        assert_eq!(p["dropped"], json!([seg_c]));
        assert!(!crate::segment::segment_dir(&index, &seg_c).exists());
        assert_eq!(search(&engine, "email:*@x.com", true)["total"], 21);
        engine.close();
        other.close();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
