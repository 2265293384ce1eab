//! `wellCounts`: a query's matching records counted per data well, without rendering an
//! entry (which wells hold this email). The query is read, planned and evaluated as a
//! search's, within the same time budget; each hit is then counted under the well of the
//! ingest holding it (a merged segment's sources are contiguous document ranges).
//!
//! With `distinct`, the distinct values of the term's field that match the term and that a
//! counted record holds (`email:*@example.com`: the domain's addresses exposed). They are
//! counted from the dictionaries, never from the records: in each part, the terms the term
//! selects on its own field (`planner::distinct_plan`) that have a counted document in their
//! postings; a term's postings are read only when some of the part's matching documents are
//! not counted (removed, taken down, filtered out by source). The same value in several
//! parts is one value: a set of the terms' 128-bit hashes.

use super::*;
use crate::contract::{WellCount, WellCountsReply};
use crate::planner::{DistinctPlan, Ords};
use crate::request::WellCountsRequest;
use std::collections::HashSet;

/// Hits (or terms) counted between two checks of the time budget.
const BUDGET_STEP: usize = 4096;

impl Engine {
    /// The records matching `req` in each data well: no dedup (a well holding the same
    /// record twice holds two), removed records (tombstones, opt-outs) and taken-down
    /// sources left out, a source filter (`&database_name=`) honoured. Wells by their
    /// current names (renames applied; two ingests under one name are one well), by records
    /// (most first), then by name. `{total, wells: [{well, records}], distinct, tookMicros}`.
    pub fn well_counts(&self, req: &WellCountsRequest) -> Result<WellCountsReply> {
        let t0 = Instant::now();
        self.check_open()?;
        let parsed = req.parsed()?;
        let plan = planner::plan(&parsed)?;
        let mut distinct = if req.distinct { Some(Distinct::new(planner::distinct_plan(&parsed)?)) } else { None };
        let _ = self.refresh(false);
        let snap = self.snapshot();
        let budget = Budget { deadline: Some(t0 + Duration::from_millis(req.budget_ms.max(1))), budget_ms: req.budget_ms };
        let named = |well_lower: &str| parsed.sources.is_empty() || parsed.sources.iter().any(|s| s == well_lower);
        let mut by_well: HashMap<&str, u64> = HashMap::new();
        let mut kept = Vec::new();
        for seg in snap.segments.iter() {
            if seg.all_hidden() || !seg.sources.iter().any(|s| named(&s.well_lower)) {
                continue;
            }
            for (pi, part) in seg.parts.iter().enumerate() {
                let mut docs = planner::eval(&plan, part, &budget)?;
                let matched = docs.len();
                seg.drop_hidden(pi, &mut docs);
                if docs.is_empty() {
                    continue;
                }
                kept.clear();
                let keep = distinct.is_some().then_some(&mut kept);
                count_part(seg, pi, &docs, &named, &snap.removed, &budget, keep, &mut by_well)?;
                if let Some(d) = distinct.as_mut() {
                    d.add_part(part, &kept, kept.len() == matched, &budget)?;
                }
            }
        }
        let mut wells: Vec<WellCount> = by_well.into_iter().map(|(w, n)| WellCount { well: w.to_string(), records: n }).collect();
        wells.sort_unstable_by(|x, y| y.records.cmp(&x.records).then_with(|| x.well.cmp(&y.well)));
        let total = wells.iter().map(|w| w.records).sum();
        let distinct = distinct.map(|d| d.seen.len() as u64);
        Ok(WellCountsReply { total, wells, distinct, took_micros: t0.elapsed().as_micros() as u64 })
    }
}

