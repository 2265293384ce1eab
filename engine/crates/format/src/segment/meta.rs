//! `segment.json`: what a segment holds and where it came from, every field checked when read.

use super::*;

/// `segment.json`: what a segment holds and where it came from (see FORMAT.md).
#[derive(Debug, Clone)]
pub struct SegmentMeta {
    pub format_version: u64,
    pub id: String,
    /// The data well of an ingest's segment; empty for a merged segment (see `sources`).
    pub well: String,
    pub parts: u32,
    pub records: u64,
    /// The fields that had at least one value.
    pub fields: Vec<String>,
    pub created: String,
    pub bad_lines: u64,
    /// Opaque to the engine: the catalogue metadata `scripts/ingest.ts` replays.
    pub catalogue: Value,
    /// One per input file: how its lines map to fields.
    pub contexts: Vec<LineContext>,
    /// A merged segment's original ingests, in document order (empty, and not written, for
    /// an ingest's segment).
    pub sources: Vec<SourceMeta>,
    /// Every segment id merged into this one (empty, and not written, when unmerged).
    pub aliases: Vec<Alias>,
}

/// One original ingest of a merged segment: its metadata and its documents
/// `[start, start + records)`.
#[derive(Debug, Clone)]
pub struct SourceMeta {
    pub id: String,
    pub well: String,
    pub records: u64,
    pub start: u64,
    pub fields: Vec<String>,
    pub created: String,
    pub bad_lines: u64,
    pub catalogue: Value,
}

/// A segment id whose record ids (`<id>-<part>-<doc>`) resolve into this (merged)
/// segment: its documents start at `start` and its parts had `part_docs` documents.
#[derive(Debug, Clone)]
pub struct Alias {
    pub id: String,
    pub start: u64,
    pub part_docs: Vec<u32>,
}

pub(super) fn json_key<'a>(v: &'a Value, k: &str) -> std::result::Result<&'a Value, String> {
    v.get(k).ok_or_else(|| format!("{} is missing", k))
}

pub(super) fn json_str(v: &Value, k: &str) -> std::result::Result<String, String> {
    json_key(v, k)?.as_str().map(String::from).ok_or_else(|| format!("{} is not a string", k))
}

pub(super) fn json_u64(v: &Value, k: &str) -> std::result::Result<u64, String> {
    json_key(v, k)?.as_u64().ok_or_else(|| format!("{} is not an unsigned integer", k))
}

pub(super) fn json_u32(v: &Value, k: &str) -> std::result::Result<u32, String> {
    u32::try_from(json_u64(v, k)?).map_err(|_| format!("{} is out of range", k))
}

pub(super) fn json_array<'a>(v: &'a Value, k: &str) -> std::result::Result<&'a Vec<Value>, String> {
    json_key(v, k)?.as_array().ok_or_else(|| format!("{} is not an array", k))
}

pub(super) fn json_strings(v: &Value, k: &str) -> std::result::Result<Vec<String>, String> {
    json_array(v, k)?.iter().map(|x| x.as_str().map(String::from).ok_or_else(|| format!("{} holds a non-string", k))).collect()
}

impl SegmentMeta {
    /// The `segment.json` of segment directory `dir`.
    pub fn read(dir: &Path) -> Result<SegmentMeta> {
        let corrupt = |e: String| EngineError::Corrupt(format!("{}: {}", dir.display(), e));
        let v: Value = serde_json::from_slice(&std::fs::read(dir.join("segment.json"))?).map_err(|e| corrupt(e.to_string()))?;
        if let Some(version) = v.get("format_version").and_then(Value::as_u64) {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            super::check_version(version, &format!("segment {}", name.trim_start_matches("seg-")))?;
        }
        SegmentMeta::from_json(&v).map_err(corrupt)
    }

