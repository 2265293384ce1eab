use super::*;
use serde_json::json;

/// Every JSON line is written by `EntryWriter` (its fast path or the general way) as
/// the serialised `entry_json` value, byte for byte, with each raw-record choice.
#[test]
fn json_lines_are_written_as_their_values_serialise() {
    let dir = crate::test_dir("json-lines");
    let lines = [
        r#"{"email":"a@b.c","password":"p1"}"#,
        r#"{"password":"p2","email":"b@b.c"}"#,
        r#"{"user":"u1","username":"u2","email":"c@b.c"}"#,
        r#"{"username":"u2","user":"u1","email":"d@b.c"}"#,
        r#"{"email":"e@b.c","email":"f@b.c"}"#,
        r#"{"email":"g@b.c","email":""}"#,
        r#"{"email":"h@b.c","password":null,"phone":123,"zip":-5,"x":1.5e3,"ok":true}"#,
        r#"{"email":"i@b.c","phone":-12}"#,
        r#"{"email":"j@b.c","phone":1.0}"#,
        r#"{"email":"k@b.c","password":"a\"q\\b","note":"x\ny"}"#,
        r#"  { "email" : "l@b.c" , "password" : "  " , "extra":{"n":[1,2]} }  "#,
        r#"{"email":"m@b.c","phone":["+1","+2"]}"#,
        r#"{"E-Mail":"n@b.c","pass":"p"}"#,
        r#"{"email":"o@b.c","password":false,"phone":0,"ip":"01"}"#,
        r#"{"email":"p@b.c","phone":12345678901234567890123}"#,
        r#"{"email":"q@b.c","name":"ünï ✓","url":"t\u00e9"}"#,
        r#"{"email":"r@b.c","username":"x","a":"\\","b":"\""}"#,
        r#"{"email":"s@b.c","password":"tab\there","phone":999999999999999999}"#,
        r#"{"email":" t@b.c ","name":" two  words "}"#,
    ];
    std::fs::write(dir.join("a.jsonl"), lines.join("\n")).unwrap();
    let opts = crate::ingest::IngestOptions::from_json(&json!({ "indexDir": dir.join("index").to_str().unwrap(), "well": "W", "files": [dir.join("a.jsonl").to_str().unwrap()] })).unwrap();
    crate::ingest::run(&opts, &Default::default()).unwrap();
    let e = Engine::open(&dir.join("index")).unwrap();
    let snap = e.snapshot();
    let window: Vec<(usize, usize, u32)> = (0..snap.segments[0].parts[0].docs).map(|d| (0, 0, d)).collect();
    // (The ingest turns away the line whose only value is empty.)
    assert_eq!(window.len(), lines.len() - 1);
    for raw in [RawRecord::Omit, RawRecord::Line, RawRecord::LawEnforcement] {
        let mut w = render::EntryWriter::default();
        fetch_each(&snap, &window, |seg, pi, d, ctx, line| {
            let mut text = Vec::new();
            w.write(&mut text, seg, pi, d, ctx, line, raw);
            let value = serde_json::to_vec(&render::entry_json(seg, pi, d, ctx, &String::from_utf8_lossy(line.bytes()), raw)).unwrap();
            assert_eq!(String::from_utf8(text).unwrap(), String::from_utf8(value).unwrap());
        })
        .unwrap();
    }
    e.close();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Values of one field kept once and LDAP hashes moved are written alike by
/// `EntryWriter` (its fast path over slices, or the general way) and by `entry_json`, for
/// JSON lines, CSV and stealer logs; each field's values are then distinct.
#[test]
fn values_kept_once_and_ldap_hashes_are_written_alike_both_ways() {
    let dir = crate::test_dir("kept-once");
    let jsonl = [
        r#"{"user":"jdoe","username":"JDoe","email":"a@b.c"}"#,
        r#"{"email":"b@b.c","phone":"+1 555-0100","tel":"15550100","mobile":"15550199"}"#,
        r#"{"email":"c@b.c","mail":"C@B.C","ip":"::ffff:10.0.0.1","ipv4":"10.0.0.1"}"#,
        r#"{"email":"d@b.c","pw":"{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=","password":"x","pass":"x"}"#,
        r#"{"email":"e@b.c","password":"{hello}","name":"Ann  Lee","full_name":"ann lee"}"#,
    ];
    let csv = "email,mail,login,username,password\nf@b.c,F@B.C,fuser,fuser,pw\ng@b.c,,guser,GUSER,{MD5}X03MO1qnZdYdgyfeuILPmQ==\n";
    let combo = "https://x.example/:h@b.c:{CRYPT}abJnggxhB/yWI\nhttps://x.example/:i@b.c:{SHA}\n";
    std::fs::write(dir.join("a.jsonl"), jsonl.join("\n")).unwrap();
    std::fs::write(dir.join("b.csv"), csv).unwrap();
    std::fs::write(dir.join("c.txt"), combo).unwrap();
    let files: Vec<String> = ["a.jsonl", "b.csv", "c.txt"].iter().map(|f| dir.join(f).to_str().unwrap().to_string()).collect();
    let opts = crate::ingest::IngestOptions::from_json(&json!({ "indexDir": dir.join("index").to_str().unwrap(), "well": "W", "files": files })).unwrap();
    crate::ingest::run(&opts, &Default::default()).unwrap();
    let e = Engine::open(&dir.join("index")).unwrap();
    let snap = e.snapshot();
    let window: Vec<(usize, usize, u32)> = (0..snap.segments[0].parts[0].docs).map(|d| (0, 0, d)).collect();
    assert_eq!(window.len(), 9);
    let mut seen = std::collections::BTreeMap::new();
    for raw in [RawRecord::Omit, RawRecord::Line] {
        let mut w = render::EntryWriter::default();
        fetch_each(&snap, &window, |seg, pi, d, ctx, line| {
            let mut text = Vec::new();
            w.write(&mut text, seg, pi, d, ctx, line, raw);
            let value = render::entry_json(seg, pi, d, ctx, &String::from_utf8_lossy(line.bytes()), raw);
            assert_eq!(String::from_utf8(text).unwrap(), serde_json::to_string(&value).unwrap());
            let email = value["email"][0].as_str().unwrap().to_string();
            seen.insert(email, value);
        })
        .unwrap();
    }
    let vals = |email: &str, f: &str| seen[email][f].clone();
    assert_eq!(vals("a@b.c", "username"), json!(["jdoe"]), "first spelling (keys in order)");
    assert_eq!(vals("b@b.c", "phone"), json!(["15550199", "+1 555-0100"]), "keys in order: mobile, phone, tel");
    assert_eq!(vals("c@b.c", "email"), json!(["c@b.c"]));
    assert_eq!(vals("c@b.c", "ip_address"), json!(["::ffff:10.0.0.1"]));
    assert_eq!(vals("d@b.c", "password"), json!(["x"]));
    assert_eq!(vals("d@b.c", "hashed_password"), json!(["{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g="]));
    assert_eq!(vals("e@b.c", "password"), json!(["{hello}"]));
    assert_eq!(vals("e@b.c", "name"), json!(["ann lee"]));
    assert_eq!(vals("f@b.c", "email"), json!(["f@b.c"]));
    assert_eq!(vals("f@b.c", "username"), json!(["fuser"]));
    assert_eq!(vals("g@b.c", "username"), json!(["guser"]));
    assert_eq!(vals("g@b.c", "hashed_password"), json!(["{MD5}X03MO1qnZdYdgyfeuILPmQ=="]));
    assert_eq!(vals("h@b.c", "hashed_password"), json!(["{CRYPT}abJnggxhB/yWI"]));
    assert_eq!(vals("i@b.c", "password"), json!(["{SHA}"]));
    e.close();
    let _ = std::fs::remove_dir_all(&dir);
}
