use super::Engine;
use crate::fields::{index_name, PASSWORD_NTLM};
use crate::merge::MergeOptions;
use crate::request::{PasswordRequest, SearchRequest};
use serde_json::json;
use std::path::Path;

fn ingest(dir: &Path, well: &str, lines: &[String]) -> String {
    super::test_ingest::ingest_lines(dir, well, well, lines, 7)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{:02x}", b)).collect()
}
fn ntlm(pw: &str) -> String {
    hex(&crate::digest::ntlm(pw.as_bytes()))
}
fn sha1(pw: &str) -> String {
    hex(&crate::digest::sha1(pw.as_bytes()))
}

/// `password_ntlm` files of every part of segment `seg`, removed: a segment written before
/// the table existed. Returns how many parts had one.
fn strip_ntlm(index: &Path, seg: &str) -> usize {
    let mut n = 0;
    for e in std::fs::read_dir(crate::segment::segment_dir(index, seg)).unwrap().flatten() {
        if e.file_name().to_string_lossy().starts_with("part-") {
            for ext in ["dig", "pord"] {
                let f = e.path().join(format!("{}.{}", index_name(PASSWORD_NTLM), ext));
                if f.exists() {
                    std::fs::remove_file(f).unwrap();
                    n += usize::from(ext == "dig");
                }
            }
        }
    }
    n
}

fn count(e: &Engine, hex: &str) -> u64 {
    e.password_count(&PasswordRequest { hex: hex.to_string() }).unwrap().total
}

/// The suffixes and counts of a range, for the hash `full` (its own suffix only).
fn range_count(e: &Engine, full: &str) -> Option<u64> {
    let r = e.password_range(&PasswordRequest { hex: full[..5].to_string() }).unwrap();
    r.suffixes.iter().find(|s| s.suffix == full[5..]).map(|s| s.count)
}

/// NTLM lookups: counts and ranges by NTLM over plaintext passwords (non-ASCII too), a
/// segment without the table (written before it) answering SHA-1 and not NTLM, then a
/// merge deriving the table for its records; removed and taken-down records not counted.
#[test]
fn ntlm_counts_and_ranges_across_old_segments_merges_and_removals() {
    let dir = crate::test_dir("ntlm");
    let index = dir.join("index");
    let new: Vec<String> = (0..20).map(|i| format!(r#"{{"email":"n{}@x.com","password":"{}"}}"#, i, ["hunter2", "pässwörd", "password"][i % 3])).collect();
    let old: Vec<String> = (0..10).map(|i| format!(r#"{{"email":"o{}@x.com","password":"{}"}}"#, i, ["hunter2", "oldonly"][i % 2])).collect();
    let seg_old = ingest(&dir, "Old", &old);
    assert!(strip_ntlm(&index, &seg_old) >= 2, "every part of the old segment had the table");
    let seg_new = ingest(&dir, "New", &new);
    let engine = Engine::open(&index).unwrap();
    // hunter2: 7 new records (i % 3 == 0), 5 old ones; pässwörd 7 new; oldonly 5 old.
    assert_eq!(ntlm("password"), "8846f7eaee8fb117ad06bdd830b7586c");
    assert_eq!(count(&engine, &ntlm("hunter2")), 7, "the old segment has no NTLM table");
    assert_eq!(count(&engine, &ntlm("pässwörd")), 7);
    assert_eq!(count(&engine, &ntlm("oldonly")), 0);
    assert_eq!(count(&engine, &sha1("hunter2")), 12, "SHA-1 from both segments");
    assert_eq!(count(&engine, &sha1("oldonly")), 5);
    assert_eq!(count(&engine, &ntlm("hunter3")), 0);
    let r = engine.password_range(&PasswordRequest { hex: ntlm("hunter2")[..5].to_string() }).unwrap();
    assert!(r.suffixes.iter().any(|s| s.suffix.len() == 27 && s.suffix == ntlm("hunter2")[5..] && s.count == 7), "{:?}", r.suffixes.iter().map(|s| (&s.suffix, s.count)).collect::<Vec<_>>());
    assert_eq!(range_count(&engine, &sha1("oldonly")), Some(5), "an old segment still answers SHA-1 ranges");
    assert_eq!(range_count(&engine, &ntlm("oldonly")), None);

    // A merge of the old segment and the new one derives the table for the old records.
    crate::merge::run(&index, &MergeOptions { all: true, max_segments: 8, part_docs: 100_000 }).unwrap();
    engine.refresh(true).unwrap();
    assert_eq!(engine.stats().unwrap().segments, 1);
    assert_eq!(count(&engine, &ntlm("hunter2")), 12);
    assert_eq!(count(&engine, &ntlm("oldonly")), 5);
    assert_eq!(range_count(&engine, &ntlm("oldonly")), Some(5));
    assert_eq!(range_count(&engine, &ntlm("pässwörd")), Some(7));
    assert_eq!(count(&engine, &sha1("hunter2")), 12);

    // A removed record no longer counts, by count or by range.
    let ids = crate::to_json(engine.search(&SearchRequest::with_defaults(&json!({ "query": "email:n0@x.com", "mode": "exact" })).unwrap()).unwrap());
    let id = ids["entries"][0]["id"].as_str().unwrap().to_string();
    assert!(engine.remove(&id).unwrap());
    assert_eq!(count(&engine, &ntlm("hunter2")), 11);
    assert_eq!(range_count(&engine, &ntlm("hunter2")), Some(11));

    // A taken-down well's records neither; a purge rewrites the table without them.
    engine.edit_wells(&crate::contract::EditWellsArgs { delete: vec![seg_old.clone()], rename: vec![] }).unwrap();
    assert_eq!(count(&engine, &ntlm("oldonly")), 0);
    assert_eq!(range_count(&engine, &ntlm("oldonly")), None);
    assert_eq!(count(&engine, &ntlm("hunter2")), 6);
    engine.purge(crate::merge::purge).unwrap();
    assert_eq!(count(&engine, &ntlm("hunter2")), 6);
    assert_eq!(count(&engine, &ntlm("pässwörd")), 7);
    let _ = seg_new;
    engine.close();
    let _ = std::fs::remove_dir_all(&dir);
}
