use super::*;
use serde_json::{json, Value};
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
    let seg = res.segment_id.unwrap();
    let engine = Engine::open(&dir.join("index")).unwrap();
    let run = |ws: &[(&str, &str, &str)], limit: usize, strategy: Strategy| {
        serde_json::to_value(engine.match_watches(&MatchWatchesRequest { segment_id: seg.clone(), watches: watches(ws), limit, strategy }).unwrap()).unwrap()
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
    let many = serde_json::to_value(engine.get_many(&GetManyRequest { ids: vec![format!("{}-0-1", seg), first, "x-0-0".into()], raw_record: RawRecord::Line }).unwrap()).unwrap();
    // The part's order (`segment::PartOrder`): the two records with neither a username
    // nor an email first, in the input's order, then by email or username (alice, bob,
    // carol, user…): document 1 is the input's third line.
    assert_eq!(many[0]["url"], json!(["http://EXAMPLE.com:8080"]));
    assert_eq!(many.as_array().unwrap()[1..], [Value::Null, Value::Null]);
    engine.close();
    let _ = std::fs::remove_dir_all(&dir);
}