/// Counts the hits `docs` of part `pi` (taken-down ones already dropped) under the wells of
/// their named sources, and appends the counted ones to `keep` when given (ascending: the
/// sources are in document order).
#[allow(clippy::too_many_arguments)]
fn count_part<'s>(
    seg: &'s Segment,
    pi: usize,
    docs: &[u32],
    named: &dyn Fn(&str) -> bool,
    removed: &Removed,
    budget: &Budget,
    mut keep: Option<&mut Vec<u32>>,
    by_well: &mut HashMap<&'s str, u64>,
) -> Result<()> {
    let part = &seg.parts[pi];
    let (ps, pe) = (seg.part_start[pi], seg.part_start[pi] + part.docs as u64);
    for src in seg.sources.iter().filter(|s| named(&s.well_lower)) {
        let (a, b) = (src.start.max(ps), (src.start + src.records).min(pe));
        if a >= b {
            continue;
        }
        let (a, b) = ((a - ps) as u32, (b - ps) as u32);
        let hits = &docs[docs.partition_point(|&d| d < a)..docs.partition_point(|&d| d < b)];
        let n = count_kept(part, hits, removed, budget, keep.as_deref_mut())?;
        if n > 0 {
            *by_well.entry(src.well.as_str()).or_default() += n;
        }
    }
    Ok(())
}

/// Documents of `hits` that no tombstone hides (appended to `keep` when given).
fn count_kept(part: &Part, hits: &[u32], removed: &Removed, budget: &Budget, keep: Option<&mut Vec<u32>>) -> Result<u64> {
    if removed.is_empty() {
        if let Some(k) = keep {
            k.extend_from_slice(hits);
        }
        return Ok(hits.len() as u64);
    }
    let mut n = 0u64;
    let mut keep = keep;
    for (i, &d) in hits.iter().enumerate() {
        if i % BUDGET_STEP == BUDGET_STEP - 1 {
            budget.check()?;
        }
        if !part.is_removed(d, removed)? {
            n += 1;
            if let Some(k) = keep.as_deref_mut() {
                k.push(d);
            }
        }
    }
    Ok(n)
}

/// A hash set of 128-bit hashes: their low 64 bits are the set's hash.
#[derive(Default)]
struct LowBits(u64);
impl std::hash::Hasher for LowBits {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u128(&mut self, n: u128) {
        self.0 = n as u64;
    }
}

/// The distinct values counted so far: the xxh3-128 hashes of their terms.
struct Distinct {
    plan: DistinctPlan,
    seen: HashSet<u128, std::hash::BuildHasherDefault<LowBits>>,
    postings: Vec<u32>,
    /// The part's counted documents as bits (when some of its hits are not counted).
    bits: Vec<u64>,
}

impl Distinct {
    fn new(plan: DistinctPlan) -> Distinct {
        Distinct { plan, seen: HashSet::default(), postings: Vec::new(), bits: Vec::new() }
    }

