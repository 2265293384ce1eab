//! Segment merging: a contiguous run of the manifest's segments is rewritten into one new
//! immutable segment, published exactly like an ingest (built in `tmp-<id>-<pid>/`, fsynced,
//! renamed to `seg-<id>/`, then one atomic manifest swap that replaces the run by the new
//! segment at the same place). A crash at any moment leaves the old or the new set visible;
//! leftovers are removed by the next ingest or merge (`publish::recover`).
//!
//! What holds across a merge:
//! - search order: documents keep their global order (the run is contiguous, its segments
//!   are concatenated in manifest order), so pages and first-occurrence dedup are unchanged;
//! - tombstones: they name dedup keys, which are copied (removed records are kept, hidden);
//! - record ids: ids of merged segments keep resolving (`aliases` in segment.json);
//! - data wells: every original ingest stays a `source` (well, catalogue, document range);
//!   source filters select document ranges.
//!
//! The whole merge runs under the index lock (ingests wait to publish; searches do not).

use crate::contract::{MergeArgs, MergeReply, MergeTiming, PurgeReply, Rewritten, UpgradeReply, UpgradedSegment};
use crate::dedup;
use crate::error::{EngineError, Result};
use crate::fields::{index_name, DERIVED_TABLES, EMAIL_LOCAL, INDEXED_FIELDS, PASSWORD};
use crate::manifest::{read_well_edits, sync_dir, IndexLock, Manifest, ManifestEntry, WellEdits};
use crate::publish::{self, make_durable, make_visible, new_segment_id, recover};
use crate::segment::{each_on_two_threads, segment_dir, Alias, Segment, SegmentMeta, SourceMeta, FORMAT_VERSION};
use crate::source::LineContext;
use crate::store::StoreWriter;
use serde_json::{json, Value};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::path::Path;
use std::time::Instant;

/// Automatic merges keep about this many segments (an ingest that leaves more merges).
pub const DEFAULT_MAX_SEGMENTS: usize = crate::contract::DEFAULT_MAX_SEGMENTS as usize;
/// Documents per part of a merged segment (parts of an ingest bound its hash maps; a merge
/// streams sorted terms, so its parts can be larger: fewer parts to visit per search).
pub const DEFAULT_MERGE_PART_DOCS: u64 = crate::contract::DEFAULT_MERGE_PART_DOCS;

pub struct MergeOptions {
    /// Merge every segment into one (explicit `merge()`); otherwise only when there are
    /// more than `max_segments`.
    pub all: bool,
    pub max_segments: usize,
    pub part_docs: u64,
}

impl MergeOptions {
    pub fn from_args(a: &MergeArgs) -> MergeOptions {
        MergeOptions {
            all: a.all,
            max_segments: a.max_segments.clamp(1, usize::MAX as u64) as usize,
            part_docs: a.part_records.clamp(1, u32::MAX as u64 / 2),
        }
    }
}

/// The run of segments to merge: everything (`all`); otherwise, past `max_segments`, the
/// contiguous run that rewrites the fewest records per segment it removes
/// (`records / (len - 1)`): many small recent ingests merge together, a large segment is
/// rewritten only when enough small ones accumulate next to it (write amplification stays
/// logarithmic whatever the ingest sizes).
fn choose(m: &Manifest, o: &MergeOptions) -> Option<Range<usize>> {
    let n = m.segments.len();
    if o.all {
        return if n >= 2 { Some(0..n) } else { None };
    }
    if n <= o.max_segments || n < 2 {
        return None;
    }
    let recs: Vec<u64> = m.segments.iter().map(|s| s.records.max(1)).collect();
    let mut best: Option<(f64, Range<usize>)> = None;
    for i in 0..n {
        let mut sum = recs[i];
        for j in i + 1..n {
            sum += recs[j];
            let cost = sum as f64 / (j - i) as f64;
            if best.as_ref().map(|b| cost < b.0 - 1e-9).unwrap_or(true) {
                best = Some((cost, i..j + 1));
            }
        }
    }
    best.map(|b| b.1)
}

/// One source part placed in an output part.
struct Src<'a> {
    seg: &'a Segment,
    part: usize,
    base: u32,
    ctx_base: u16,
    /// Documents of taken-down sources (`wells.log`), left out of the output: ascending
    /// ranges, empty when every document is copied.
    hidden: &'a [Range<u32>],
}

