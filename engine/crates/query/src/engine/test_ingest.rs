//! The engine tests' ingest: JSON lines written to `dir/{file}.jsonl` and ingested into
//! `dir/index` as one well, `part_records` records a part; the new segment's id.

use serde_json::json;
use std::path::Path;

pub(super) fn ingest_lines(dir: &Path, file: &str, well: &str, lines: &[String], part_records: u32) -> String {
    let path = dir.join(format!("{}.jsonl", file));
    std::fs::write(&path, lines.join("\n")).unwrap();
    let opts = crate::ingest::IngestOptions::from_json(&json!({
        "indexDir": dir.join("index").to_str().unwrap(), "well": well, "files": [path.to_str().unwrap()], "partRecords": part_records,
    }))
    .unwrap();
    crate::ingest::run(&opts, &Default::default()).unwrap().segment_id.unwrap()
}
