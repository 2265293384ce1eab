//! `wellCounts`: a query's matching records counted per data well, without rendering an
//! entry (which wells hold this email). The query is read, planned and evaluated as a
//! search's, within the same time budget; each hit is then counted under the well of the
//! ingest holding it (a merged segment's sources are contiguous document ranges).

use super::*;
use crate::contract::{WellCount, WellCountsReply};
use crate::request::WellCountsRequest;

/// Hits counted between two checks of the time budget.
const BUDGET_STEP: usize = 4096;

impl Engine {
    /// The records matching `req` in each data well: no dedup (a well holding the same
    /// record twice holds two), removed records (tombstones, opt-outs) and taken-down
    /// sources left out, a source filter (`&database_name=`) honoured. Wells by their
    /// current names (renames applied; two ingests under one name are one well), by records
    /// (most first), then by name. `{total, wells: [{well, records}], tookMicros}`.
    pub fn well_counts(&self, req: &WellCountsRequest) -> Result<WellCountsReply> {
        let t0 = Instant::now();
        self.check_open()?;
        let parsed = req.parsed()?;
        let plan = planner::plan(&parsed)?;
        let _ = self.refresh(false);
        let snap = self.snapshot();
        let budget = Budget { deadline: Some(t0 + Duration::from_millis(req.budget_ms.max(1))), budget_ms: req.budget_ms };
        let named = |well_lower: &str| parsed.sources.is_empty() || parsed.sources.iter().any(|s| s == well_lower);
        let mut by_well: HashMap<&str, u64> = HashMap::new();
        for seg in snap.segments.iter() {
            if seg.all_hidden() || !seg.sources.iter().any(|s| named(&s.well_lower)) {
                continue;
            }
            for (pi, part) in seg.parts.iter().enumerate() {
                let mut docs = planner::eval(&plan, part, &budget)?;
                seg.drop_hidden(pi, &mut docs);
                if docs.is_empty() {
                    continue;
                }
                let (ps, pe) = (seg.part_start[pi], seg.part_start[pi] + part.docs as u64);
                for src in seg.sources.iter().filter(|s| named(&s.well_lower)) {
                    let (a, b) = (src.start.max(ps), (src.start + src.records).min(pe));
                    if a >= b {
                        continue;
                    }
                    let (a, b) = ((a - ps) as u32, (b - ps) as u32);
                    let hits = &docs[docs.partition_point(|&d| d < a)..docs.partition_point(|&d| d < b)];
                    let n = count_kept(part, hits, &snap.removed, &budget)?;
                    if n > 0 {
                        *by_well.entry(src.well.as_str()).or_default() += n;
                    }
                }
            }
        }
        let mut wells: Vec<WellCount> = by_well.into_iter().map(|(w, n)| WellCount { well: w.to_string(), records: n }).collect();
        wells.sort_unstable_by(|x, y| y.records.cmp(&x.records).then_with(|| x.well.cmp(&y.well)));
        let total = wells.iter().map(|w| w.records).sum();
        Ok(WellCountsReply { total, wells, took_micros: t0.elapsed().as_micros() as u64 })
    }
}

/// Documents of `hits` that no tombstone hides.
fn count_kept(part: &Part, hits: &[u32], removed: &Removed, budget: &Budget) -> Result<u64> {
    if removed.is_empty() {
        return Ok(hits.len() as u64);
    }
    let mut n = 0u64;
    for (i, &d) in hits.iter().enumerate() {
        if i % BUDGET_STEP == BUDGET_STEP - 1 {
            budget.check()?;
        }
        if !part.is_removed(d, removed)? {
            n += 1;
        }
    }
    Ok(n)
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
        let path = dir.join(format!("{}.jsonl", file));
        std::fs::write(&path, lines.join("\n")).unwrap();
        let opts = crate::ingest::IngestOptions::from_json(&json!({
            "indexDir": dir.join("index").to_str().unwrap(), "well": well, "files": [path.to_str().unwrap()], "partRecords": 5,
        }))
        .unwrap();
        crate::ingest::run(&opts, &Default::default()).unwrap().segment_id.unwrap()
    }

    fn counts(e: &Engine, query: &str, mode: &str) -> (u64, Vec<(String, u64)>) {
        let arg = json!({ "query": query, "mode": mode, "timeBudgetMs": 5000, "type": "all", "oneTerm": false }).to_string();
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
        let base = json!({ "query": "email:alice*", "mode": "wildcard", "timeBudgetMs": 5000, "type": "all", "oneTerm": true });
        assert_eq!(refuse(base.clone()), "subscription_required");
        assert_eq!(refuse(json!({ "query": "email:", "mode": "exact", "timeBudgetMs": 5000, "type": "all", "oneTerm": false })), "syntax");
        let mut extra = base.clone();
        extra["dedup"] = json!(true);
        assert_eq!(refuse(extra), "invalid_argument");
        let mut missing = base;
        missing.as_object_mut().unwrap().remove("oneTerm");
        assert_eq!(refuse(missing), "invalid_argument");
        engine.close();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