impl Src<'_> {
    /// Documents copied to the output.
    fn kept(&self) -> u32 {
        self.seg.parts[self.part].docs - self.hidden.iter().map(|r| r.end - r.start).sum::<u32>()
    }

    /// A source document's number in the output, `None` when it is left out.
    fn map(&self, d: u32) -> Option<u32> {
        let mut before = 0;
        for r in self.hidden {
            if d < r.start {
                break;
            }
            if d < r.end {
                return None;
            }
            before += r.end - r.start;
        }
        Some(self.base + d - before)
    }
}

/// Write one merged part from whole source parts (k-way merge of their sorted terms);
/// `marked`: every part of the merge has first-occurrence bits (see `write_first`).
fn write_part(dir: &Path, srcs: &[Src], marked: bool) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    // The record store is copied on a second thread while the fields are merged.
    let (store_res, fields_res) = std::thread::scope(|sc| {
        let h = sc.spawn(|| write_store(dir, srcs));
        let f = write_fields(dir, srcs);
        (h.join().unwrap_or_else(|_| Err(EngineError::Internal("merge store thread panicked".into()))), f)
    });
    store_res?;
    let docs_total = fields_res?;
    let marked = marked && srcs.iter().all(|s| s.hidden.is_empty());
    if marked {
        write_first(dir, srcs, docs_total)?;
    }
    write_keys(dir, srcs, marked)?;
    // Made durable with the whole segment before it is published (`sync_tree`).
    std::fs::write(dir.join("part.json"), json!({ "format_version": FORMAT_VERSION, "docs": docs_total }).to_string())?;
    Ok(())
}

/// The merged part's first-occurrence bits (`first.dat`), when every source part of the
/// merge has them: their bits side by side. A merge keeps the global order and the
/// segments before the run, so a record is first with its dedup key in the merged segment
/// exactly when it was in its own; publishing then need not read the dedup keys of the
/// whole index again (about half a second a merge at 10M).
fn write_first(dir: &Path, srcs: &[Src], docs: u32) -> Result<()> {
    let mut bits = vec![0u64; (docs as usize + 63) / 64];
    for s in srcs {
        let p = &s.seg.parts[s.part];
        let Some(b) = p.first_bytes() else { continue };
        for d in 0..p.docs as usize {
            if b[d / 8] >> (d % 8) & 1 == 1 {
                let g = s.base as usize + d;
                bits[g / 64] |= 1u64 << (g % 64);
            }
        }
    }
    let bytes: Vec<u8> = bits.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(dir.join(dedup::FIRST), &bytes)?;
    Ok(())
}

/// The merged part's dedup keys. With first-occurrence bits (`marked`), in the format 10
/// form: the sources' short keys, and their whole keys of the records that are not first,
/// side by side (no key computed again). Otherwise the whole keys (`dedup.dat`; a format 10
/// source's first records' computed again from their lines), which publishing turns into
/// the format 10 form once it has marked the first records.
fn write_keys(dir: &Path, srcs: &[Src], marked: bool) -> Result<()> {
    if marked {
        let (mut top, mut rest) = (Vec::new(), Vec::new());
        for s in srcs {
            s.seg.parts[s.part].keys.append_short(&mut top, &mut rest);
        }
        return dedup::write_short(dir, &top, &rest);
    }
    let mut whole = Vec::new();
    for s in srcs {
        for (d, k) in s.seg.parts[s.part].dedup_keys()?.into_iter().enumerate() {
            if s.hidden.is_empty() || s.map(d as u32).is_some() {
                whole.extend_from_slice(&k.to_le_bytes());
            }
        }
    }
    std::fs::write(dir.join(dedup::WHOLE), &whole)?;
    Ok(())
}

/// The merged part's record store: format-4 blocks copied as they are (their context
/// indexes shifted by the block map's context base), older ones written again.
fn write_store(dir: &Path, srcs: &[Src]) -> Result<()> {
    let mut store = StoreWriter::create(dir)?;
    for s in srcs {
        let src = &s.seg.parts[s.part].store;
        if s.hidden.is_empty() {
            store.copy_from(src, s.ctx_base)?;
            continue;
        }
        // Taken-down records are left out: the others' lines are compressed again.
        store.seal()?;
        for b in 0..src.blocks() {
            let block = src.load(b)?;
            for k in 0..block.len() as usize {
                if s.map(block.first_doc() + k as u32).is_some() {
                    let (ctx, line) = block.record_at(k)?;
                    store.add_bytes(ctx + s.ctx_base, line)?;
                }
            }
        }
        store.seal()?;
    }
    store.finish()?;
    Ok(())
}

