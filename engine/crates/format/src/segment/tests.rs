use super::*;

#[test]
fn segment_json_roundtrips_and_is_checked() {
    let ingest = json!({
        "format_version": 6, "id": "0mwrk27tmatkjs", "well": "Old A", "parts": 3, "records": 60,
        "fields": ["email", "password"], "created": "2026-11-22T08:08:47Z", "badLines": 2, "catalogue": { "date": "2019-05-01" },
        "contexts": [{ "format": "csv", "header": ["Mail", "Pass"], "delimiter": ";", "map": { "customcol": "vin" } }],
    });
    assert_eq!(SegmentMeta::from_json(&ingest).unwrap().to_json(), ingest);
    let mut merged = ingest.clone();
    merged["well"] = json!("");
    merged["catalogue"] = Value::Null;
    merged["sources"] = json!([{ "id": "a", "well": "Old A", "records": 60, "start": 0, "fields": ["email"], "created": "x", "badLines": 0, "catalogue": null }]);
    merged["aliases"] = json!([{ "id": "a", "start": 0, "parts": [50, 10] }]);
    let m = SegmentMeta::from_json(&merged).unwrap();
    assert_eq!(m.aliases[0].locate(1, 3), Some(53));
    assert_eq!(m.to_json(), merged);
    for (key, bad) in [("parts", json!("3")), ("format_version", json!(FORMAT_VERSION + 1)), ("contexts", json!([{ "format": "xml" }])), ("aliases", json!([{ "id": "a" }]))] {
        let mut v = merged.clone();
        v[key] = bad;
        assert!(SegmentMeta::from_json(&v).is_err(), "{} accepted", key);
    }
    let mut v = ingest.clone();
    v.as_object_mut().unwrap().remove("id");
    assert!(SegmentMeta::from_json(&v).is_err());
}

