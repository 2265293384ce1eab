use super::*;

/// A front-coded table answers every call like the plain one (and like a brute-force
/// walk of the sorted terms): lookups, prefix ranges, walks, scans, block scans.
#[test]
fn front_coded_tables_answer_like_plain_ones() {
    let dir = crate::test_dir("termdict");
    // Long shared prefixes (past 255 bytes too), short terms, a last block of 3.
    let mut seed = 7u64;
    let mut rnd = move |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    let mut terms: Vec<Vec<u8>> = Vec::new();
    for i in 0..2000 {
        let stem = ["john", "johnsmith", "jo", "mary.ann", "zz"][rnd(5) as usize];
        let mut t = format!("{}{}@{}.com", stem, rnd(1000), ["gmail", "yahoo", "x"][rnd(3) as usize]).into_bytes();
        if i % 97 == 0 {
            t = vec![b'a'; 250 + rnd(10) as usize];
            t.push(b'0' + rnd(10) as u8);
        }
        terms.push(t);
    }
    terms.push(b"a".to_vec());
    terms.sort();
    terms.dedup();
    let n = terms.len();
    let refs: Vec<&[u8]> = terms.iter().map(|t| t.as_slice()).collect();
    write(&dir, "plain", refs.iter().copied(), Coding::Plain).unwrap();
    // Blocks of 8 (the grain-8 fields) and of 32 (`coding`), and 16.
    for step in [8usize, 16, 32] {
        write(&dir, "front", refs.iter().copied(), Coding::Front(step)).unwrap();
        let plain = TermDict::open(&dir, "plain").unwrap().unwrap();
        let front = TermDict::open(&dir, "front").unwrap().unwrap();
        assert!(front.front && !plain.front && front.step == step);
        assert!(std::fs::metadata(dir.join("front.tfc")).unwrap().len() < std::fs::metadata(dir.join("plain.terms")).unwrap().len());
        assert_eq!(front.plain(), plain.plain());
        assert_eq!(front.len(), n);
        for (o, t) in terms.iter().enumerate() {
            assert_eq!(front.get(t), Some(o as u32));
            let mut missing = t.clone();
            missing.push(b'!');
            assert_eq!(front.get(&missing), plain.get(&missing));
        }
        assert_eq!(front.get(b""), None);
        assert_eq!(front.get(b"zzzzzz"), None);
        for p in ["", "j", "john", "johnsmith1", "mary", "aaaa", "zz9", "zzz", "0", "\u{7f}"] {
            let want = terms.iter().position(|t| t.starts_with(p.as_bytes())).map(|s| s as u32..(s + terms.iter().filter(|t| t.starts_with(p.as_bytes())).count()) as u32);
            let got = front.prefix_range(p.as_bytes());
            assert_eq!(got, plain.prefix_range(p.as_bytes()), "{}", p);
            if let Some(w) = want {
                assert_eq!(got, w, "{}", p);
            } else {
                assert!(got.is_empty(), "{}", p);
            }
        }
        let walk = |d: &TermDict, r: Range<u32>| {
            let mut v = Vec::new();
            d.for_each(r, |o, t| {
                v.push((o, t.to_vec()));
                Ok(())
            })
            .unwrap();
            v
        };
        for r in [0..n as u32, 3..17, 8..16, 1000..1001, n as u32 - 2..n as u32] {
            assert_eq!(walk(&front, r.clone()), walk(&plain, r.clone()));
            assert_eq!(walk(&front, r.clone()).len(), r.len());
        }
        let budget = Budget { deadline: None, budget_ms: 0 };
        let checks = || vec![(Some(b"smith".to_vec()), Check::Contains), (Some(b"@x.com".to_vec()), Check::EndsWith(b"@x.com".to_vec())), (None, Check::Regex(regex::bytes::Regex::new("^jo[0-9]+@").unwrap())), (Some(b"aaaa".to_vec()), Check::Contains)];
        for ((lit, check), range) in checks().into_iter().zip([0..n as u32, 5..900, 0..n as u32, 0..n as u32]) {
            let brute: Vec<u32> = (range.clone()).filter(|&o| lit.as_ref().map(|l| memchr::memmem::find(&terms[o as usize], l).is_some()).unwrap_or(true) && check.matches(&terms[o as usize])).collect();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            front.scan(range.clone(), lit.as_deref(), &check, &budget, &mut a).unwrap();
            plain.scan(range.clone(), lit.as_deref(), &check, &budget, &mut b).unwrap();
            assert_eq!(a, brute);
            assert_eq!(b, brute);
            // Every other block as trigram candidates (blocks of the grain: the step).
            let g = step as u32;
            let blocks: Vec<u32> = (0..(n as u32 + g - 1) / g).filter(|b| b % 2 == 0).collect();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            front.scan_blocks(range.clone(), &blocks, g, lit.as_deref(), &check, &budget, &mut a).unwrap();
            plain.scan_blocks(range.clone(), &blocks, g, lit.as_deref(), &check, &budget, &mut b).unwrap();
            let want: Vec<u32> = brute.iter().copied().filter(|o| (o / g) % 2 == 0).collect();
            assert_eq!(a, want);
            assert_eq!(b, want);
        }
        // The terms whose local part (before the last `@`; all of a term without one)
        // holds a literal: in local parts (`smith`, `1`), in domains (`gmail`), in both
        // (`a`, `o`), in the long `a…a` terms without `@`; hits far apart and dense.
        for (lit, range) in [("smith", 0..n as u32), ("gmail", 0..n as u32), ("a", 0..n as u32), ("o", 3..n as u32 - 5), ("1", 100..700), ("aaaa", 0..n as u32), ("x.c", 0..n as u32), ("zzz", 0..n as u32), ("zz99", 0..n as u32)] {
            let brute: Vec<u32> = range.clone().filter(|&o| memchr::memmem::find(crate::fields::email_local(&terms[o as usize]), lit.as_bytes()).is_some()).collect();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            front.scan_local(range.clone(), lit.as_bytes(), &budget, &mut a).unwrap();
            plain.scan_local(range.clone(), lit.as_bytes(), &budget, &mut b).unwrap();
            assert_eq!(a, brute, "front, {}", lit);
            assert_eq!(b, brute, "plain, {}", lit);
            // Hits more than 4 KiB apart: the ordinal from the sampled offsets.
            assert!(lit != "zz99" || (1..5).contains(&brute.len()), "{:?}", brute);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