fn write_fields(dir: &Path, srcs: &[Src]) -> Result<u32> {
    let mut docs_total = 0u32;
    for s in srcs {
        docs_total += s.kept();
    }
    // Fields are merged by two threads (each takes the next field; the largest come first),
    // the derived password tables after them (they need the password ordinals).
    // Format 11 writes no `email_local` table (formats 6 to 10 did): the merged emails'
    // `.ltri` (written with their `.tri`) stands for it.
    let derived = |f: usize| DERIVED_TABLES.iter().any(|&(d, _)| d == f);
    let mut order: Vec<usize> = (0..INDEXED_FIELDS).filter(|&f| !derived(f) && f != EMAIL_LOCAL).collect();
    let size = |f: usize| srcs.iter().filter_map(|s| s.seg.parts[s.part].fields[f].as_ref()).map(|fi| fi.dict.len()).sum::<usize>();
    order.sort_by_cached_key(|&f| Reverse(size(f)));
    let remap = std::sync::Mutex::new(Vec::new());
    each_on_two_threads(order, "merge field", |f| merge_field(dir, srcs, f, &remap))?;
    let mut pw_remap: Vec<Vec<u32>> = remap.into_inner().unwrap_or_else(|e| e.into_inner());
    pw_remap.resize(srcs.len(), Vec::new());
    // The derived password tables (every part with passwords has them, but `password_ntlm`
    // only since format 12): merged from the sources' (their password ordinals renumbered).
    // Left-out records may leave passwords without documents (dropped from the merged
    // table): their ordinals would not map, so the tables are hashed again from the merged
    // `password` table then; so is a table that a source with passwords lacks (a part
    // written before format 12 has no `password_ntlm`), which the merge thus adds.
    let dropping = srcs.iter().any(|s| !s.hidden.is_empty());
    if !dropping {
        let mut again = Vec::new();
        for (f, _) in DERIVED_TABLES {
            if srcs.iter().any(|s| s.seg.parts[s.part].fields[PASSWORD].is_some() && s.seg.parts[s.part].fields[f].is_none()) {
                again.push(f);
                continue;
            }
            let ins: Vec<(&crate::segment::FieldIndex, &[u32])> =
                srcs.iter().zip(&pw_remap).filter_map(|(s, remap)| s.seg.parts[s.part].fields[f].as_ref().map(|fi| (fi, &remap[..]))).collect();
            crate::segment::write_derived_merged(dir, f, &ins)?;
        }
        crate::segment::write_derived_tables(dir, &again)?;
    } else {
        crate::segment::write_derived(dir)?;
    }
    Ok(docs_total)
}

