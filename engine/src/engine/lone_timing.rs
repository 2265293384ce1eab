use super::*;
use serde_json::json;

/// Where a lone exact lookup's time goes (`searchReply` on the calling thread, BENCHMARKS.md
/// "paced one-hit searches"): its request decoded, its query parsed and planned, run (count
/// and page), its entries written, the reply closed; medians of 1,000 back to back and of 60
/// with 100 ms of sleep before each (as a client paced at 10 a second: cold caches).
///
/// `LEAKWELL_INDEX=dir LEAKWELL_EMAILS='a@example.com b@example.com' cargo test --release
/// lone_stages -- --ignored --nocapture` (with the offline cargo config of ARCHITECTURE.md
/// "Build"; emails the index holds).
#[test]
#[ignore]
fn lone_stages() {
    let dir = std::env::var("LEAKWELL_INDEX").expect("LEAKWELL_INDEX");
    let emails: Vec<String> = std::env::var("LEAKWELL_EMAILS")
        .expect("LEAKWELL_EMAILS")
        .split_whitespace()
        .map(String::from)
        .collect();
    let e = Engine::open(Path::new(&dir)).unwrap();
    while crate::store::stores_mapping() > 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let run = |i: usize| -> [u128; 5] {
        let search = json!({
            "query": format!("email:\"{}\"", emails[i % emails.len()]), "mode": "exact", "page": 1, "size": 20, "maxWindow": 10_000, "dedup": false,
            "timeBudgetMs": 5_000, "type": "all", "countCache": true, "rawRecord": "omit", "oneTerm": false,
        });
        let arg = json!({ "balance": 5, "search": search }).to_string();
        let t0 = Instant::now();
        let args: crate::contract::SearchReplyArgs = serde_json::from_str(&arg).unwrap();
        let req = SearchRequest::from_args(args.search).unwrap();
        let t1 = t0.elapsed().as_nanos();
        let prepared = e.prepare(&req).unwrap();
        let t2 = t0.elapsed().as_nanos();
        let (total, hits, _, snap) = e.run_planned(&req, prepared.0, prepared.1, t0).unwrap();
        let t3 = t0.elapsed().as_nanos();
        let out = write_entries(snap, hits, req.raw_record, 0, &render::reply_head(5)).unwrap();
        let t4 = t0.elapsed().as_nanos();
        let bytes = render::reply_end(out, 1, total);
        let t5 = t0.elapsed().as_nanos();
        assert!(bytes.len() > 10);
        [t1, t2 - t1, t3 - t2, t4 - t3, t5 - t4]
    };
    for i in 0..200 {
        run(i);
    }
    let med = |v: &mut Vec<[u128; 5]>, k: usize| {
        let mut x: Vec<u128> = v.iter().map(|a| a[k]).collect();
        x.sort();
        x[x.len() / 2] as f64 / 1000.0
    };
    let mut warm: Vec<[u128; 5]> = (0..1000).map(|i| run(i)).collect();
    let mut cold: Vec<[u128; 5]> = (0..60)
        .map(|i| {
            std::thread::sleep(Duration::from_millis(100));
            run(i)
        })
        .collect();
    for (name, v) in [("warm", &mut warm), ("cold", &mut cold)] {
        let tot: Vec<u128> = v.iter().map(|a| a.iter().sum()).collect();
        let mut t = tot.clone();
        t.sort();
        println!(
            "{name}: json {:.1} prepare {:.1} run {:.1} write {:.1} end {:.1} µs; total p50 {:.1}",
            med(v, 0),
            med(v, 1),
            med(v, 2),
            med(v, 3),
            med(v, 4),
            t[t.len() / 2] as f64 / 1000.0
        );
    }
}