    /// Adds the part's terms selected by the plan that a counted document holds: `kept`,
    /// the part's counted documents (ascending), are all its matching ones when `all`.
    /// A selected term's documents are among the query's matching ones (the same
    /// selection, or for `email:*@d` the emails of the domain `d` looked up), so with `all`
    /// every selected term is held by a counted document.
    fn add_part(&mut self, part: &Part, kept: &[u32], all: bool, budget: &Budget) -> Result<()> {
        let Some(fi) = &part.fields[self.plan.field] else { return Ok(()) };
        if kept.is_empty() {
            return Ok(());
        }
        if !all {
            self.bits.clear();
            self.bits.resize((part.docs as usize + 63) / 64, 0);
            for &d in kept {
                self.bits[(d >> 6) as usize] |= 1u64 << (d & 63);
            }
        }
        for t in &self.plan.terms {
            let ords = planner::term_ords(t, fi, budget)?;
            let (seen, postings, bits) = (&mut self.seen, &mut self.postings, &self.bits);
            let mut n = 0usize;
            let mut add = |ord: u32, term: &[u8]| -> Result<()> {
                n += 1;
                if n % BUDGET_STEP == 0 {
                    budget.check()?;
                }
                if !all {
                    postings.clear();
                    fi.postings_into(ord, postings);
                    if !postings.iter().any(|&d| bits[(d >> 6) as usize] >> (d & 63) & 1 == 1) {
                        return Ok(());
                    }
                }
                seen.insert(xxhash_rust::xxh3::xxh3_128(term));
                Ok(())
            };
            match ords {
                Ords::Range(r) => fi.dict.for_each(r, &mut add)?,
                Ords::List(list) => {
                    // Runs of consecutive ordinals walked at once.
                    let mut i = 0;
                    while i < list.len() {
                        let mut j = i + 1;
                        while j < list.len() && list[j] == list[j - 1] + 1 {
                            j += 1;
                        }
                        fi.dict.for_each(list[i]..list[j - 1] + 1, &mut add)?;
                        i = j;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Engine;
    use crate::contract::EditWellsArgs;
    use crate::merge::MergeOptions;
    use crate::request::{SearchRequest, WellCountsRequest};
    use serde_json::json;
    use std::path::Path;

    fn ingest(dir: &Path, file: &str, well: &str, lines: &[String]) -> String {
        super::super::test_ingest::ingest_lines(dir, file, well, lines, 5)
    }

    fn counts(e: &Engine, query: &str, mode: &str) -> (u64, Vec<(String, u64)>) {
        let arg = json!({ "query": query, "mode": mode, "timeBudgetMs": 5000, "type": "all", "oneTerm": false, "distinct": false }).to_string();
        let r = e.well_counts(&WellCountsRequest::from_text(&arg).unwrap()).unwrap();
        (r.total, r.wells.into_iter().map(|w| (w.well, w.records)).collect())
    }

    fn wells(list: &[(&str, u64)]) -> Vec<(String, u64)> {
        list.iter().map(|(w, n)| (w.to_string(), *n)).collect()
    }

    /// Per-well counts: several wells and parts, no dedup, sorted by records then name;
    /// renames, removals, takedowns, source filters and a merge followed; refusals as a
    /// search's.
    #[test]
    fn well_counts_follow_wells_removals_and_merges() {
        let dir = crate::test_dir("well-counts");
        let index = dir.join("index");
        // Alpha: alice 3 times (two lines alike), bob once, filler; Beta: alice twice;
        // Gamma: alice twice; Delta: bob only.
        let mut alpha: Vec<String> = (0..12).map(|i| format!(r#"{{"email":"filler{}@y.org"}}"#, i)).collect();
        alpha.insert(2, r#"{"email":"alice@x.com","password":"a1"}"#.into());
        alpha.insert(7, r#"{"email":"alice@x.com","password":"a1"}"#.into());
        alpha.insert(9, r#"{"email":"Alice@X.com","password":"a2"}"#.into());
        alpha.push(r#"{"email":"bob@x.com"}"#.into());
        let beta = vec![r#"{"email":"alice@x.com","password":"b1"}"#.to_string(), r#"{"email":"alice@x.com","password":"b2"}"#.to_string()];
        let gamma = vec![r#"{"email":"alice@x.com","password":"g1"}"#.to_string(), r#"{"email":"alice@x.com","password":"g2"}"#.to_string()];
        ingest(&dir, "alpha", "Alpha", &alpha);
        let seg_beta = ingest(&dir, "beta", "Beta", &beta);
        let seg_gamma = ingest(&dir, "gamma", "Gamma", &gamma);
        ingest(&dir, "delta", "Delta", &[r#"{"email":"bob@x.com"}"#.to_string()]);
        let engine = Engine::open(&index).unwrap();
        let alice = wells(&[("Alpha", 3), ("Beta", 2), ("Gamma", 2)]);
        assert_eq!(counts(&engine, "email:alice@x.com", "exact"), (7, alice.clone()), "every record, duplicates too");
        assert_eq!(counts(&engine, "alice@x.com", "exact"), (7, alice.clone()), "the default field: all");
        assert_eq!(counts(&engine, "email:alice*", "wildcard"), (7, alice.clone()));
        assert_eq!(counts(&engine, "email:bob@x.com", "exact"), (2, wells(&[("Alpha", 1), ("Delta", 1)])), "ties by name");
        assert_eq!(counts(&engine, "email:*@x.com", "wildcard").1[0], ("Alpha".to_string(), 4));
        assert_eq!(counts(&engine, "email:nobody@x.com", "exact"), (0, vec![]));
        assert_eq!(counts(&engine, "email:alice@x.com&database_name=beta", "exact"), (2, wells(&[("Beta", 2)])));
        let search = |q: &str| {
            let r = engine.search(&SearchRequest::with_defaults(&json!({ "query": q, "dedup": false, "size": 100 })).unwrap()).unwrap();
            (r.total, r.entries.iter().map(|e| e["id"].as_str().unwrap().to_string()).collect::<Vec<_>>())
        };
        assert_eq!(search("email:alice@x.com").0, 7, "the same hits as a search without dedup");

        // Renamed into another well's name: one well. Removed: not counted (a removal hides
        // every record alike, both of Alpha's `a1` lines).
        engine.edit_wells(&EditWellsArgs { delete: vec![], rename: vec![(seg_gamma.clone(), "Beta".into())] }).unwrap();
        assert_eq!(counts(&engine, "email:alice@x.com", "exact"), (7, wells(&[("Beta", 4), ("Alpha", 3)])));
        let ids = search("email:alice@x.com&database_name=alpha").1;
        let a1 = ids.iter().find(|id| engine.get(id).unwrap().unwrap()["password"] == json!(["a1"])).unwrap().clone();
        assert!(engine.remove(&a1).unwrap());
        assert_eq!(counts(&engine, "email:alice@x.com", "exact"), (5, wells(&[("Beta", 4), ("Alpha", 1)])));

        // Taken down: gone. Merged: the same answers.
        engine.edit_wells(&EditWellsArgs { delete: vec![seg_beta], rename: vec![] }).unwrap();
        assert_eq!(counts(&engine, "email:alice@x.com", "exact"), (3, wells(&[("Beta", 2), ("Alpha", 1)])));
        crate::merge::run(&index, &MergeOptions { all: true, max_segments: 8, part_docs: 100_000 }).unwrap();
        engine.refresh(true).unwrap();
        assert_eq!(engine.stats().unwrap().segments, 1);
        assert_eq!(counts(&engine, "email:alice@x.com", "exact"), (3, wells(&[("Beta", 2), ("Alpha", 1)])));
        assert_eq!(counts(&engine, "email:bob@x.com", "exact"), (2, wells(&[("Alpha", 1), ("Delta", 1)])));

        // Refused as a search is, and its one-term rule kept.
        let refuse = |arg: serde_json::Value| WellCountsRequest::from_text(&arg.to_string()).and_then(|r| engine.well_counts(&r)).unwrap_err().code();
        let base = json!({ "query": "email:alice*", "mode": "wildcard", "timeBudgetMs": 5000, "type": "all", "oneTerm": true, "distinct": false });
        assert_eq!(refuse(base.clone()), "subscription_required");
        assert_eq!(refuse(json!({ "query": "email:", "mode": "exact", "timeBudgetMs": 5000, "type": "all", "oneTerm": false, "distinct": false })), "syntax");
        let mut extra = base.clone();
        extra["dedup"] = json!(true);
        assert_eq!(refuse(extra), "invalid_argument");
        for key in ["oneTerm", "distinct"] {
            let mut missing = base.clone();
            missing.as_object_mut().unwrap().remove(key);
            assert_eq!(refuse(missing), "invalid_argument", "{} is required", key);
        }
        engine.close();
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `(total, distinct)` of a distinct count; `type` is the default field.
    fn distinct(e: &Engine, query: &str, mode: &str, field: &str) -> crate::error::Result<(u64, u64)> {
        let arg = json!({ "query": query, "mode": mode, "timeBudgetMs": 5000, "type": field, "oneTerm": false, "distinct": true }).to_string();
        let r = e.well_counts(&WellCountsRequest::from_text(&arg)?)?;
        Ok((r.total, r.distinct.expect("asked")))
    }

    /// Distinct values: over several wells and parts, a record holding two matching values
    /// counting both and a non-matching one not at all, values alike but for case counted
    /// once, removed and taken-down records and source filters followed, before and after a
    /// merge; exact, prefix and regex terms; anything but one term of one field refused.
    #[test]
    fn well_counts_count_distinct_values() {
        let dir = crate::test_dir("well-counts-distinct");
        let index = dir.join("index");
        let mut alpha: Vec<String> = (0..8).map(|i| format!(r#"{{"email":"filler{}@example.org"}}"#, i)).collect();
        alpha.insert(1, r#"{"email":["Ann@Example.com","bob@example.com"]}"#.into());
        alpha.insert(4, r#"{"email":["cy@example.com","zed@other.org"]}"#.into());
        alpha.insert(6, r#"{"email":"ANN@example.com ","password":"p"}"#.into());
        alpha.push(r#"{"email":"dee@example.com","password":"d1"}"#.into());
        alpha.push(r#"{"email":"ann@sub.example.com"}"#.into());
        alpha.push(r#"{"email":"eve@example.com.evil.net"}"#.into());
        ingest(&dir, "alpha", "Alpha", &alpha);
        ingest(&dir, "beta", "Beta", &[r#"{"email":"ann@example.com"}"#.into(), r#"{"email":"fay@example.com"}"#.into()]);
        let gamma = ingest(&dir, "gamma", "Gamma", &[r#"{"email":"gus@example.com"}"#.into()]);
        let engine = Engine::open(&index).unwrap();
        let domain = |e: &Engine| distinct(e, "email:*@example.com", "wildcard", "all").unwrap();
        // ann (three records, two wells), bob and cy (one record each holding two), dee,
        // fay, gus; zed@other.org shares cy's record, sub.example.com and
        // example.com.evil.net are other domains.
        assert_eq!(domain(&engine), (7, 6));
        assert_eq!(counts(&engine, "email:*@example.com", "wildcard").0, 7, "the records as without distinct");
        assert_eq!(distinct(&engine, "email:/@example\\.com$/", "regex", "all").unwrap(), (7, 6), "a regex (unanchored: anchored at its end)");
        assert_eq!(distinct(&engine, "email:*@EXAMPLE.com", "wildcard", "all").unwrap(), (7, 6), "the pattern's case");
        assert_eq!(distinct(&engine, "email:ann*", "wildcard", "all").unwrap(), (4, 2), "a prefix: ann@example.com, ann@sub.example.com");
        assert_eq!(distinct(&engine, "email:ANN@example.com", "exact", "all").unwrap(), (3, 1), "an exact term");
        assert_eq!(distinct(&engine, "ann@example.com", "exact", "email").unwrap(), (3, 1), "a bare term on a field's tab");
        assert_eq!(distinct(&engine, "email:nobody@example.com", "exact", "all").unwrap(), (0, 0));
        assert_eq!(distinct(&engine, "email:*@example.com&database_name=beta", "wildcard", "all").unwrap(), (2, 2), "a source filter");
        let plain = WellCountsRequest::from_text(&json!({ "query": "email:*@example.com", "mode": "wildcard", "timeBudgetMs": 5000, "type": "all", "oneTerm": false, "distinct": false }).to_string()).unwrap();
        assert_eq!(engine.well_counts(&plain).unwrap().distinct, None, "not asked: none");

        // Removed: dee's only record takes dee away; one of ann's three leaves ann.
        let search = |q: &str| engine.search(&SearchRequest::with_defaults(&json!({ "query": q, "dedup": false, "size": 100 })).unwrap()).unwrap();
        assert!(engine.remove(search("email:dee@example.com").entries[0]["id"].as_str().unwrap()).unwrap());
        assert!(engine.remove(search("password:p").entries[0]["id"].as_str().unwrap()).unwrap());
        assert_eq!(domain(&engine), (5, 5));
        assert_eq!(distinct(&engine, "email:dee@example.com", "exact", "all").unwrap(), (0, 0));

        // Merged into one segment, then one ingest taken down inside it.
        crate::merge::run(&index, &MergeOptions { all: true, max_segments: 8, part_docs: 100_000 }).unwrap();
        engine.refresh(true).unwrap();
        assert_eq!(engine.stats().unwrap().segments, 1);
        assert_eq!(domain(&engine), (5, 5));
        engine.edit_wells(&EditWellsArgs { delete: vec![gamma], rename: vec![] }).unwrap();
        assert_eq!(domain(&engine), (4, 4), "gus taken down");
        assert_eq!(distinct(&engine, "email:*@example.com&database_name=alpha", "wildcard", "all").unwrap(), (2, 3), "ann, bob, cy");

        // One term of one field only.
        for (query, mode, field) in [("email:ann@example.com password:x", "exact", "all"), ("email:ann@example.com OR email:bob@example.com", "exact", "all"), ("ann@example.com", "exact", "all")] {
            let e = distinct(&engine, query, mode, field).unwrap_err();
            assert_eq!(e.code(), "invalid_argument", "{}", query);
            assert!(e.message().contains("one term of one field"), "{}", e.message());
        }
        engine.close();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