/// Merge field `f` of the source parts into `dir` (k-way merge of their sorted terms);
/// the password field also leaves, per source part, the merged ordinal of each of its
/// passwords in `pw_remap`.
fn merge_field(dir: &Path, srcs: &[Src], f: usize, pw_remap: &std::sync::Mutex<Vec<Vec<u32>>>) -> Result<()> {
    let (ins, ins_src): (Vec<(&crate::segment::FieldIndex, u32)>, Vec<usize>) =
        srcs.iter().enumerate().filter_map(|(si, s)| s.seg.parts[s.part].fields[f].as_ref().map(|fi| ((fi, s.base), si))).unzip();
    if ins.is_empty() {
        return Ok(());
    }
    // Per source part: the merged ordinal of each of its passwords (for the derived tables).
    let mut remap: Vec<Vec<u32>> = vec![Vec::new(); srcs.len()];
    if f == PASSWORD {
        for (k, (fi, _)) in ins.iter().enumerate() {
            remap[ins_src[k]] = vec![0; fi.dict.len()];
        }
    }
    let mut emitted = 0u32;
    let name = index_name(f);
    // Per source: its terms as plain `term\n` bytes (decoded when front-coded), walked
    // in order: next ordinal and the byte position of its next term.
    let plains: Vec<std::borrow::Cow<[u8]>> = ins.iter().map(|(fi, _)| fi.dict.plain()).collect();
    let term_at = |i: usize, pos: usize| -> (&[u8], usize) {
        let b: &[u8] = &plains[i];
        let e = memchr::memchr(b'\n', &b[pos..]).map(|p| pos + p).unwrap_or(b.len());
        (&b[pos..e], e + 1)
    };
    let mut heap: BinaryHeap<Reverse<(&[u8], usize)>> = BinaryHeap::new();
    let mut cur = vec![0u32; ins.len()];
    let mut at = vec![0usize; ins.len()];
    for (i, (fi, _)) in ins.iter().enumerate() {
        if fi.dict.len() > 0 {
            let (t, next) = term_at(i, 0);
            at[i] = next;
            heap.push(Reverse((t, i)));
        }
    }
    let mut blob: Vec<u8> = Vec::new();
    let mut pix = crate::postings::PixBuilder::default();
    let mut post = std::io::BufWriter::with_capacity(1 << 20, File::create(dir.join(format!("{}.post", name)))?);
    let mut pos = 0u64;
    let mut group: Vec<usize> = Vec::new();
    let mut docs: Vec<u32> = Vec::new();
    let mut buf: Vec<u8> = Vec::new();
    while let Some(Reverse((t, i))) = heap.pop() {
        group.clear();
        group.push(i);
        while let Some(Reverse((t2, j))) = heap.peek() {
            if *t2 != t {
                break;
            }
            group.push(*j);
            heap.pop();
        }
        // Sources in document order: the concatenated postings stay sorted.
        group.sort_unstable();
        docs.clear();
        for &g in &group {
            let (fi, base) = ins[g];
            if f == PASSWORD {
                remap[ins_src[g]][cur[g] as usize] = emitted;
            }
            let src = &srcs[ins_src[g]];
            if src.hidden.is_empty() {
                fi.postings_shifted(cur[g], base, &mut docs);
            } else {
                let from = docs.len();
                fi.postings_into(cur[g], &mut docs);
                let mut w = from;
                for r in from..docs.len() {
                    if let Some(n) = src.map(docs[r]) {
                        docs[w] = n;
                        w += 1;
                    }
                }
                docs.truncate(w);
            }
            cur[g] += 1;
            if (cur[g] as usize) < fi.dict.len() {
                let (t, next) = term_at(g, at[g]);
                at[g] = next;
                heap.push(Reverse((t, g)));
            }
        }
        if docs.is_empty() {
            // Every document of the term was left out (taken down): so is the term.
            continue;
        }
        emitted += 1;
        blob.extend_from_slice(t);
        blob.push(b'\n');
        if blob.len() > u32::MAX as usize {
            return Err(EngineError::InvalidArgument(format!("{}: more than 4 GiB of terms in one merged part; lower partRecords", name)));
        }
        buf.clear();
        crate::postings::encode(&docs, &mut buf);
        if pix.add(&buf) {
            post.write_all(&buf)?;
            pos += buf.len() as u64;
        }
        if pos > u32::MAX as u64 {
            return Err(EngineError::InvalidArgument(format!("{}: more than 4 GiB of postings in one merged part; lower partRecords", name)));
        }
    }
    post.flush()?;
    std::fs::write(dir.join(format!("{}.pix", name)), pix.finish())?;
    crate::termdict::write_plain(dir, name, &blob, crate::termdict::coding(f, crate::trigram::grain(f)))?;
    if crate::trigram::has_trigrams(f) {
        let body = &blob[..blob.len().saturating_sub(1)];
        crate::trigram::write(dir, f, body.split(|&b| b == b'\n').filter(|_| !blob.is_empty()))?;
    }
    if f == PASSWORD {
        *pw_remap.lock().unwrap_or_else(|e| e.into_inner()) = remap;
    }
    Ok(())
}

/// Merge per `opts`; `segment_id` is `None` when there was nothing to merge.
pub fn run(dir: &Path, opts: &MergeOptions) -> Result<MergeReply> {
    let t0 = Instant::now();
    let _lock = IndexLock::acquire(dir)?;
    let mut m = Manifest::read(dir)?;
    recover(dir, &m)?;
    // Segments wholly taken down leave first: their bytes are reclaimed by any merge.
    let edits = read_well_edits(dir)?;
    drop_deleted(dir, &mut m, &edits)?;
    let window = match choose(&m, opts) {
        Some(w) => w,
        None => {
            let elapsed_ms = t0.elapsed().as_millis() as u64;
            return Ok(MergeReply { segment_id: None, merged: vec![], records: 0, parts: 0, segments: m.segments.len() as u64, elapsed_ms, timing: None });
        }
    };
    merge_window(dir, &m, window, opts, &edits, t0)
}

