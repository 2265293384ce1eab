//! Measurements of a search's stages on an index given in the environment: ignored tests,
//! run by hand with `--ignored --nocapture` (engine/BENCHMARKS.md shows how and what they
//! found). They time the engine's own stages, so they read its measurement hooks
//! (`Engine::run_search`, `fetch_each`, `write_entries`), public but hidden for them.

use leakwell_format::cpu_clock::{process as process_cpu, thread as cpu};
use leakwell_format::store::stores_mapping;
use leakwell_query::engine::{fetch_each, write_entries, Engine};
use leakwell_query::render;
use leakwell_query::request::SearchRequest;
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

/// `LEAKWELL_INDEX=dir LEAKWELL_QUERY='email:*@gmail.com' cargo test --release -p leakwell-query
/// --test timing page_timing -- --ignored --nocapture`: the time of a page of 10,000 split into search and fetch.
#[test]
#[ignore]
fn page_timing() {
    let dir = std::env::var("LEAKWELL_INDEX").expect("LEAKWELL_INDEX");
    let q = std::env::var("LEAKWELL_QUERY").expect("LEAKWELL_QUERY");
    let e = Engine::open(Path::new(&dir)).unwrap();
    let req = SearchRequest::with_defaults(&json!({ "query": q, "mode": if q.contains('*') { "wildcard" } else { "exact" }, "size": 10000, "countCache": false, "rawRecord": "omit" })).unwrap();
    let reps: usize = std::env::var("LEAKWELL_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(5);
    for _ in 0..reps {
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

fn minflt() -> i64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // Safety: a valid rusage for the call to fill.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    ru.ru_minflt
}

/// `LEAKWELL_INDEX=dir LEAKWELL_QUERIES='password:"123456";password:"password"'
/// [LEAKWELL_COLD_MODE=plain|touch|load] [LEAKWELL_HELPERS=n] cargo test --release -p
/// leakwell-query --test timing cold_page -- --ignored --nocapture`: each query's first (cold) `search_text` in this
/// process, then a warm one, with the caller's and the process's CPU time (helpers
/// included); `touch` first reads the first and last byte of the page's frames (the
/// page faults alone), `load` also decompresses its blocks once without caching them;
/// LEAKWELL_HELPERS writes the page with that many helper threads instead of the default;
/// LEAKWELL_NO_WARM skips the warm run (for `valgrind --tool=callgrind
/// --toggle-collect='*write_entries*'`: the instructions of the cold page alone).
#[test]
#[ignore]
fn cold_page() {
    let dir = std::env::var("LEAKWELL_INDEX").expect("LEAKWELL_INDEX");
    let qs = std::env::var("LEAKWELL_QUERIES").expect("LEAKWELL_QUERIES");
    let mode = std::env::var("LEAKWELL_COLD_MODE").unwrap_or_else(|_| "plain".into());
    let (t, p0) = (Instant::now(), process_cpu());
    let e = Engine::open(Path::new(&dir)).unwrap();
    // The stores mapped in by the background thread first (as a server's would be).
    while stores_mapping() > 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    println!("open and map-in {:?} (process CPU {:?})", t.elapsed(), process_cpu() - p0);
    for q in qs.split(';') {
        let req = SearchRequest::with_defaults(&json!({ "query": q, "mode": if q.contains('*') { "wildcard" } else { "exact" }, "size": 10000, "countCache": false, "rawRecord": "omit" })).unwrap();
        let (_, hits, _, snap) = e.run_search(&req).unwrap();
        let mut blocks: Vec<(usize, usize, usize)> = hits.iter().map(|&(si, pi, d)| (si, pi, snap.segments[si].parts[pi].store.block_of(d))).collect();
        blocks.dedup();
        let mut pre = String::new();
        if mode == "touch" || mode == "load" {
            let (c0, f0, t) = (cpu(), minflt(), Instant::now());
            let mut x = 0u8;
            for &(si, pi, b) in &blocks {
                let f = snap.segments[si].parts[pi].store.stored(b).0;
                x ^= unsafe { std::ptr::read_volatile(&f[0]) } ^ unsafe { std::ptr::read_volatile(&f[f.len() - 1]) };
            }
            std::hint::black_box(x);
            pre += &format!(" touch {:?} (cpu {:?}, {} faults)", t.elapsed(), cpu() - c0, minflt() - f0);
        }
        if mode == "load" {
            let (c0, t) = (cpu(), Instant::now());
            for &(si, pi, b) in &blocks {
                std::hint::black_box(snap.segments[si].parts[pi].store.load(b).unwrap());
            }
            pre += &format!(" load {:?} (cpu {:?})", t.elapsed(), cpu() - c0);
        }
        // LEAKWELL_HELPERS: that many helper threads instead of the default.
        // The reply's first line; its buffer is given back as `napi.rs` does.
        let run = || {
            let text = match std::env::var("LEAKWELL_HELPERS").ok().and_then(|h| h.parse().ok()) {
                Some(h) => {
                    let t0 = Instant::now();
                    let (total, hits, _, snap) = e.run_search(&req).unwrap();
                    let out = write_entries(snap, hits, req.raw_record, h, b"").unwrap();
                    render::search_text(total, t0, out).unwrap()
                }
                None => e.search_text(&req).unwrap(),
            };
            let head = text[..text.find('\n').unwrap()].to_string();
            render::give_back(text.into_bytes());
            head
        };
        let (c0, p0, f0, t) = (cpu(), process_cpu(), minflt(), Instant::now());
        let text = run();
        let (wall, c, p, f) = (t.elapsed(), cpu() - c0, process_cpu() - p0, minflt() - f0);
        let took = &text;
        if std::env::var("LEAKWELL_NO_WARM").is_ok() {
            println!("{} hits {} blocks {}{} | cold {} wall {} ms, CPU {} ms caller / {} ms process, {} faults", q, hits.len(), blocks.len(), pre, took, wall.as_secs_f64() * 1e3, c.as_secs_f64() * 1e3, p.as_secs_f64() * 1e3, f);
            continue;
        }
        let (c1, p1, f1, t) = (cpu(), process_cpu(), minflt(), Instant::now());
        let text2 = run();
        let (wall2, c2, p2, f2) = (t.elapsed(), cpu() - c1, process_cpu() - p1, minflt() - f1);
        let ms = |d: Duration| format!("{:.1}", d.as_secs_f64() * 1e3);
        println!("{} hits {} blocks {}{} | cold {} wall {} ms, CPU {} ms caller / {} ms process, {} faults | warm {} wall {} ms, CPU {} / {} ms, {} faults", q, hits.len(), blocks.len(), pre, took, ms(wall), ms(c), ms(p), f, &text2, ms(wall2), ms(c2), ms(p2), f2);
    }
}

/// Where a lone exact lookup's time goes (`searchReply` on the calling thread, BENCHMARKS.md
/// "paced one-hit searches"): its request decoded, its query parsed and planned, run (count
/// and page), its entries written, the reply closed; medians of 1,000 back to back and of 60
/// with 100 ms of sleep before each (as a client paced at 10 a second: cold caches).
///
/// `LEAKWELL_INDEX=dir LEAKWELL_EMAILS='a@example.com b@example.com' cargo test --release -p
/// leakwell-query --test timing lone_stages -- --ignored --nocapture` (with the offline cargo config of ARCHITECTURE.md
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
    while stores_mapping() > 0 {
        std::thread::sleep(Duration::from_millis(1));
    }
    let run = |i: usize| -> [u128; 5] {
        let search = json!({
            "query": format!("email:\"{}\"", emails[i % emails.len()]), "mode": "exact", "page": 1, "size": 20, "maxWindow": 10_000, "dedup": false,
            "timeBudgetMs": 5_000, "type": "all", "countCache": true, "rawRecord": "omit", "oneTerm": false,
        });
        let arg = json!({ "balance": 5, "search": search }).to_string();
        let t0 = Instant::now();
        let args: leakwell_contract::SearchReplyArgs = serde_json::from_str(&arg).unwrap();
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
