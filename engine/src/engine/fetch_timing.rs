use super::*;
use serde_json::json;

/// `LEAKWELL_INDEX=dir LEAKWELL_QUERY='email:*@gmail.com' cargo test --release fetch_timing
/// -- --ignored --nocapture`: the time of a page of 10,000 split into search and fetch.
#[test]
#[ignore]
fn page_timing() {
    let dir = std::env::var("LEAKWELL_INDEX").expect("LEAKWELL_INDEX");
    let q = std::env::var("LEAKWELL_QUERY").expect("LEAKWELL_QUERY");
    let e = Engine::open(Path::new(&dir)).unwrap();
    let req = SearchRequest::with_defaults(&json!({ "query": q, "mode": if q.contains('*') { "wildcard" } else { "exact" }, "size": 10000, "countCache": false, "rawRecord": "omit" })).unwrap();
    let reps: usize = std::env::var("LEAKWELL_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    for _ in 0..reps {
        let cpu = crate::cpu_clock::thread;
        let c0 = cpu();
        let t = Instant::now();
        let (total, hits, _, snap) = e.run_search(&req).unwrap();
        let t1 = t.elapsed();
        let mut n = 0usize;
        fetch_each(&snap, &hits, |_, _, _, _, line| n += line.bytes().len()).unwrap();
        let t2 = t.elapsed();
        let text = e.search_text(&req).unwrap();
        let t3 = t.elapsed();
        let c3 = cpu() - c0;
        println!("total {} hits {} search {:?} fetch-only {:?} search_text {:?} ({} bytes); thread CPU of all three {:?}", total, hits.len(), t1, t2 - t1, t3 - t2, text.len(), c3);
    }
}