/// Removes from the manifest (under the caller's lock) every segment whose sources are all
/// taken down, then deletes their directories. The dropped segment ids.
fn drop_deleted(dir: &Path, m: &mut Manifest, edits: &WellEdits) -> Result<Vec<String>> {
    if edits.deleted.is_empty() {
        return Ok(vec![]);
    }
    let mut dropped = Vec::new();
    let mut keep = Vec::with_capacity(m.segments.len());
    for e in &m.segments {
        let meta = SegmentMeta::read(&segment_dir(dir, &e.id))?;
        let all = if meta.sources.is_empty() { edits.deleted.contains(&meta.id) } else { meta.sources.iter().all(|s| edits.deleted.contains(&s.id)) };
        if all {
            dropped.push(e.id.clone());
        } else {
            keep.push(e.clone());
        }
    }
    if dropped.is_empty() {
        return Ok(dropped);
    }
    m.segments = keep;
    m.generation += 1;
    m.write(dir)?;
    for id in &dropped {
        let _ = std::fs::remove_dir_all(segment_dir(dir, id));
    }
    let _ = sync_dir(dir);
    Ok(dropped)
}

/// Reclaims the bytes of taken-down sources (`wells.log`) now, under the index lock:
/// segments wholly taken down leave the manifest; every other segment holding a taken-down
/// source is rewritten alone without its records (a merge of one segment).
pub fn purge(dir: &Path) -> Result<PurgeReply> {
    let t0 = Instant::now();
    let _lock = IndexLock::acquire(dir)?;
    let mut m = Manifest::read(dir)?;
    recover(dir, &m)?;
    let edits = read_well_edits(dir)?;
    let dropped = drop_deleted(dir, &mut m, &edits)?;
    let mut rewritten = Vec::new();
    let opts = MergeOptions { all: true, max_segments: DEFAULT_MAX_SEGMENTS, part_docs: DEFAULT_MERGE_PART_DOCS };
    let mut i = 0;
    while i < m.segments.len() {
        let meta = SegmentMeta::read(&segment_dir(dir, &m.segments[i].id))?;
        if meta.sources.iter().any(|s| edits.deleted.contains(&s.id)) {
            let from = m.segments[i].id.clone();
            let r = merge_window(dir, &m, i..i + 1, &opts, &edits, Instant::now())?;
            rewritten.push(Rewritten { from, to: r.segment_id.unwrap_or_default() });
            m = Manifest::read(dir)?;
        }
        i += 1;
    }
    Ok(PurgeReply { dropped, rewritten, segments: m.segments.len() as u64, elapsed_ms: t0.elapsed().as_millis() as u64 })
}

/// Rewrites every segment older than `FORMAT_VERSION` in the current format, each alone (a
/// merge of one segment, published like any merge: searches go on, an ingest finishing
/// meanwhile waits to publish), under the index lock for the whole run. Segments wholly
/// taken down leave first, and a rewritten segment leaves out its taken-down records, as
/// any merge does. A segment this engine cannot read (below `MIN_FORMAT_VERSION`) stops
/// the run before anything is rewritten. Nothing upgraded when every segment is current.
pub fn upgrade(dir: &Path) -> Result<UpgradeReply> {
    let t0 = Instant::now();
    let _lock = IndexLock::acquire(dir)?;
    let mut m = Manifest::read(dir)?;
    recover(dir, &m)?;
    let mut versions = Vec::with_capacity(m.segments.len());
    for e in &m.segments {
        versions.push(SegmentMeta::read(&segment_dir(dir, &e.id))?.format_version);
    }
    let edits = read_well_edits(dir)?;
    let dropped = if versions.iter().any(|&v| v < FORMAT_VERSION) { drop_deleted(dir, &mut m, &edits)? } else { Vec::new() };
    let opts = MergeOptions { all: true, max_segments: DEFAULT_MAX_SEGMENTS, part_docs: DEFAULT_MERGE_PART_DOCS };
    let mut upgraded = Vec::new();
    for i in 0..m.segments.len() {
        let from = m.segments[i].id.clone();
        let version = SegmentMeta::read(&segment_dir(dir, &from))?.format_version;
        if version >= FORMAT_VERSION {
            continue;
        }
        let records = m.segments[i].records;
        let r = merge_window(dir, &m, i..i + 1, &opts, &edits, Instant::now())?;
        upgraded.push(UpgradedSegment {
            from,
            to: r.segment_id.unwrap_or_default(),
            from_format: version as u64,
            to_format: FORMAT_VERSION as u64,
            records,
            records_after: r.records,
        });
        m = Manifest::read(dir)?;
    }
    Ok(UpgradeReply { upgraded, dropped, segments: m.segments.len() as u64, format: FORMAT_VERSION as u64, elapsed_ms: t0.elapsed().as_millis() as u64 })
}

