use super::*;
use serde_json::{json, Value};

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
            let req = SearchRequest::with_defaults(&json!({ "query": q, "mode": mode, "size": 10000, "countCache": false, "rawRecord": raw, "dedup": false })).unwrap();
            let mut texts = Vec::new();
            for helpers in [0, 1, 3] {
                // A new engine each time: its stores are new to the block cache.
                let e = Engine::open(&dir.join("index")).unwrap();
                let (_, hits, _, snap) = e.run_search(&req).unwrap();
                assert!(hits.len() > PARALLEL_ENTRIES, "{}: {} hits", q, hits.len());
                texts.push(write_entries(snap, hits, req.raw_record, helpers, b"").unwrap());
                e.close();
            }
            let v: Value = serde_json::from_slice(&texts[0]).unwrap();
            assert!(v.as_array().unwrap().len() > PARALLEL_ENTRIES);
            assert!(texts[1] == texts[0] && texts[2] == texts[0], "{} {}", q, raw);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
