use super::*;
use serde_json::json;

use crate::cpu_clock::{process as process_cpu, thread as cpu};

fn minflt() -> i64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // Safety: a valid rusage for the call to fill.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut ru) };
    ru.ru_minflt
}

/// `LEAKWELL_INDEX=dir LEAKWELL_QUERIES='password:"123456";password:"password"'
/// [LEAKWELL_COLD_MODE=plain|touch|load] [LEAKWELL_HELPERS=n] cargo test --release
/// cold_page -- --ignored --nocapture`: each query's first (cold) `search_text` in this
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
    while crate::store::stores_mapping() > 0 {
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
