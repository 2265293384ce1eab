use super::*;

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
