//! Reading a published segment: its parts, sources and line contexts.

use super::*;

/// One original ingest inside a segment: its data well and its documents, a contiguous
/// range of the segment's global document numbers (parts concatenated).
#[derive(Debug, Clone)]
pub struct SourceRange {
    /// The ingest's segment id (the source's id in `wells.log`).
    pub id: String,
    pub well: String,
    pub well_lower: String,
    pub start: u64,
    pub records: u64,
}

/// What a segment's line context needs to be rendered without allocating: its columns'
/// fields and, for CSV, the order of the keys of its raw record (a JSON object with sorted
/// keys, the last column winning a repeated name). Made once per segment (`Segment::open`) for `render::EntryWriter`.
pub struct ContextPlan {
    pub format: Format,
    pub delim: char,
    pub columns: Vec<Option<usize>>,
    /// CSV: (column, header as a JSON string) in key order.
    pub raw_keys: Vec<(usize, String)>,
}

impl ContextPlan {
    pub fn new(c: &LineContext) -> ContextPlan {
        let columns = c.columns().to_vec();
        let mut keys: Vec<(usize, &String)> = c.header.iter().enumerate().collect();
        // Stable: equal names keep their column order; the last one is kept.
        keys.sort_by(|a, b| a.1.cmp(b.1));
        let mut raw_keys: Vec<(usize, String)> = Vec::with_capacity(keys.len());
        for (i, (col, name)) in keys.iter().enumerate() {
            if keys.get(i + 1).map(|n| n.1 == *name).unwrap_or(false) {
                continue;
            }
            raw_keys.push((*col, serde_json::to_string(name).unwrap_or_default()));
        }
        ContextPlan { format: c.format, delim: c.delim, columns, raw_keys }
    }
}

pub struct Segment {
    pub meta: SegmentMeta,
    pub parts: Vec<Part>,
    pub records: u64,
    /// Global document number of each part's first document.
    pub part_start: Vec<u64>,
    /// The ingests in this segment, in document order (one for an unmerged segment).
    pub sources: Vec<SourceRange>,
    /// How each line context is rendered (`meta.contexts`, same order).
    pub plans: Vec<ContextPlan>,
    /// Per part, the ascending local document ranges of taken-down sources (`wells.log`),
    /// hidden from every read; all empty without takedowns.
    pub hidden: Vec<Vec<std::ops::Range<u32>>>,
    /// Records in `hidden`.
    pub hidden_records: u64,
}

impl Segment {
    pub fn open(dir: &Path) -> Result<Segment> {
        let meta = SegmentMeta::read(dir)?;
        let mut parts = Vec::with_capacity(meta.parts as usize);
        let contexts: Arc<[LineContext]> = meta.contexts.clone().into();
        for i in 0..meta.parts {
            parts.push(Part::open(&dir.join(format!("part-{}", i)), Arc::clone(&contexts))?);
        }
        let records = parts.iter().map(|p| p.docs as u64).sum();
        let mut part_start = Vec::with_capacity(parts.len());
        let mut acc = 0u64;
        for p in &parts {
            part_start.push(acc);
            acc += p.docs as u64;
        }
        let range = |id: &str, well: &str, start: u64, records: u64| SourceRange { id: id.to_string(), well: well.to_string(), well_lower: well.to_lowercase(), start, records };
        let sources = if meta.sources.is_empty() {
            vec![range(&meta.id, &meta.well, 0, records)]
        } else {
            meta.sources.iter().map(|s| range(&s.id, &s.well, s.start, s.records)).collect()
        };
        let plans = meta.contexts.iter().map(ContextPlan::new).collect();
        let hidden = vec![Vec::new(); parts.len()];
        Ok(Segment { meta, parts, records, part_start, sources, plans, hidden, hidden_records: 0 })
    }