#[test]
fn passwords_sharing_a_digest_prefix_are_told_apart() {
    // Two passwords whose SHA-1s share their first 4 bytes (the stored prefix), found
    // by trying numbers (a birthday search: about 80,000 on average).
    let mut seen: HashMap<Vec<u8>, String> = HashMap::new();
    let (a, b) = (0u32..)
        .find_map(|i| {
            let p = format!("pw{}", i);
            let h = crate::digest::sha1(p.as_bytes());
            seen.insert(h[..4].to_vec(), p.clone()).map(|q| (q, p))
        })
        .unwrap();
    let hex = |p: &str| {
        let mut o = Vec::new();
        crate::digest::hex_into(&crate::digest::sha1(p.as_bytes()), &mut o);
        String::from_utf8(o).unwrap()
    };
    let (ha, hb) = (hex(&a), hex(&b));
    assert_eq!(ha[..8], hb[..8]);
    let dir = std::env::temp_dir().join(format!("leakwell-prefix-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut w = PartWriter::create(&dir).unwrap();
    for (i, pw) in [a.as_str(), b.as_str(), a.as_str()].iter().enumerate() {
        let bytes = pw.as_bytes();
        w.add_flat(bytes, &[(PASSWORD as u8, 0, bytes.len() as u32)], i as u64, 0, pw).unwrap();
    }
    assert_eq!(w.finish().unwrap(), 3);
    let part = Part::open(&dir, Arc::from(Vec::new())).unwrap();
    let fi = part.fields[PASSWORD_SHA1].as_ref().unwrap();
    assert_eq!(fi.dict.len(), 2);
    let lookup = |hex: &str, whole: bool| {
        let mut found = Vec::new();
        fi.hash_terms(part.fields[PASSWORD].as_ref(), hex.as_bytes(), whole, |o, t| {
            let mut docs = Vec::new();
            fi.postings_into(o, &mut docs);
            found.push((String::from_utf8(t.to_vec()).unwrap(), docs));
            Ok(())
        })
        .unwrap();
        found.sort();
        found
    };
    assert_eq!(lookup(&ha, true), vec![(ha.clone(), vec![0, 2])]);
    assert_eq!(lookup(&hb, true), vec![(hb.clone(), vec![1])]);
    let mut both = vec![(ha.clone(), vec![0, 2]), (hb.clone(), vec![1])];
    both.sort();
    assert_eq!(lookup(&ha[..8], false), both);
    assert_eq!(lookup(&ha[..5], false), both);
    // Past the stored prefix, a range tells them apart where their digests differ.
    let at = (8..40).find(|&i| ha.as_bytes()[i] != hb.as_bytes()[i]).unwrap();
    assert_eq!(lookup(&ha[..at + 1], false), vec![(ha.clone(), vec![0, 2])]);
    assert_eq!(lookup(&hb[..at + 1], false), vec![(hb.clone(), vec![1])]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A part's order (`PartOrder`): each popular password's records together, the rest by
/// username, else email, else the input's order; postings, dedup keys and stored lines
/// all follow it, and equal keys keep the input's order (so a duplicate's first record
/// stays first).
#[test]
fn a_part_orders_its_records_and_everything_follows() {
    let dir = std::env::temp_dir().join(format!("leakwell-order-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut w = PartWriter::create(&dir).unwrap();
    let n = 3000usize;
    // Input record i: its line names i; every 10th has the popular password (300
    // records, over 64 and 1/1024 of the part); "pw7" is in 40 records (under 64: not
    // a group); i % 5 == 1 has no username, and i % 15 == 1 no email either.
    let record = |i: usize| {
        let user = (i % 5 != 1).then(|| format!("user{:04}", (i * 7919) % 1000));
        let email = (i % 15 != 1).then(|| format!("e{:04}@mail.test", (i * 104_729) % 997));
        let pw = if i % 10 == 0 { "123456".to_string() } else if i % 75 == 3 { "pw7".to_string() } else { format!("pw-{}", i) };
        (user, email, pw)
    };
    for i in 0..n {
        let (user, email, pw) = record(i);
        let mut bytes = Vec::new();
        let mut vals = Vec::new();
        for (f, v) in [(EMAIL, email.clone()), (USERNAME, user.clone()), (PASSWORD, Some(pw.clone()))] {
            if let Some(v) = v {
                vals.push((f as u8, bytes.len() as u32, (bytes.len() + v.len()) as u32));
                bytes.extend_from_slice(v.as_bytes());
            }
        }
        w.add_flat(&bytes, &vals, 1_000_000 + i as u64, 0, &format!("{}", i)).unwrap();
    }
    assert_eq!(w.finish().unwrap(), n as u32);
    let part = Part::open(&dir, Arc::from(Vec::new())).unwrap();
    // Document d holds input record `input[d]`: its stored line, and its dedup key.
    let input: Vec<usize> = (0..n as u32)
        .map(|d| {
            let block = part.store.block_holding(d).unwrap();
            let i: usize = std::str::from_utf8(block.record(d).unwrap().1).unwrap().parse().unwrap();
            assert_eq!(part.dedup_key(d).unwrap(), 1_000_000 + i as u64, "document {}: its record's dedup key", d);
            i
        })
        .collect();
    let mut every = input.clone();
    every.sort();
    assert_eq!(every, (0..n).collect::<Vec<_>>(), "every record stored once");
    let docs_of = |f: usize, term: &str| {
        let fi = part.fields[f].as_ref().unwrap();
        let ord = fi.dict.get(term.as_bytes()).unwrap();
        let mut docs = Vec::new();
        fi.postings_into(ord, &mut docs);
        docs
    };
    // The popular password's 300 records are one run of documents, in the order of
    // their usernames (else emails, else input).
    let popular = docs_of(PASSWORD, "123456");
    assert_eq!(popular.len(), 300);
    assert!(popular.windows(2).all(|w| w[1] == w[0] + 1), "one run: {:?}", &popular[..10]);
    // Postings name the right records, in every field.
    for d in [0u32, 1, 299, 300, 1500, 2999] {
        let i = input[d as usize];
        let (user, email, pw) = record(i);
        assert!(docs_of(PASSWORD, &pw).contains(&d));
        if let Some(u) = user {
            assert!(docs_of(USERNAME, &u).contains(&d));
        }
        if let Some(e) = email {
            assert!(docs_of(EMAIL, &e).contains(&d));
        }
    }
    let pw7 = docs_of(PASSWORD, "pw7");
    assert_eq!(pw7.len(), 40);
    assert!(!pw7.windows(2).all(|w| w[1] == w[0] + 1), "under 64 records: not a group");
    // Outside the group: records with neither a username nor an email first, then by
    // username, else email; ties (equal keys) in the input's order.
    let key = |i: usize| {
        let (user, email, _) = record(i);
        user.or(email).unwrap_or_default()
    };
    let rest: Vec<usize> = input.iter().copied().filter(|&i| i % 10 != 0).collect();
    assert_eq!(rest.len(), n - 300);
    for w in rest.windows(2) {
        let (a, b) = (key(w[0]), key(w[1]));
        assert!(a < b || (a == b && w[0] < w[1]), "{} ({}) before {} ({})", w[0], a, w[1], b);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn parts_have_derived_password_tables() {
    let dir = std::env::temp_dir().join(format!("leakwell-derived-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut w = PartWriter::create(&dir).unwrap();
    for (i, pw) in ["password", "abc", "password"].iter().enumerate() {
        let bytes = pw.as_bytes();
        w.add_flat(bytes, &[(PASSWORD as u8, 0, bytes.len() as u32)], i as u64, 0, pw).unwrap();
    }
    assert_eq!(w.finish().unwrap(), 3);
    let part = Part::open(&dir, Arc::from(Vec::new())).unwrap();
    let pw = part.fields[PASSWORD].as_ref();
    // Terms (hex, as `hash_terms` gives them) and documents of a lookup.
    let lookup = |f: usize, hex: &str, whole: bool| {
        let fi = part.fields[f].as_ref().unwrap();
        let (mut terms, mut docs) = (Vec::new(), Vec::new());
        fi.hash_terms(pw, hex.as_bytes(), whole, |o, t| {
            terms.push(String::from_utf8(t.to_vec()).unwrap());
            fi.postings_into(o, &mut docs);
            Ok(())
        })
        .unwrap();
        (terms, docs)
    };
    let docs_of = |f: usize, hex: &str| lookup(f, hex, true).1;
    assert_eq!(docs_of(PASSWORD_SHA256, "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"), vec![0, 2]);
    assert_eq!(docs_of(PASSWORD_SHA1, "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8"), vec![0, 2]);
    assert_eq!(docs_of(PASSWORD_SHA256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), vec![1]);
    assert_eq!(docs_of(PASSWORD_SHA1, "a9993e364706816aba3e25717850c26c9cd0d89d"), vec![1]);
    assert_eq!(part.fields[PASSWORD_SHA256].as_ref().unwrap().dict.len(), 2);
    // Format 4: password ordinals instead of copied postings; 5: binary digests; 6: their
    // first 4 bytes after an 8-byte header.
    assert!(dir.join("password_sha256.pord").exists() && !dir.join("password_sha256.post").exists());
    assert_eq!(std::fs::metadata(dir.join("password_sha256.dig")).unwrap().len(), 8 + 2 * 4);
    assert_eq!(std::fs::metadata(dir.join("password_sha1.dig")).unwrap().len(), 8 + 2 * 4);
    assert!(!dir.join("password_sha256.terms").exists() && !dir.join("password_sha1.tix").exists());
    // Prefixes of any length (odd too, longer than the stored 4 bytes too), whole
    // digests back out, and non-hex or wrong lengths.
    let sha1 = "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8";
    let abc = "a9993e364706816aba3e25717850c26c9cd0d89d";
    let terms = |hex: &str| lookup(PASSWORD_SHA1, hex, false).0;
    assert_eq!(terms("5baa6"), vec![sha1]);
    assert_eq!(terms("5"), vec![sha1]);
    assert_eq!(terms(""), vec![sha1, abc]);
    assert_eq!(terms("a"), vec![abc]);
    assert_eq!(terms("a9993e364706816aba3e25717850c26c9cd0d89"), vec![abc]);
    assert_eq!(terms("a9993e364706816aba3e25717850c26c9cd0d88").len(), 0, "past the stored prefix: confirmed by hashing");
    assert_eq!(terms("a9993e36f"), Vec::<String>::new());
    assert_eq!(terms("b").len(), 0);
    assert_eq!(terms("4").len(), 0);
    assert_eq!(terms(sha1), vec![sha1]);
    assert_eq!(terms("5baa61e4c9b93f3f0682250b6cf8331b7ee68fd80").len(), 0);
    assert_eq!(terms("5bxa").len(), 0);
    assert_eq!(lookup(PASSWORD_SHA1, &sha1[..39], true).0.len(), 0);
    assert_eq!(lookup(PASSWORD_SHA1, "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd9", true).0.len(), 0, "same prefix, another digest");
    assert_eq!(lookup(PASSWORD_SHA1, &sha1.to_uppercase(), true).0.len(), 0, "the engine lower-cases first");
    assert_eq!(lookup(PASSWORD_SHA256, "5e884898", true).0.len(), 0);
    assert!(part.fields[PASSWORD_SHA1].as_ref().unwrap().tri.is_none());
    // Format 12: NTLM (MD4 of the UTF-16LE text), 32 hex digits, confirmed by hashing NTLM.
    let ntlm = "8846f7eaee8fb117ad06bdd830b7586c";
    let mut abc_ntlm = Vec::new();
    crate::digest::hex_into(&crate::digest::ntlm(b"abc"), &mut abc_ntlm);
    let abc_ntlm = String::from_utf8(abc_ntlm).unwrap();
    assert_eq!(docs_of(PASSWORD_NTLM, ntlm), vec![0, 2]);
    assert_eq!(docs_of(PASSWORD_NTLM, &abc_ntlm), vec![1]);
    assert_eq!(lookup(PASSWORD_NTLM, "8846f", false).0, vec![ntlm]);
    assert_eq!(lookup(PASSWORD_NTLM, &abc_ntlm[..5], false).0, vec![abc_ntlm.clone()]);
    assert_eq!(lookup(PASSWORD_NTLM, "", false).0.len(), 2);
    assert_eq!(lookup(PASSWORD_NTLM, "8846f7eaee8fb117ad06bdd830b7586d", true).0.len(), 0, "same prefix, another digest");
    assert_eq!(lookup(PASSWORD_NTLM, sha1, true).0.len(), 0, "a SHA-1 is not an NTLM");
    assert_eq!(lookup(PASSWORD_SHA1, &sha1[..32], true).0.len(), 0, "nor an NTLM a SHA-1");
    assert_eq!(std::fs::metadata(dir.join("password_ntlm.dig")).unwrap().len(), 8 + 2 * 4);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A part written before format 12 (no `password_ntlm`) still answers SHA-256 and SHA-1
/// lookups, and nothing by NTLM; `write_derived_tables` adds the table to it.
#[test]
fn a_part_without_the_ntlm_table_answers_and_gets_it_derived() {
    let dir = std::env::temp_dir().join(format!("leakwell-no-ntlm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut w = PartWriter::create(&dir).unwrap();
    for (i, pw) in ["password", "abc"].iter().enumerate() {
        let bytes = pw.as_bytes();
        w.add_flat(bytes, &[(PASSWORD as u8, 0, bytes.len() as u32)], i as u64, 0, pw).unwrap();
    }
    w.finish().unwrap();
    for ext in ["dig", "pord"] {
        std::fs::remove_file(dir.join(format!("password_ntlm.{}", ext))).unwrap();
    }
    let docs = |part: &Part, f: usize, hex: &str, whole: bool| {
        let mut docs = Vec::new();
        if let Some(fi) = part.fields[f].as_ref() {
            fi.hash_terms(part.fields[PASSWORD].as_ref(), hex.as_bytes(), whole, |o, _| {
                fi.postings_into(o, &mut docs);
                Ok(())
            })
            .unwrap();
        }
        docs
    };
    let old = Part::open(&dir, Arc::from(Vec::new())).unwrap();
    assert!(old.fields[PASSWORD_NTLM].is_none());
    assert_eq!(docs(&old, PASSWORD_SHA1, "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8", true), vec![0]);
    assert_eq!(docs(&old, PASSWORD_SHA1, "5baa6", false), vec![0]);
    assert_eq!(docs(&old, PASSWORD_SHA256, "5e884", false), vec![0]);
    assert_eq!(docs(&old, PASSWORD_NTLM, "8846f", false), Vec::<u32>::new());
    drop(old);
    write_derived_tables(&dir, &[PASSWORD_NTLM]).unwrap();
    let new = Part::open(&dir, Arc::from(Vec::new())).unwrap();
    assert_eq!(docs(&new, PASSWORD_NTLM, "8846f", false), vec![0]);
    assert_eq!(docs(&new, PASSWORD_NTLM, "8846f7eaee8fb117ad06bdd830b7586c", true), vec![0]);
    assert!(write_derived_tables(&dir, &[PASSWORD]).is_err(), "not a derived table");
    let _ = std::fs::remove_dir_all(&dir);
}
