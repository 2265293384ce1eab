use crate::fields::EMAIL;
use crate::planner::{eval, plan};
use crate::query::{parse, Mode};
use crate::segment::{segment_dir, Segment};
use crate::budget::Budget;
use serde_json::json;
use std::path::Path;

/// Every record (global document number, in manifest order) matching `query`.
fn hits(index: &Path, query: &str) -> Vec<u64> {
    let p = plan(&parse(query, Mode::Wildcard, None).unwrap()).unwrap();
    let budget = Budget { deadline: None, budget_ms: 0 };
    let mut out = Vec::new();
    let mut base = 0u64;
    for e in crate::manifest::Manifest::read(index).unwrap().segments {
        let seg = Segment::open(&segment_dir(index, &e.id)).unwrap();
        for (k, part) in seg.parts.iter().enumerate() {
            out.extend(eval(&p, part, &budget).unwrap().into_iter().map(|d| base + seg.part_start[k] + d as u64));
        }
        base += seg.records;
    }
    out
}

/// Every record's email (global document number, in manifest order).
fn stored_emails(index: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in crate::manifest::Manifest::read(index).unwrap().segments {
        let seg = Segment::open(&segment_dir(index, &e.id)).unwrap();
        for part in &seg.parts {
            for d in 0..part.docs {
                let block = part.store.block_holding(d).unwrap();
                let line: serde_json::Value = serde_json::from_slice(block.record(d).unwrap().1).unwrap();
                out.push(line["email"].as_str().unwrap().to_string());
            }
        }
    }
    out
}

/// `email:*lit*` equals a brute-force check of the records (the emails holding the
/// literal) on fresh format 11 segments and after a merge of them: literals in local
/// parts, in domains, in both, spanning the `@`, in emails with two `@`s or none. Without
/// an `@`, the local parts are found through `email.ltri` (a literal common in domains:
/// `gmail`) or one pass over the emails (common in local parts too, or shorter than a
/// trigram), and the domains through `email_domain`.
#[test]
fn email_infixes_equal_a_brute_force_check() {
    let dir = crate::test_dir("email-infix");
    let mut emails: Vec<String> = Vec::new();
    for i in 0..3000 {
        emails.push(format!("user{}@gmail.com", i));
    }
    for i in 0..2500 {
        emails.push(format!("{}{}.anna@annamail.net", ["bob", "carla", "dmitri", "eve", "zed"][i % 5], i));
    }
    for i in 0..1500 {
        emails.push(format!("{}{}@example{}.org", ["kim", "lee", "mo"][i % 3], i, i % 50));
    }
    for e in [
        "gmailfan@yahoo.com", "mygmail@gmail.com", "a@gmail@example.org", "x@y@gmail.com", "nogmail-at-all", "gmail@", "@gmail.com", "gm@ail.com",
        "l@gmx.net", "anna@@gmail.com", "yahoo", "mail.annex@yahoo.com", "gmail.com@evil.org", "@@", "ann", "a@b@c@gmail",
    ] {
        emails.push(e.into());
    }
    // Spread over both segments (7919 is a prime above the count: a permutation).
    let n = emails.len();
    let emails: Vec<String> = (0..n).map(|i| emails[i * 7919 % n].clone()).collect();
    let index = dir.join("index");
    let half = emails.len() / 2;
    for (k, chunk) in [&emails[..half], &emails[half..]].iter().enumerate() {
        let file = dir.join(format!("{}.jsonl", k));
        std::fs::write(&file, chunk.iter().map(|e| json!({ "email": e }).to_string() + "\n").collect::<String>()).unwrap();
        let opts = crate::ingest::IngestOptions::from_json(&json!({ "indexDir": index.to_str().unwrap(), "well": "W", "files": [file.to_str().unwrap()], "partRecords": 100_000 })).unwrap();
        crate::ingest::run(&opts, &Default::default()).unwrap();
    }
    let lits = [
        "gmail", "gmai", "mail", "ail", "yahoo", "anna", "ann", "an", "a", "l@gm", "y@g", "gmail.com", "example1", "mygmail", "zzz", "@@", "anna@", ".org", "at-all", "c@gmail",
    ];
    let check = |when: &str| {
        // The brute force goes over the records in the index's order (a part numbers its
        // records by email, `segment::PartOrder`), read back from the stores.
        let stored = stored_emails(&index);
        let mut sorted = stored.clone();
        sorted.sort();
        let mut given = emails.clone();
        given.sort();
        assert_eq!(sorted, given, "{}: every email stored once", when);
        for lit in lits {
            let want: Vec<u64> = stored.iter().enumerate().filter(|(_, e)| e.contains(lit)).map(|(i, _)| i as u64).collect();
            let got = hits(&index, &format!("email:*{}*", lit));
            let first_diff = got.iter().zip(&want).position(|(a, b)| a != b);
            assert!(got == want, "{}: email:*{}*: {} hits, {} wanted, first difference at {:?}", when, lit, got.len(), want.len(), first_diff);
        }
    };
    check("fresh segments");
    // The routes taken: `.ltri` narrows `gmail` to the blocks of the few local parts
    // holding it; `anna` (in most local parts) and `an` (no trigram) scan the emails.
    let m = crate::manifest::Manifest::read(&index).unwrap();
    let seg = Segment::open(&segment_dir(&index, &m.segments[0].id)).unwrap();
    let fi = seg.parts[0].fields[EMAIL].as_ref().unwrap();
    let (tri, ltri) = (fi.tri.as_ref().unwrap(), fi.ltri.as_ref().unwrap());
    let blocks = (fi.dict.len() as u32 + 7) / 8;
    let cap = blocks as usize / 4;
    let lit = |l: &str| vec![l.as_bytes().to_vec()];
    assert!(tri.candidates(&lit("gmail"), 0..blocks, cap).is_none(), "gmail is in too many blocks for .tri");
    let local = tri.local_candidates(ltri, &lit("gmail"), 0..blocks, cap).unwrap();
    assert!(!local.is_empty() && local.len() <= 4, "{:?}", local);
    assert!(tri.local_candidates(ltri, &lit("anna"), 0..blocks, cap).is_none());
    assert!(tri.local_candidates(ltri, &lit("an"), 0..blocks, cap).is_none());
    assert!(!seg.parts[0].fields[crate::fields::EMAIL_LOCAL].is_some(), "format 11 writes no email_local");
    crate::merge::run(&index, &crate::merge::MergeOptions { all: true, max_segments: 8, part_docs: 100_000 }).unwrap();
    assert_eq!(crate::manifest::Manifest::read(&index).unwrap().segments.len(), 1);
    check("merged");
    let _ = std::fs::remove_dir_all(&dir);
}
