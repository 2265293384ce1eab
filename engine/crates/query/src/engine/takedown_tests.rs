use super::Engine;
use crate::contract::EditWellsArgs;
use crate::merge::MergeOptions;
use crate::request::{GetManyRequest, MatchWatchesRequest, PasswordRequest, SearchRequest, Watch};
use crate::render::RawRecord;
use crate::watch::Strategy;
use serde_json::{json, Value};
use std::path::Path;

fn ingest(dir: &Path, well: &str, lines: &[String]) -> String {
    super::test_ingest::ingest_lines(dir, well, well, lines, 7)
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
    crate::digest::sha1(pw.as_bytes()).iter().map(|b| format!("{:02x}", b)).collect()
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
        crate::to_json(e.search(&SearchRequest::with_defaults(&json!({ "query": q, "mode": if q.contains('*') { "wildcard" } else { "exact" }, "dedup": dedup, "countCache": false, "size": 500 })).unwrap()).unwrap())
    };
    let wells_of = |v: &Value| -> Vec<String> { v["entries"].as_array().unwrap().iter().map(|e| e["database_name"].as_str().unwrap().to_string()).collect() };
    assert_eq!(engine.stats().unwrap().segments, 1, "one merged segment");
    assert_eq!(search(&engine, "email:*@x.com", true)["total"], 51);
    let a_ids: Vec<String> = search(&engine, "email:a1*", false)["entries"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().to_string()).collect();
    assert!(!a_ids.is_empty());
    let watch = |e: &Engine, seg: &str| -> Value {
        crate::to_json(e.match_watches(&MatchWatchesRequest {
            segment_id: seg.to_string(),
            watches: vec![Watch { field: "email".into(), value: "a1@x.com".into() }, Watch { field: "domain".into(), value: "takedown.example".into() }, Watch { field: "email".into(), value: "b1@x.com".into() }],
            limit: 10,
            strategy: Strategy::Auto,
        })
        .unwrap())
    };
    assert_eq!(watch(&engine, &seg_a).as_array().unwrap().len(), 2, "a1 and the domain match before");
    assert_eq!(engine.password_count(&PasswordRequest { hex: sha1("gone-pw-1") }).unwrap().total, 8);

    engine.edit_wells(&EditWellsArgs { delete: vec![seg_a.clone()], rename: vec![] }).unwrap();
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
        assert_eq!(e.password_count(&PasswordRequest { hex: sha1("gone-pw-1") }).unwrap().total, 0);
        assert_eq!(e.password_count(&PasswordRequest { hex: sha1("kept-pw-1") }).unwrap().total, 5);
        assert_eq!(e.password_count(&PasswordRequest { hex: sha1("both-pw") }).unwrap().total, 1);
        let range = e.password_range(&PasswordRequest { hex: sha1("gone-pw-2")[..5].to_string() }).unwrap();
        assert!(range.suffixes.iter().all(|s| s.suffix != sha1("gone-pw-2")[5..]));
        assert!(a_ids.iter().all(|id| e.get(id).unwrap().is_none()));
        assert!(e.get_many(&GetManyRequest { ids: a_ids.clone(), raw_record: RawRecord::Line }).unwrap().iter().all(Option::is_none));
        assert_eq!(watch(e, &seg_a), json!([]), "a taken-down ingest matches nothing");
        assert_eq!(watch(e, &seg_b).as_array().unwrap().len(), 1, "b1 still matches");
        let st = crate::to_json(e.stats().unwrap());
        assert_eq!(st["records"], 21);
        assert_eq!(st["hiddenRecords"], 31);
        assert!(st["wells"].get("WellA").is_none());
    }
    assert!(!engine.remove(&a_ids[0]).unwrap(), "a taken-down record is unknown");

    engine.edit_wells(&EditWellsArgs { delete: vec![], rename: vec![(seg_b.clone(), "WellB2".into())] }).unwrap();
    other.refresh(true).unwrap();
    for e in [&engine, &other] {
        let v = search(e, "email:*@x.com&database_name=WellB2", true);
        assert_eq!(v["total"], 21);
        assert!(wells_of(&v).iter().all(|w| w == "WellB2"));
        assert_eq!(search(e, "email:*@x.com&database_name=WellB", true)["total"], 0);
    }

    let before = bytes(&index);
    let p = crate::to_json(engine.purge(crate::merge::purge).unwrap());
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
        let st = crate::to_json(e.stats().unwrap());
        assert_eq!((st["records"].clone(), st["hiddenRecords"].clone()), (json!(21), json!(0)));
        assert_eq!(e.password_count(&PasswordRequest { hex: sha1("kept-pw-1") }).unwrap().total, 5);
        assert_eq!(e.password_count(&PasswordRequest { hex: sha1("gone-pw-1") }).unwrap().total, 0);
        assert_eq!(watch(e, &seg_b).as_array().unwrap().len(), 1, "B's ingest id still matches after the rewrite");
    }
    // Every record of the rewritten segment is B's, read back from its store.
    let v = search(&engine, "email:b1@x.com", false);
    assert_eq!(v["total"], 1);
    assert_eq!(v["entries"][0]["email"], json!(["b1@x.com"]));
    // A later merge keeps the well's records out; a well wholly taken down is dropped whole.
    let seg_c = ingest(&dir, "WellC", &["{\"email\":\"c0@x.com\"}".to_string()]);
    engine.edit_wells(&EditWellsArgs { delete: vec![seg_c.clone()], rename: vec![] }).unwrap();
    let p = crate::to_json(engine.purge(crate::merge::purge).unwrap());
    assert_eq!(p["dropped"], json!([seg_c]));
    assert!(!crate::segment::segment_dir(&index, &seg_c).exists());
    assert_eq!(search(&engine, "email:*@x.com", true)["total"], 21);
    engine.close();
    other.close();
    let _ = std::fs::remove_dir_all(&dir);
}
