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

/// One exact term with the count cache: a part whose count is remembered is read only as far
/// as the page, the rest counted from memory. Every page, with and without dedup, before
/// and after a removal, is the page (ids and total) the same search gives without the cache.
#[test]
fn pages_of_one_term_with_remembered_counts_equal_the_pages_without() {
    let dir = crate::test_dir("count-cache-pages");
    // 3,000 records in parts of 400: a domain in four of five, every tenth record twice.
    let mut lines = Vec::new();
    for i in 0..2700 {
        let host = if i % 5 == 0 { "other.example" } else { "big.example" };
        lines.push(format!("{{\"email\":\"u{}@{}\",\"password\":\"pw{}\"}}", i, host, i % 7));
        if i % 10 == 0 {
            lines.push(lines.last().unwrap().clone());
        }
    }
    super::test_ingest::ingest_lines(&dir, "a", "W", &lines, 400);
    let e = Engine::open(&dir.join("index")).unwrap();
    let ids = |r: &SearchReply| r.entries.iter().map(|x| x["id"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    let compare = |e: &Engine, round: &str| {
        for (q, mode) in [("email:*@big.example", "wildcard"), ("domain:big.example", "exact"), ("password:pw3", "exact")] {
            for dedup in [false, true] {
                for page in [1u64, 2, 17, 40, 200] {
                    let plain = e.search(&SearchRequest::with_defaults(&json!({ "query": q, "mode": mode, "dedup": dedup, "page": page, "size": 20, "countCache": false })).unwrap()).unwrap();
                    let mut cached = SearchRequest::with_defaults(&json!({ "query": q, "mode": mode, "dedup": dedup, "page": page, "size": 20 })).unwrap();
                    // Every part's count remembered, however quickly it was counted.
                    cached.count_cache = Some(0);
                    for run in 0..2 {
                        let r = e.search(&cached).unwrap();
                        assert_eq!((r.total, ids(&r)), (plain.total, ids(&plain)), "{} {} dedup {} page {} run {}", round, q, dedup, page, run);
                    }
                }
            }
        }
    };
    compare(&e, "before");
    let first = e.search(&SearchRequest::with_defaults(&json!({ "query": "email:*@big.example", "mode": "wildcard", "size": 1, "countCache": false })).unwrap()).unwrap();
    assert!(e.remove(first.entries[0]["id"].as_str().unwrap()).unwrap());
    compare(&e, "after a removal");
    e.close();
    let _ = std::fs::remove_dir_all(&dir);
}