    /// Applies the operators' well edits (`wells.log`, read by the engine): sources renamed,
    /// the document ranges of deleted sources hidden. On a freshly opened segment only.
    pub fn apply_edits(&mut self, deleted: &std::collections::HashSet<String>, renamed: &std::collections::HashMap<String, String>) {
        for s in &mut self.sources {
            if let Some(name) = renamed.get(&s.id) {
                s.well = name.clone();
                s.well_lower = name.to_lowercase();
            }
        }
        if !self.sources.iter().any(|s| deleted.contains(&s.id)) {
            return;
        }
        // Ranges by source, not by name: a deleted source's well may share its name with a
        // live one (ingested again after the takedown).
        let mut hidden_records = 0;
        for pi in 0..self.parts.len() {
            let ps = self.part_start[pi];
            let pe = ps + self.parts[pi].docs as u64;
            let mut out: Vec<std::ops::Range<u32>> = Vec::new();
            for s in self.sources.iter().filter(|s| deleted.contains(&s.id)) {
                let (a, b) = (s.start.max(ps), (s.start + s.records).min(pe));
                if a < b {
                    hidden_records += b - a;
                    let r = (a - ps) as u32..(b - ps) as u32;
                    match out.last_mut() {
                        Some(l) if l.end == r.start => l.end = r.end,
                        _ => out.push(r),
                    }
                }
            }
            self.hidden[pi] = out;
        }
        self.hidden_records = hidden_records;
    }

    /// Whether every record of the segment is taken down.
    pub fn all_hidden(&self) -> bool {
        self.hidden_records > 0 && self.hidden_records >= self.records
    }

    /// Whether document `doc` of part `part` belongs to a taken-down source.
    #[inline]
    pub fn is_hidden(&self, part: usize, doc: u32) -> bool {
        let h = &self.hidden[part];
        if h.is_empty() {
            return false;
        }
        let i = h.partition_point(|r| r.end <= doc);
        i < h.len() && h[i].start <= doc
    }

    /// Drops the taken-down documents of `part` from an ascending list.
    pub fn drop_hidden(&self, part: usize, docs: &mut Vec<u32>) {
        let h = &self.hidden[part];
        if h.is_empty() {
            return;
        }
        let mut k = 0usize;
        docs.retain(|&d| {
            while k < h.len() && h[k].end <= d {
                k += 1;
            }
            !(k < h.len() && h[k].start <= d)
        });
    }

    /// (part, doc) of a global document number.
    pub fn locate_global(&self, g: u64) -> Option<(usize, u32)> {
        let p = self.part_start.partition_point(|&s| s <= g).checked_sub(1)?;
        let d = g - self.part_start[p];
        if d >= self.parts[p].docs as u64 {
            return None;
        }
        Some((p, d as u32))
    }

    /// The ingest holding document `doc` of part `part`.
    pub fn source_of(&self, part: usize, doc: u32) -> &SourceRange {
        if self.sources.len() == 1 {
            return &self.sources[0];
        }
        let g = self.part_start[part] + doc as u64;
        let i = self.sources.partition_point(|s| s.start <= g).saturating_sub(1);
        &self.sources[i]
    }

    /// Local document ranges of `part` that belong to wells named in `wells` (lower-case).
    pub fn well_ranges(&self, part: usize, wells: &[String]) -> Vec<std::ops::Range<u32>> {
        let ps = self.part_start[part];
        let pe = ps + self.parts[part].docs as u64;
        let mut out: Vec<std::ops::Range<u32>> = Vec::new();
        for s in &self.sources {
            if !wells.iter().any(|w| *w == s.well_lower) {
                continue;
            }
            let (a, b) = (s.start.max(ps), (s.start + s.records).min(pe));
            if a < b {
                let r = (a - ps) as u32..(b - ps) as u32;
                match out.last_mut() {
                    Some(l) if l.end == r.start => l.end = r.end,
                    _ => out.push(r),
                }
            }
        }
        out
    }
}
