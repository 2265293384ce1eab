use super::*;

fn temp(name: &str) -> PathBuf {
    crate::test_dir(&format!("store-{}", name))
}

fn lines(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("user{}@mail{}.example:pass{}word{}", i, i % 17, i * 7919 % 1000, "x".repeat(i % 40))).collect()
}

#[test]
fn blocks_hold_every_record_with_and_without_a_dictionary() {
    let dir = temp("roundtrip");
    let lines = lines(5000);
    for sample in [SAMPLE_BYTES, 16 << 10, 0] {
        let mut w = StoreWriter::create_with(&dir, BLOCK_BYTES, sample).unwrap();
        for (i, l) in lines.iter().enumerate() {
            w.add((i % 3) as u16, l).unwrap();
        }
        w.finish().unwrap();
        let r = StoreReader::open(&dir).unwrap();
        // A dictionary for the run (5000 lines of ~45 bytes: past MIN_SAMPLES), trained
        // on every line or on the first 16 KiB of them.
        assert_eq!(r.dictionaries(), if sample == 0 { 0 } else { 1 }, "sample {}", sample);
        assert!(r.blocks() > 100);
        for (i, l) in lines.iter().enumerate() {
            let b = r.load(r.block_of(i as u32)).unwrap();
            assert_eq!(b.record(i as u32).unwrap(), ((i % 3) as u16, l.as_bytes()));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn copied_runs_keep_their_dictionaries_and_shift_contexts() {
    let (a, b, m) = (temp("copy-a"), temp("copy-b"), temp("copy-m"));
    let la = lines(3000);
    let lb: Vec<String> = lines(1000).iter().map(|l| format!("{{\"other\":\"{}\"}}", l)).collect();
    for (dir, ls) in [(&a, &la), (&b, &lb)] {
        let mut w = StoreWriter::create(dir).unwrap();
        for l in ls.iter() {
            w.add(1, l).unwrap();
        }
        w.finish().unwrap();
    }
    let (ra, rb) = (StoreReader::open(&a).unwrap(), StoreReader::open(&b).unwrap());
    let mut w = StoreWriter::create(&m).unwrap();
    w.copy_from(&ra, 0).unwrap();
    w.copy_from(&rb, 5).unwrap();
    w.copy_from(&ra, 9).unwrap();
    w.finish().unwrap();
    // Nothing decompressed: the blocks were copied.
    assert_eq!(ra.loads() + rb.loads(), 0);
    let dat = |d: &Path| std::fs::metadata(d.join("store.dat")).unwrap().len();
    assert_eq!(dat(&m), 2 * dat(&a) + dat(&b));
    let r = StoreReader::open(&m).unwrap();
    assert_eq!(r.dictionaries(), 3);
    let want: Vec<(u16, &String)> = la.iter().map(|l| (1, l)).chain(lb.iter().map(|l| (6, l))).chain(la.iter().map(|l| (10, l))).collect();
    for (d, (ctx, l)) in want.iter().enumerate() {
        let blk = r.load(r.block_of(d as u32)).unwrap();
        assert_eq!(blk.record(d as u32).unwrap(), (*ctx, l.as_bytes()), "doc {}", d);
    }
    for d in [&a, &b, &m] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// Format 7 blocks (varint lengths, one context when all are equal) and format 4-6
/// blocks (u32 ends) in one store, as a merge of old and new parts writes it; lines of
/// one- to three-byte varint lengths and blocks of mixed contexts.
#[test]
fn format_4_and_7_blocks_read_alike() {
    let (old, new, m) = (temp("v4-old"), temp("v7-new"), temp("v47-merged"));
    let mut ls = lines(3000);
    for (i, n) in [(10usize, 0usize), (11, 127), (12, 128), (500, 16383), (501, 16384), (2000, 70_000)] {
        ls[i] = "y".repeat(n);
    }
    // Contexts: runs of one (ONE_CTX blocks) and alternating ones.
    let ctx = |i: usize| if (1000..1400).contains(&i) { (i % 3) as u16 } else { 2 };
    for (dir, v4) in [(&old, true), (&new, false)] {
        let mut w = StoreWriter::create(dir).unwrap();
        w.v4_blocks = v4;
        w.v7_map = Some(Vec::new());
        for (i, l) in ls.iter().enumerate() {
            w.add(ctx(i), l).unwrap();
        }
        w.finish().unwrap();
    }
    let size = |d: &Path| std::fs::metadata(d.join("store.dat")).unwrap().len();
    assert!(size(&new) < size(&old), "{} {}", size(&new), size(&old));
    let (ro, rn) = (StoreReader::open(&old).unwrap(), StoreReader::open(&new).unwrap());
    let mut w = StoreWriter::create(&m).unwrap();
    w.v7_map = Some(Vec::new());
    w.copy_from(&ro, 0).unwrap();
    w.copy_from(&rn, 4).unwrap();
    w.finish().unwrap();
    let r = StoreReader::open(&m).unwrap();
    let n = ls.len();
    for d in 0..2 * n {
        let blk = r.load(r.block_of(d as u32)).unwrap();
        let want = (ctx(d % n) + if d < n { 0 } else { 4 }, ls[d % n].as_bytes());
        assert_eq!(blk.record(d as u32).unwrap(), want, "doc {}", d);
    }
    // A block whose lengths run past its data, or whose count disagrees with the map.
    let mut b = OpenBlock::default();
    for l in ["ab", "cde"] {
        b.ctx.push(0);
        b.lines.extend_from_slice(l.as_bytes());
        b.ends.push(b.lines.len() as u32);
    }
    let mut raw = Vec::new();
    b.encode(&mut raw);
    assert_eq!(Block::v4(raw.clone(), 0, 2, 0).unwrap().record(1).unwrap(), (0, &b"cde"[..]));
    assert!(Block::v4(raw.clone(), 0, 3, 0).is_err());
    assert!(Block::v4(raw[..raw.len() - 1].to_vec(), 0, 2, 0).is_err());
    for d in [&old, &new, &m] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A store in `temp(name)` of `lines(n)`, context `ctx`.
fn written(name: &str, n: usize, ctx: u16) -> PathBuf {
    let dir = temp(name);
    let mut w = StoreWriter::create(&dir).unwrap();
    for l in lines(n) {
        w.add(ctx, &l).unwrap();
    }
    w.finish().unwrap();
    dir
}

#[test]
fn the_block_cache_takes_each_block_once_within_its_bound() {
    let dir = written("cache", 20_000, 0);
    let r = StoreReader::open(&dir).unwrap();
    let c = cache();
    let limit = c.limit();
    // Another test may use the cache meanwhile: the bound holds whatever they do.
    c.set_limit(256 << 10);
    for b in 0..r.blocks() {
        r.block(b).unwrap();
        assert!(c.bytes() <= 256 << 10);
    }
    assert_eq!(r.loads(), r.blocks() as u64);
    // The most recent block is still there: no second decompression.
    let last = r.blocks() - 1;
    r.block(last).unwrap();
    assert_eq!(r.loads(), r.blocks() as u64);
    // Off: every take decompresses.
    c.set_limit(0);
    r.block(last).unwrap();
    r.block(last).unwrap();
    assert_eq!(r.loads(), r.blocks() as u64 + 2);
    c.set_limit(limit);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Format 8 stores keep each frame's one compressed zstd block without the frame (10
/// bytes a block less here) and a grouped block map; frames that are not one compressed
/// block (a block over 128 KiB) stay whole. Old stores (16-byte map entries, frames)
/// merged with new ones read the same, their frames cut to bare blocks as they are copied.
#[test]
fn format_8_bare_blocks_read_as_format_7_frames() {
    let (old, new, m, m7) = (temp("v8-old"), temp("v8-new"), temp("v8-merged"), temp("v8-merged7"));
    let mut ls = lines(6000);
    for (i, n) in [(10usize, 0usize), (300, 70_000), (301, 200_000), (4000, 150_000)] {
        ls[i] = format!("{}{}", i, "z".repeat(n));
    }
    let ctx = |i: usize| (i / 1000) as u16;
    for (dir, v7) in [(&old, true), (&new, false)] {
        let mut w = StoreWriter::create(dir).unwrap();
        w.v7_map = v7.then(Vec::new);
        for (i, l) in ls.iter().enumerate() {
            w.add(ctx(i), l).unwrap();
        }
        w.finish().unwrap();
    }
    let size = |d: &Path, f: &str| std::fs::metadata(d.join(f)).unwrap().len();
    let (ro, rn) = (StoreReader::open(&old).unwrap(), StoreReader::open(&new).unwrap());
    assert_eq!(ro.blocks(), rn.blocks());
    let bare = |r: &StoreReader| (0..r.blocks()).filter(|&b| r.stored(b).1).count();
    // Two blocks of more than 128 KiB: frames of several zstd blocks, kept whole.
    assert_eq!((bare(&ro), bare(&rn)), (0, rn.blocks() - 2));
    // Each bare block is its old frame's block, 9-12 bytes less (frame and block headers).
    for b in 0..rn.blocks() {
        let (o, n) = (ro.stored(b).0, rn.stored(b));
        assert_eq!(if n.1 { zstd_block::frame_block(o) } else { Some(o) }, Some(n.0), "block {}", b);
        assert!(!n.1 || (9..=12).contains(&(o.len() - n.0.len())));
    }
    assert!(size(&new, "store.map") * 3 < size(&old, "store.map"), "{} {}", size(&new, "store.map"), size(&old, "store.map"));
    assert_eq!(&std::fs::read(new.join("store.map")).unwrap()[..4], b"LWM8");
    let mut w = StoreWriter::create(&m).unwrap();
    w.copy_from(&ro, 0).unwrap();
    w.copy_from(&rn, 10).unwrap();
    w.copy_from(&ro, 20).unwrap();
    w.finish().unwrap();
    // A format 7 map cannot name a bare block.
    let mut w = StoreWriter::create(&m7).unwrap();
    w.v7_map = Some(Vec::new());
    assert!(w.copy_from(&rn, 0).is_err());
    // Merged as format 8, the old frames are cut too: bare but for the four large ones.
    let r = StoreReader::open(&m).unwrap();
    assert_eq!((r.blocks(), bare(&r), r.dictionaries()), (3 * rn.blocks(), 3 * rn.blocks() - 6, 3));
    assert_eq!(size(&m, "store.dat"), 3 * size(&new, "store.dat"));
    let loads = ro.loads() + rn.loads();
    for r in [&ro, &rn, &StoreReader::open(&m).unwrap()] {
        let n = ls.len() * r.blocks() / rn.blocks();
        for d in 0..n {
            let want = (ctx(d % ls.len()) + 10 * (d / ls.len()) as u16, ls[d % ls.len()].as_bytes());
            assert_eq!(r.load(r.block_of(d as u32)).unwrap().record(d as u32).unwrap(), want, "doc {}", d);
            assert_eq!(r.block_holding(d as u32).unwrap().record(d as u32).unwrap(), want, "doc {}", d);
        }
        // Past the last document: its last block, which does not hold it.
        assert_eq!(r.block_of(n as u32 + 5), r.blocks() - 1);
        assert!(r.block_holding(n as u32).unwrap().record(n as u32).is_err());
    }
    // Nothing was decompressed to merge.
    assert_eq!(loads, 0);
    for d in [&old, &new, &m, &m7] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A block, bare or a whole frame (format 7), decodes the same in its dictionary's
/// window (the dictionary as the start of the buffer) and, while other threads hold
/// every window, in the thread's scratch buffer (the dictionary apart).
#[test]
fn blocks_decode_alike_in_the_window_and_beside_it() {
    let (v8, v7) = (written("v8-window", 8000, 3), temp("v7-window"));
    let mut w = StoreWriter::create(&v7).unwrap();
    w.v7_map = Some(Vec::new());
    for l in lines(8000) {
        w.add(3, &l).unwrap();
    }
    w.finish().unwrap();
    for dir in [&v8, &v7] {
        let r = StoreReader::open(dir).unwrap();
        let dicts = &r.dicts;
        assert_eq!(dicts.len(), 1);
        for b in 0..r.blocks() {
            let in_window = r.load(b).unwrap();
            let (beside, held) = {
                let held = dicts[0].0.hold_windows();
                (r.load(b).unwrap(), held.len())
            };
            assert!(!in_window.data.is_empty());
            assert_eq!(in_window.data, beside.data, "block {}", b);
            // Every window was made to be held; then one was free again.
            assert_eq!((held, dicts[0].0.windows()), (4, 4));
        }
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A format 8 map that disagrees with itself or with store.dat is refused when opened.
#[test]
fn format_8_maps_are_checked_when_opened() {
    let dir = written("v8-corrupt", 5000, 1);
    let map = std::fs::read(dir.join("store.map")).unwrap();
    let r = StoreReader::open(&dir).unwrap();
    assert!(r.blocks() > 2 * GROUP_BLOCKS);
    let groups = MAP8_HEAD + MAP8_RUN;
    let entries = groups + (r.blocks().div_ceil(GROUP_BLOCKS) + 1) * MAP8_GROUP;
    drop(r);
    let broken: Vec<(&str, Vec<u8>)> = vec![
        ("truncated", map[..map.len() - 1].to_vec()),
        ("a group's offset", { let mut m = map.clone(); m[groups + MAP8_GROUP] ^= 1; m }),
        ("a group's first document", { let mut m = map.clone(); m[groups + MAP8_GROUP + 8] ^= 1; m }),
        ("a record count", { let mut m = map.clone(); m[entries] += 1; m }),
        ("a length", { let mut m = map.clone(); m[entries + 1] ^= 1; m }),
        ("the block count", { let mut m = map.clone(); m[4] += 1; m }),
        ("the group size", { let mut m = map.clone(); m[12] += 1; m }),
        ("a dictionary", { let mut m = map.clone(); m[MAP8_HEAD + 6] = 3; m }),
    ];
    for (what, bytes) in broken {
        std::fs::write(dir.join("store.map"), &bytes).unwrap();
        assert!(matches!(StoreReader::open(&dir), Err(EngineError::Corrupt(_))), "{}", what);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Store choices on real lines: `LEAKWELL_STORE_SAMPLE=file1,file2 cargo test --release
/// store_choices -- --ignored --nocapture` prints, per block size with and without a
/// dictionary, bytes per record, write time per record, and the time to decompress the
/// block of a random document (uncached).
#[test]
#[ignore]
fn store_choices() {
    let files = std::env::var("LEAKWELL_STORE_SAMPLE").expect("LEAKWELL_STORE_SAMPLE");
    for file in files.split(',') {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().take(500_000).collect();
        println!("{}: {} lines, {:.1} bytes/line", file, lines.len(), lines.iter().map(|l| l.len()).sum::<usize>() as f64 / lines.len() as f64);
        let dir = temp("choices");
        for (bb, sample) in [(4096usize, 0usize), (1024, 0), (256, SAMPLE_BYTES), (512, SAMPLE_BYTES), (1024, SAMPLE_BYTES), (2048, SAMPLE_BYTES), (4096, SAMPLE_BYTES), (1024, 128 << 10), (1024, 256 << 10), (512, 256 << 10)] {
            let t = std::time::Instant::now();
            let mut w = StoreWriter::create_with(&dir, bb, sample).unwrap();
            for l in &lines {
                w.add(0, l).unwrap();
            }
            let bytes = w.finish().unwrap();
            let write_ns = t.elapsed().as_nanos() as f64 / lines.len() as f64;
            let r = StoreReader::open(&dir).unwrap();
            let mut x = 12345u64;
            let n = 20_000;
            let t = std::time::Instant::now();
            for _ in 0..n {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let d = ((x >> 33) % lines.len() as u64) as u32;
                let b = r.load(r.block_of(d)).unwrap();
                assert_eq!(b.record(d).unwrap().1, lines[d as usize].as_bytes());
            }
            let fetch_ns = t.elapsed().as_nanos() as f64 / n as f64;
            println!("  block {:>5} B, dictionary sample {:>4} KiB: {:>6.1} bytes/record, {} blocks, write {:>5.0} ns/record, random fetch {:>6.0} ns", bb, sample >> 10, bytes as f64 / lines.len() as f64, r.blocks(), write_ns, fetch_ns);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Thread CPU nanoseconds to decompress one of `n` random blocks of `r` (uncached; the
/// frames faulted in first so that only the decompression is timed): the measurement
/// tests' "random block load".
fn random_block_load_ns(r: &StoreReader, n: usize) -> f64 {
    let cpu = crate::cpu_clock::thread;
    let mut x = 12345u64;
    let picks: Vec<usize> = (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 33) % r.blocks() as u64) as usize
        })
        .collect();
    for &b in &picks {
        std::hint::black_box(r.stored(b).0[0]);
    }
    let c = cpu();
    for &b in &picks {
        std::hint::black_box(r.load(b).unwrap());
    }
    (cpu() - c).as_nanos() as f64 / n as f64
}

/// zstd levels on real lines: `LEAKWELL_STORE_SAMPLE=file1,file2 [LEAKWELL_LEVELS=3,9]
/// [LEAKWELL_BLOCK=512] cargo test --release level_choices -- --ignored --nocapture`
/// prints, per level (1 KiB blocks or LEAKWELL_BLOCK, dictionary),
/// bytes per record, write CPU per record and the CPU to decompress a random block.
#[test]
#[ignore]
fn level_choices() {
    let cpu = crate::cpu_clock::thread;
    let files = std::env::var("LEAKWELL_STORE_SAMPLE").expect("LEAKWELL_STORE_SAMPLE");
    let block: usize = std::env::var("LEAKWELL_BLOCK").ok().and_then(|v| v.parse().ok()).unwrap_or(BLOCK_BYTES);
    let levels: Vec<i32> = std::env::var("LEAKWELL_LEVELS").unwrap_or_else(|_| "3,6,9,12,19".into()).split(',').map(|l| l.parse().unwrap()).collect();
    for file in files.split(',') {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().take(200_000).collect();
        println!("{}: {} lines, {:.1} bytes/line", file, lines.len(), lines.iter().map(|l| l.len()).sum::<usize>() as f64 / lines.len() as f64);
        let dir = temp("levels");
        for &level in &levels {
            let t = cpu();
            let mut w = StoreWriter::create_level(&dir, block, SAMPLE_BYTES, level).unwrap();
            for l in &lines {
                w.add(0, l).unwrap();
            }
            let bytes = w.finish().unwrap();
            let write_ns = (cpu() - t).as_nanos() as f64 / lines.len() as f64;
            let r = StoreReader::open(&dir).unwrap();
            let fetch_ns = random_block_load_ns(&r, 20_000);
            println!("  level {:>2}: {:>6.2} bytes/record, write {:>5.0} ns/record, random block load {:>5.0} ns (thread CPU)", level, bytes as f64 / lines.len() as f64, write_ns, fetch_ns);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Compression parameters on real lines: `LEAKWELL_STORE_SAMPLE=a.csv,b.txt
/// LEAKWELL_PARAMS=3,3/btopt/2/3/16 cargo test --release param_choices -- --ignored
/// --nocapture`: each choice `level[/strategy/searchLog/minMatch/targetLength]` (the
/// dictionary loaded into the context so that the parameters apply to it; a bare level
/// is the writer of the engine) prints bytes per record, write CPU per record and the CPU
/// to decompress a random block (uncached, its frame already in memory).
#[test]
#[ignore]
fn param_choices() {
    use zstd_safe::Strategy::*;
    let cpu = crate::cpu_clock::thread;
    let files = std::env::var("LEAKWELL_STORE_SAMPLE").expect("LEAKWELL_STORE_SAMPLE");
    let choices: Vec<String> = std::env::var("LEAKWELL_PARAMS").expect("LEAKWELL_PARAMS").split(',').map(String::from).collect();
    let lines_max: usize = std::env::var("LEAKWELL_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(200_000);
    let mut totals = vec![(0u64, 0f64, 0f64); choices.len()];
    for file in files.split(',') {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().take(lines_max).collect();
        println!("{}: {} lines, {:.1} bytes/line", file, lines.len(), lines.iter().map(|l| l.len()).sum::<usize>() as f64 / lines.len() as f64);
        let keep = std::env::var("LEAKWELL_KEEP").ok();
        let mut dir = temp("params");
        for (ci, choice) in choices.iter().enumerate() {
            if let Some(k) = &keep {
                dir = PathBuf::from(format!("{}/{}-{}", k, choice.replace('/', "_"), file.rsplit('/').next().unwrap()));
                std::fs::create_dir_all(&dir).unwrap();
            }
            let f: Vec<&str> = choice.split('/').collect();
            // `level@dictionary KiB@sample KiB`: another dictionary.
            let g: Vec<usize> = f[0].split('@').map(|x| x.parse().unwrap()).collect();
            let level = g[0] as i32;
            let mut params = Vec::new();
            if f.len() > 1 {
                let strategy = match f[1] {
                    "fast" => ZSTD_fast,
                    "dfast" => ZSTD_dfast,
                    "greedy" => ZSTD_greedy,
                    "lazy" => ZSTD_lazy,
                    "lazy2" => ZSTD_lazy2,
                    "btlazy2" => ZSTD_btlazy2,
                    "btopt" => ZSTD_btopt,
                    "btultra" => ZSTD_btultra,
                    "btultra2" => ZSTD_btultra2,
                    s => panic!("strategy {}", s),
                };
                params.push(CParameter::Strategy(strategy));
                params.push(CParameter::SearchLog(f[2].parse().unwrap()));
                params.push(CParameter::MinMatch(f[3].parse().unwrap()));
                params.push(CParameter::TargetLength(f[4].parse().unwrap()));
            }
            let c = cpu();
            let mut w = if g.len() == 3 { StoreWriter::create_tuned(&dir, BLOCK_BYTES, g[2] << 10, level, g[1] << 10).unwrap() } else if params.is_empty() { StoreWriter::create_level(&dir, BLOCK_BYTES, SAMPLE_BYTES, level).unwrap() } else { StoreWriter::create_params(&dir, level, &params).unwrap() };
            // `LEAKWELL_HEADER=v4`: the blocks of formats 4-6.
            w.v4_blocks = std::env::var("LEAKWELL_HEADER").map(|h| h == "v4").unwrap_or(false);
            for l in &lines {
                w.add(0, l).unwrap();
            }
            let bytes = w.finish().unwrap();
            let write_ns = (cpu() - c).as_nanos() as f64 / lines.len() as f64;
            let r = StoreReader::open(&dir).unwrap();
            let fetch_ns = random_block_load_ns(&r, 20_000);
            for d in (0..lines.len() as u32).step_by(997) {
                assert_eq!(r.load(r.block_of(d)).unwrap().record(d).unwrap().1, lines[d as usize].as_bytes());
            }
            totals[ci].0 += bytes;
            totals[ci].1 += write_ns * lines.len() as f64 / 1e6;
            totals[ci].2 += fetch_ns;
            println!("  {:<24} {:>6.2} bytes/record, write {:>5.0} ns/record, random block load {:>5.0} ns (thread CPU)", choice, bytes as f64 / lines.len() as f64, write_ns, fetch_ns);
        }
        if keep.is_none() {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    for (ci, choice) in choices.iter().enumerate() {
        println!("total {:<24} {:>12} bytes, write {:>7.0} ms, block loads {:>6.0} ns summed over files", choice, totals[ci].0, totals[ci].1, totals[ci].2);
    }
}

/// Decoding every block of the stores in `LEAKWELL_DECODE` (directories, comma
/// separated; `param_choices` keeps its stores under `LEAKWELL_KEEP`), for instruction
/// counts: `valgrind --tool=callgrind --toggle-collect='*store*decompress*' <test
/// binary> decode_stores --ignored`.
#[test]
#[ignore]
fn decode_stores() {
    let dirs = std::env::var("LEAKWELL_DECODE").expect("LEAKWELL_DECODE");
    for d in dirs.split(',') {
        let r = StoreReader::open(Path::new(d)).unwrap();
        let mut bytes = 0usize;
        for b in 0..r.blocks() {
            bytes += std::hint::black_box(r.load(b).unwrap()).len() as usize;
        }
        println!("{}: {} blocks, {} records", d, r.blocks(), bytes);
    }
}

/// Block size, dictionary sample and dictionary size on real lines:
/// `LEAKWELL_STORE_SAMPLE=file1,file2 LEAKWELL_TUNINGS=1024:256:16,512:1024:64 cargo
/// test --release tuning_choices -- --ignored --nocapture` (block bytes : sample KiB :
/// dictionary KiB) prints bytes per record, write CPU per record and the CPU to
/// decompress a random block (uncached, its frame already in memory).
#[test]
#[ignore]
fn tuning_choices() {
    let cpu = crate::cpu_clock::thread;
    let files = std::env::var("LEAKWELL_STORE_SAMPLE").expect("LEAKWELL_STORE_SAMPLE");
    let tunings: Vec<Vec<usize>> = std::env::var("LEAKWELL_TUNINGS").expect("LEAKWELL_TUNINGS").split(',').map(|t| t.split(':').map(|x| x.parse().unwrap()).collect()).collect();
    let n: usize = std::env::var("LEAKWELL_LOADS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let lines_max: usize = std::env::var("LEAKWELL_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(300_000);
    for file in files.split(',') {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().take(lines_max).collect();
        println!("{}: {} lines, {:.1} bytes/line", file, lines.len(), lines.iter().map(|l| l.len()).sum::<usize>() as f64 / lines.len() as f64);
        let dir = temp("tunings");
        for t in &tunings {
            let c = cpu();
            let mut w = StoreWriter::create_tuned(&dir, t[0], t[1] << 10, ZSTD_LEVEL, t[2] << 10).unwrap();
            for l in &lines {
                w.add(0, l).unwrap();
            }
            let bytes = w.finish().unwrap();
            let write_ns = (cpu() - c).as_nanos() as f64 / lines.len() as f64;
            let r = StoreReader::open(&dir).unwrap();
            let fetch_ns = random_block_load_ns(&r, n);
            println!("  block {:>4} B, sample {:>4} KiB, dictionary {:>3} KiB: {:>6.2} bytes/record, write {:>5.0} ns/record, random block load {:>5.0} ns (thread CPU)", t[0], t[1], t[2], bytes as f64 / lines.len() as f64, write_ns, fetch_ns);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The dictionary's fastCover segment size: `LEAKWELL_STORE_SAMPLE=a.csv,b.txt cargo test
/// --release train_k_choices -- --ignored --nocapture` writes each file's first 500,000
/// lines (one run, one dictionary) with the five-way search (`k` 0) and with fixed sizes,
/// and prints the store bytes, the writer's CPU and the size the search picks.
#[test]
#[ignore]
fn train_k_choices() {
    let cpu = crate::cpu_clock::thread;
    let files = std::env::var("LEAKWELL_STORE_SAMPLE").expect("LEAKWELL_STORE_SAMPLE");
    let (mut total, mut total_cpu) = (std::collections::BTreeMap::new(), std::collections::BTreeMap::new());
    for file in files.split(',') {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().skip(1).take(500_000).collect();
        let mut sample = Vec::new();
        let mut sizes = Vec::new();
        for l in &lines {
            if sample.len() >= SAMPLE_BYTES {
                break;
            }
            sample.extend_from_slice(l.as_bytes());
            sizes.push(l.len());
        }
        let mut params = FastCoverParams { d: 8, steps: 4, compression_level: 3, ..Default::default() };
        let mut dict = vec![0u8; DICT_BYTES];
        unsafe { ZDICT_optimizeTrainFromBuffer_fastCover(dict.as_mut_ptr().cast(), dict.len(), sample.as_ptr().cast(), sizes.as_ptr(), sizes.len() as u32, &mut params) };
        let mut row = format!("{}: {} lines, search picks k {}:", file.rsplit('/').next().unwrap_or(file), lines.len(), params.k);
        let dir = temp("train-k");
        for k in [0u32, 50, 537, 1024, 1511, 1998] {
            let c = cpu();
            let mut w = StoreWriter::create(&dir).unwrap();
            w.train_k = k;
            for l in &lines {
                w.add(0, l).unwrap();
            }
            let bytes = w.finish().unwrap();
            let ms = (cpu() - c).as_secs_f64() * 1000.0;
            *total.entry(k).or_insert(0u64) += bytes;
            *total_cpu.entry(k).or_insert(0f64) += ms;
            row += &format!(" k {} {} B {:.0} ms;", k, bytes, ms);
        }
        println!("{}", row);
        let _ = std::fs::remove_dir_all(&dir);
    }
    for (k, b) in &total {
        println!("k {:>4}: {} bytes, {:.0} ms writer CPU", k, b, total_cpu[k]);
    }
}

/// Cold block loads of one part: `LEAKWELL_PART=dir LEAKWELL_LOADS=20000 cargo test
/// --release load_profile -- --ignored --nocapture` decompresses that many random
/// blocks (uncached) and prints the time per block and the kinds of the frames'
/// entropy tables (new Huffman and FSE tables are built on every load).
#[test]
#[ignore]
fn load_profile() {
    let dir = PathBuf::from(std::env::var("LEAKWELL_PART").expect("LEAKWELL_PART"));
    let n: usize = std::env::var("LEAKWELL_LOADS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let r = StoreReader::open(&dir).unwrap();
    let mut x = 7u64;
    let mut picks = Vec::with_capacity(n);
    for _ in 0..n {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        picks.push(((x >> 33) % r.blocks() as u64) as usize);
    }
    // Fault the frames in first: the decompression alone is timed.
    let mut sum = 0u64;
    for &b in &picks {
        sum += r.stored(b).0.iter().map(|&c| c as u64).sum::<u64>();
    }
    std::hint::black_box(sum);
    let t = std::time::Instant::now();
    let mut bytes = 0usize;
    for &b in &picks {
        bytes += std::hint::black_box(r.load(b).unwrap()).data.len();
    }
    let el = t.elapsed();
    // Entropy modes of the frames (RFC 8878): literals type, sequence table modes.
    let mut lit = [0usize; 4];
    let mut seq = [[0usize; 4]; 3];
    let mut frame_bytes = 0usize;
    for &b in &picks {
        let (stored, bare) = r.stored(b);
        frame_bytes += stored.len();
        let Some(f) = (if bare { Some(stored) } else { zstd_block::frame_block(stored) }) else { continue };
        let mut p = 0;
        let b0 = f[p];
        let t = (b0 & 3) as usize;
        lit[t] += 1;
        let sf = (b0 >> 2) & 3;
        let c = |k: usize| f[p + k] as u32;
        let len = if t < 2 {
            let (h, rs) = match sf { 0 | 2 => (1, c(0) >> 3), 1 => (2, (c(0) >> 4) + (c(1) << 4)), _ => (3, (c(0) >> 4) + (c(1) << 4) + (c(2) << 12)) };
            h + if t == 0 { rs as usize } else { 1 }
        } else {
            match sf {
                0 | 1 => 3 + (((c(0) | c(1) << 8 | c(2) << 16) >> 14) & 0x3FF) as usize,
                2 => 4 + ((c(0) | c(1) << 8 | c(2) << 16 | c(3) << 24) >> 18) as usize,
                _ => 5 + (((c(0) | c(1) << 8 | c(2) << 16 | c(3) << 24) >> 22) | c(4) << 10) as usize,
            }
        };
        p += len;
        let ns = f[p];
        p += if ns == 0 { continue } else if ns < 128 { 1 } else if ns < 255 { 2 } else { 3 };
        let m = f[p];
        seq[0][(m >> 6) as usize] += 1;
        seq[1][((m >> 4) & 3) as usize] += 1;
        seq[2][((m >> 2) & 3) as usize] += 1;
    }
    println!("{} loads of {} blocks: {:?} a block, {:.0} bytes decompressed, {:.0} compressed", n, r.blocks(), el / n as u32, bytes as f64 / n as f64, frame_bytes as f64 / n as f64);
    println!("literals raw/rle/huffman/repeat {:?}; sequences predefined/rle/fse/repeat: ll {:?} of {:?} ml {:?}", lit, seq[0], seq[1], seq[2]);
}
/// A format 7 block of one context: `lens` line lengths, then `lines`.
fn v7_block(first: u32, lens: &[u8], lines: &[u8]) -> Block {
    let mut data = (lens.len() as u16 | V7_BLOCK | ONE_CTX).to_le_bytes().to_vec();
    data.extend_from_slice(&0u16.to_le_bytes());
    data.extend_from_slice(lens);
    data.extend_from_slice(lines);
    Block::v4(data, first, lens.len() as u32, 0).unwrap()
}

#[test]
fn lines_are_text_without_a_check_only_when_the_block_passed_one() {
    // Valid lines: each record's text as it is.
    let b = v7_block(10, &[2, 1], "éa".as_bytes());
    assert_eq!(b.line(10).unwrap().1.text(), Some("é"));
    assert_eq!(b.line(11).unwrap().1.text(), Some("a"));
    // The lines are UTF-8 as a whole but a record ends inside a char: neither record is text.
    let b = v7_block(10, &[1, 1], "é".as_bytes());
    assert_eq!(b.line(10).unwrap().1.text(), None);
    assert_eq!(b.line(11).unwrap().1.text(), None);
    assert_eq!(b.line(11).unwrap().1.bytes(), &[0xA9]);
    // A damaged block (not UTF-8): each line checked on its own, the valid one is text.
    let b = v7_block(0, &[1, 2], &[0xFF, b'o', b'k']);
    assert_eq!(b.line(0).unwrap().1.text(), None);
    assert_eq!(b.line(1).unwrap().1.text(), Some("ok"));
}

#[test]
fn blocks_holding_takes_a_block_once_for_each_run_of_its_documents() {
    let dir = temp("holding");
    let lines = lines(2000);
    let mut w = StoreWriter::create_with(&dir, BLOCK_BYTES, 0).unwrap();
    for l in &lines {
        w.add(0, l).unwrap();
    }
    w.finish().unwrap();
    let r = StoreReader::open(&dir).unwrap();
    assert!(r.blocks() > 4);
    let last = lines.len() as u32 - 1;
    let docs = [0, 1, last, 2, last];
    let mut out = Vec::new();
    // At most 2 blocks: the first's (docs 0 and 1), the last's; doc 2 would need a third.
    assert_eq!(r.blocks_holding(&docs, 2, &mut out).unwrap(), 3);
    assert_eq!(out.len(), 2);
    assert!(out[0].holds(0) && out[0].holds(1) && out[1].holds(last));
    assert_eq!(r.blocks_holding(&docs, 256, &mut out).unwrap(), 5);
    assert_eq!(out.len(), 4);
    let mut b = 0;
    for &d in &docs {
        if !out[b].holds(d) {
            b += 1;
        }
        assert_eq!(out[b].line(d).unwrap().1.text(), Some(lines[d as usize].as_str()));
    }
}
