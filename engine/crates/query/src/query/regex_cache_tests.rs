use super::*;

fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm.split_whitespace().nth(1).and_then(|v| v.parse().ok()).unwrap_or(0);
    pages * 4096
}

/// The largest `\w{k}` (Unicode word class, the costliest common class) that still
/// compiles under `MAX_REGEX_COMPILED_BYTES`, found by bisection.
fn largest_repeat(prefix: &str) -> usize {
    let (mut lo, mut hi) = (1usize, 4096usize);
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if build_regex(&format!("{prefix}\\w{{{mid}}}"), true, MAX_REGEX_COMPILED_BYTES).is_ok() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Fill the cache with the largest patterns a user may send and check
/// that what stays resident is bounded by the byte budget, not by 256 × the size limit.
/// The resident set is the process's, so the measurement runs in a process of its own
/// (`regex_cache_worst_case_alone`): beside the other tests of this binary, running on
/// other threads, their allocations would count too and fail it on a loaded machine.
#[test]
fn regex_cache_worst_case_is_bounded_by_bytes() {
    let name = "query::regex_cache_tests::regex_cache_worst_case_alone";
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--ignored", "--nocapture", "--test-threads", "1"])
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    print!("{text}");
    assert!(out.status.success(), "{name} failed in its own process");
    assert!(text.contains("1 passed"), "{name} did not run");
}

/// The measurement of `regex_cache_worst_case_is_bounded_by_bytes`, alone in its process.
#[test]
#[ignore = "run in a process of its own by regex_cache_worst_case_is_bounded_by_bytes"]
fn regex_cache_worst_case_alone() {
    let k = largest_repeat("p000");
    let before = resident_bytes();
    let mut charged_max = 0usize;
    for i in 0..REGEX_CACHE_ENTRIES {
        let src = format!("p{i:03}\\w{{{k}}}");
        assert!(src.chars().count() <= MAX_QUERY_CHARS);
        let re = compile_regex(&src, true).expect("largest allowed pattern compiles");
        assert!(re.is_match(format!("p{i:03}{}", "a".repeat(k)).as_bytes()));
        drop(re);
        charged_max = charged_max.max(regex_cache_usage().1);
    }
    let after = resident_bytes();
    let (entries, bytes) = regex_cache_usage();
    let grown = after.saturating_sub(before);
    println!(
        "regex cache worst case: {REGEX_CACHE_ENTRIES} patterns \\w{{{k}}} (case-insensitive) inserted; cache holds {entries} entries charged {:.1} MiB (max {:.1} MiB, budget {:.1} MiB); resident {:.1} MiB before, {:.1} MiB after (+{:.1} MiB)",
        bytes as f64 / 1048576.0,
        charged_max as f64 / 1048576.0,
        REGEX_CACHE_BYTES as f64 / 1048576.0,
        before as f64 / 1048576.0,
        after as f64 / 1048576.0,
        grown as f64 / 1048576.0,
    );
    assert!(charged_max <= REGEX_CACHE_BYTES);
    // 32 MiB budget plus room for the allocator's own pages; unbounded, 256 such patterns
    // keep several hundred MiB resident.
    assert!(grown <= 96 << 20, "regex cache grew the resident set by {grown} bytes");
}

#[test]
fn regex_cache_evicts_least_recently_used() {
    let keep = "lru_keep_[a-z]+[0-9]{2}";
    let keep_re = compile_regex(keep, false).unwrap();
    for i in 0..(REGEX_CACHE_ENTRIES + 50) {
        compile_regex(&format!("lru_other_{i}_[a-z]+"), false).unwrap();
        compile_regex(keep, false).unwrap(); // touched: most recently used
    }
    let c = REGEX_CACHE.lock().unwrap();
    let c = c.as_ref().unwrap();
    assert!(c.map.len() <= REGEX_CACHE_ENTRIES);
    assert!(c.bytes <= REGEX_CACHE_BYTES);
    assert!(c.map.contains_key(&(keep.to_string(), false)), "the entry in use was evicted");
    assert!(!c.map.contains_key(&("lru_other_0_[a-z]+".to_string(), false)), "the oldest entry was kept");
    assert_eq!(c.map.values().map(|e| e.bytes).sum::<usize>(), c.bytes);
    assert!(keep_re.is_match(b"lru_keep_abc12"));
}

#[test]
fn regex_sizes_are_charged_from_the_compiled_size() {
    let (_, small) = compile_sized("abc[0-9]+", false).unwrap();
    let (_, big) = compile_sized(&format!("q\\w{{{}}}", largest_repeat("q")), true).unwrap();
    assert!(small <= 3 * (16 << 10), "small regex charged {small}");
    assert!(big > 3 * (MAX_REGEX_COMPILED_BYTES / 2), "largest regex charged only {big}");
    assert!(matches!(compile_sized("a(", false), Err(_)));
}