    /// Every field checked; the problem found, if any.
    pub fn from_json(v: &Value) -> std::result::Result<SegmentMeta, String> {
        if !v.is_object() {
            return Err("not a JSON object".into());
        }
        let format_version = json_u64(v, "format_version")?;
        if !readable_version(Some(format_version)) {
            return Err("unsupported format version".into());
        }
        let contexts = json_array(v, "contexts")?
            .iter()
            .map(|c| LineContext::from_json(c).ok_or_else(|| "bad line context".to_string()))
            .collect::<std::result::Result<_, _>>()?;
        let sources = match v.get("sources") {
            None => Vec::new(),
            Some(_) => json_array(v, "sources")?.iter().map(SourceMeta::from_json).collect::<std::result::Result<_, _>>()?,
        };
        let aliases = match v.get("aliases") {
            None => Vec::new(),
            Some(_) => json_array(v, "aliases")?.iter().map(Alias::from_json).collect::<std::result::Result<_, _>>()?,
        };
        Ok(SegmentMeta {
            format_version,
            id: json_str(v, "id")?,
            well: json_str(v, "well")?,
            parts: json_u32(v, "parts")?,
            records: json_u64(v, "records")?,
            fields: json_strings(v, "fields")?,
            created: json_str(v, "created")?,
            bad_lines: json_u64(v, "badLines")?,
            catalogue: json_key(v, "catalogue")?.clone(),
            contexts,
            sources,
            aliases,
        })
    }

    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "format_version": self.format_version, "id": self.id, "well": self.well, "parts": self.parts,
            "records": self.records, "fields": self.fields, "created": self.created, "badLines": self.bad_lines,
            "catalogue": self.catalogue,
            "contexts": self.contexts.iter().map(|c| c.to_json()).collect::<Vec<_>>(),
        });
        if !self.sources.is_empty() {
            v["sources"] = Value::Array(self.sources.iter().map(SourceMeta::to_json).collect());
        }
        if !self.aliases.is_empty() {
            v["aliases"] = Value::Array(self.aliases.iter().map(Alias::to_json).collect());
        }
        v
    }
}

impl SourceMeta {
    pub(super) fn from_json(v: &Value) -> std::result::Result<SourceMeta, String> {
        let in_sources = |e: String| format!("sources: {}", e);
        Ok(SourceMeta {
            id: json_str(v, "id").map_err(in_sources)?,
            well: json_str(v, "well").map_err(in_sources)?,
            records: json_u64(v, "records").map_err(in_sources)?,
            start: json_u64(v, "start").map_err(in_sources)?,
            fields: json_strings(v, "fields").map_err(in_sources)?,
            created: json_str(v, "created").map_err(in_sources)?,
            bad_lines: json_u64(v, "badLines").map_err(in_sources)?,
            catalogue: json_key(v, "catalogue").map_err(in_sources)?.clone(),
        })
    }

    pub(super) fn to_json(&self) -> Value {
        json!({
            "id": self.id, "well": self.well, "records": self.records, "start": self.start,
            "fields": self.fields, "created": self.created, "badLines": self.bad_lines, "catalogue": self.catalogue,
        })
    }
}

impl Alias {
    pub(super) fn from_json(v: &Value) -> std::result::Result<Alias, String> {
        let in_aliases = |e: String| format!("aliases: {}", e);
        let part_docs = json_array(v, "parts")
            .map_err(in_aliases)?
            .iter()
            .map(|d| d.as_u64().and_then(|d| u32::try_from(d).ok()).ok_or_else(|| "aliases: parts holds a bad count".to_string()))
            .collect::<std::result::Result<_, _>>()?;
        Ok(Alias { id: json_str(v, "id").map_err(in_aliases)?, start: json_u64(v, "start").map_err(in_aliases)?, part_docs })
    }

    pub(super) fn to_json(&self) -> Value {
        json!({ "id": self.id, "start": self.start, "parts": self.part_docs })
    }

    /// (global document number) of `<alias id>-<part>-<doc>`, if in range.
    pub fn locate(&self, part: usize, doc: u32) -> Option<u64> {
        let docs = *self.part_docs.get(part)?;
        if doc >= docs {
            return None;
        }
        Some(self.start + self.part_docs[..part].iter().map(|&d| d as u64).sum::<u64>() + doc as u64)
    }
}