/// Rewrites the run `window` of `m` into one segment (the caller holds the lock), leaving
/// out the records of taken-down sources.
fn merge_window(dir: &Path, m: &Manifest, window: Range<usize>, opts: &MergeOptions, edits: &WellEdits, t0: Instant) -> Result<MergeReply> {
    // The process's CPU: in the bench and the CLI nothing else runs meanwhile.
    let cpu0 = crate::cpu_clock::process();
    let segs: Vec<Segment> = m.segments[window.clone()]
        .iter()
        .map(|e| {
            let mut s = Segment::open(&segment_dir(dir, &e.id))?;
            if !edits.deleted.is_empty() {
                // Renames stay in `wells.log` (applied when read); only takedowns matter here.
                s.apply_edits(&edits.deleted, &Default::default());
            }
            Ok(s)
        })
        .collect::<Result<_>>()?;
    let id = new_segment_id();
    let tmp = publish::temp_dir(dir, &id);
    std::fs::create_dir_all(&tmp)?;
    // Whether the merged parts get their `first.dat` from their sources' (`write_first`):
    // when every source part has one; otherwise publishing computes them all.
    // Left-out records change which record is first with its key: then publishing
    // computes the bits again too.
    let marked = segs.iter().all(|s| s.hidden_records == 0 && s.parts.iter().all(|p| p.has_first_bits()));
    let built = (|| -> Result<SegmentMeta> {
        // Place the source parts: contexts concatenated, parts packed whole.
        let mut contexts: Vec<LineContext> = Vec::new();
        let mut sources: Vec<SourceMeta> = Vec::new();
        let mut aliases: Vec<Alias> = Vec::new();
        let mut fields: Vec<String> = Vec::new();
        let mut placed: Vec<Vec<Src>> = vec![vec![]];
        let mut in_part = 0u64;
        let mut global = 0u64;
        for seg in &segs {
            let meta = &seg.meta;
            let ctx_base = contexts.len();
            contexts.extend(meta.contexts.iter().cloned());
            if contexts.len() > u16::MAX as usize {
                return Err(EngineError::InvalidArgument("too many input files in the merged segments (65,535 at most)".into()));
            }
            for f in &meta.fields {
                if !fields.contains(f) {
                    fields.push(f.clone());
                }
            }
            // Taken-down documents of this segment before global document g (its own numbering).
            let hidden_before = |g: u64| -> u64 {
                let mut n = 0;
                for (pi, h) in seg.hidden.iter().enumerate() {
                    for r in h {
                        let (a, b) = (seg.part_start[pi] + r.start as u64, seg.part_start[pi] + r.end as u64);
                        if a < g {
                            n += b.min(g) - a;
                        }
                    }
                }
                n
            };
            // An ingest's segment (no sources list: not itself a merge) is one source, all of it.
            let whole_segment = || SourceMeta {
                id: meta.id.clone(),
                well: meta.well.clone(),
                records: seg.records,
                start: global,
                fields: meta.fields.clone(),
                created: meta.created.clone(),
                bad_lines: meta.bad_lines,
                catalogue: meta.catalogue.clone(),
            };
            let dropping = seg.hidden_records > 0;
            if dropping {
                // The live sources, their starts moved down past the records left out.
                for x in meta.sources.iter().filter(|x| !edits.deleted.contains(&x.id)) {
                    sources.push(SourceMeta { start: x.start - hidden_before(x.start) + global, ..x.clone() });
                }
                if meta.sources.is_empty() && !edits.deleted.contains(&meta.id) {
                    sources.push(whole_segment());
                }
            } else if meta.sources.is_empty() {
                sources.push(whole_segment());
            } else {
                sources.extend(meta.sources.iter().map(|x| SourceMeta { start: x.start + global, ..x.clone() }));
            }
            // Ids handed out before keep resolving through aliases, except where records
            // were left out (their parts' numbering changed): those ids resolve to nothing.
            if !dropping {
                aliases.push(Alias { id: meta.id.clone(), start: global, part_docs: seg.parts.iter().map(|p| p.docs).collect() });
            }
            for a in &meta.aliases {
                let len: u64 = a.part_docs.iter().map(|&d| d as u64).sum();
                let before = hidden_before(a.start);
                if hidden_before(a.start + len) == before {
                    aliases.push(Alias { start: a.start - before + global, ..a.clone() });
                }
            }
            for (pi, p) in seg.parts.iter().enumerate() {
                let src = Src { seg, part: pi, base: 0, ctx_base: ctx_base as u16, hidden: &seg.hidden[pi] };
                let kept = src.kept() as u64;
                if kept == 0 {
                    continue;
                }
                if in_part > 0 && in_part + kept > opts.part_docs {
                    placed.push(vec![]);
                    in_part = 0;
                }
                let _ = p;
                placed.last_mut().unwrap().push(Src { base: in_part as u32, ..src });
                in_part += kept;
                global += kept;
            }
        }
        let mut nparts = 0u32;
        for srcs in &placed {
            if srcs.is_empty() {
                continue;
            }
            write_part(&tmp.join(format!("part-{}", nparts)), srcs, marked)?;
            nparts += 1;
        }
        Ok(SegmentMeta {
            format_version: FORMAT_VERSION,
            id: id.clone(),
            well: String::new(),
            parts: nparts,
            records: global,
            fields,
            created: publish::utc_now(),
            bad_lines: 0,
            catalogue: Value::Null,
            contexts,
            sources,
            aliases,
        })
    })();
    let meta = match built {
        Ok(meta) => meta,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    drop(segs);
    // Phase figures for the summary (`timing`): wall of each step, the process's CPU.
    let built_ms = t0.elapsed().as_millis() as u64;
    make_durable(&tmp, &meta)?;
    let durable_ms = t0.elapsed().as_millis() as u64 - built_ms;
    let merged: Vec<String> = m.segments[window.clone()].iter().map(|e| e.id.clone()).collect();
    let entry = ManifestEntry { id: id.clone(), well: String::new(), records: meta.records, created: meta.created.clone() };
    let next = make_visible(dir, &m, &tmp, meta.parts, marked, window, entry, false)?;
    let visible_ms = t0.elapsed().as_millis() as u64 - built_ms - durable_ms;
    // The old directories are now unlisted: remove them (a crash here leaves them to the
    // next recovery). Open readers keep their mappings until they refresh.
    for old in &merged {
        let _ = std::fs::remove_dir_all(segment_dir(dir, old));
    }
    let _ = sync_dir(dir);
    Ok(MergeReply {
        segment_id: Some(id),
        merged,
        records: meta.records,
        parts: meta.parts as u64,
        segments: next.segments.len() as u64,
        elapsed_ms: t0.elapsed().as_millis() as u64,
        timing: Some(MergeTiming { built_ms, durable_ms, visible_ms, cpu_ms: (crate::cpu_clock::process() - cpu0).as_millis() as u64 }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn man(recs: &[u64]) -> Manifest {
        Manifest {
            generation: 1,
            segments: recs.iter().enumerate().map(|(i, &r)| ManifestEntry { id: i.to_string(), well: String::new(), records: r, created: String::new() }).collect(),
        }
    }

    #[test]
    fn choose_merges_the_smallest_run_past_the_threshold() {
        let o = MergeOptions { all: false, max_segments: 8, part_docs: 10 };
        assert_eq!(choose(&man(&[5; 8]), &o), None);
        assert_eq!(choose(&man(&[5; 9]), &o), Some(0..9));
        assert_eq!(choose(&man(&[1000, 5, 5, 5, 5, 5, 5, 5, 5]), &o), Some(1..9));
        assert_eq!(choose(&man(&[1000, 800, 600, 400, 200, 100, 50, 20, 10]), &o), Some(7..9));
        assert_eq!(choose(&man(&[1000, 5, 5, 5, 5, 5, 5, 5, 900]), &o), Some(1..8));
        let all = MergeOptions { all: true, ..o };
        assert_eq!(choose(&man(&[1]), &all), None);
        assert_eq!(choose(&man(&[1, 2]), &all), Some(0..2));
    }
}
