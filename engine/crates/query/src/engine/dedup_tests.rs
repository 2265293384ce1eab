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
    assert!(crate::merge::run(index, opts).unwrap().segment_id.is_some());
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
        crate::to_json(engine.search(&SearchRequest::with_defaults(&json!({ "query": q, "dedup": dedup, "countCache": false, "size": 500 })).unwrap()).unwrap())
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
        let hex: String = crate::digest::sha1(pw.as_bytes()).iter().map(|b| format!("{:02x}", b)).collect();
        let c = engine.password_count(&PasswordRequest { hex }).unwrap();
        assert_eq!(c.total as usize, expect(pw, &[], true).len(), "password count of {}", pw);
    }
    // Removed records are gone by id too; the others are found.
    for (seg, docs) in &all {
        for &(pi, d, _, r) in docs {
            let got = engine.get(&format!("{}-{}-{}", seg.meta.id, pi, d)).unwrap();
            assert_eq!(got.is_none(), removed.contains(&r), "get of r {}", r);
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

/// Parts of formats 6-9 (whole keys, with and without first bits) are read beside
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
