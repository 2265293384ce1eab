//! A SQL dump (rows from `sql`): each table's columns mapped to fields (a table that maps
//! none is skipped and named in the summary), each row made into a record straight from its
//! values and stored as a JSON object of its columns.

use super::*;
use crate::contract::{SkippedTable, TableColumns, TableSummary};

/// Tables (each distinct column list of one) kept per SQL file.
pub(super) const MAX_SQL_TABLES: usize = 10_000;

/// One table of a SQL dump, as the ingest of that file sees it.
pub(super) struct SqlTable {
    pub(super) name: String,
    pub(super) columns: Vec<String>,
    pub(super) ctx: Option<u16>,
    pub(super) skipped: Option<String>,
    /// Column indexes in the order a parsed JSON object has its keys (sorted; of equal
    /// names, the last), each with its name as a JSON string: the stored line is built in
    /// that order so that the record made here is the one its line parses into.
    pub(super) order: Vec<(usize, String)>,
    pub(super) rows: u64,
    pub(super) records: u64,
    pub(super) bad: u64,
}


impl Ingest<'_> {
    /// The table of the SQL reader's current statement (found or added to `tables`).
    pub(super) fn sql_table<R: Read>(&mut self, sql: &SqlReader<R>, tables: &mut Vec<SqlTable>, index: &mut HashMap<(String, Vec<String>), usize>) -> Result<Option<usize>> {
        let key = (sql.table().to_string(), sql.columns().to_vec());
        if let Some(&i) = index.get(&key) {
            return Ok(Some(i));
        }
        if tables.len() >= MAX_SQL_TABLES {
            return Ok(None);
        }
        let (name, columns) = key.clone();
        let mut t = SqlTable { name: name.clone(), columns: columns.clone(), ctx: None, skipped: None, order: Vec::new(), rows: 0, records: 0, bad: 0 };
        let chosen = self.opts.tables.is_empty() || self.opts.tables.iter().any(|x| *x == name.to_lowercase());
        if columns.is_empty() {
            t.skipped = Some("no column names (no column list in its INSERTs and no CREATE TABLE before them)".into());
        } else if !chosen {
            t.skipped = Some("not chosen with --table".into());
        } else {
            let c = LineContext::new(Format::Sql, columns.clone(), ',', self.opts.map.clone());
            if !c.maps_any_column() {
                t.skipped = Some("no column maps to a field (use --map column=field)".into());
            } else {
                let mut order: Vec<usize> = (0..columns.len()).collect();
                order.sort_by(|a, b| columns[*a].cmp(&columns[*b]).then(a.cmp(b)));
                // Of equal names a parsed object keeps the last value.
                let mut kept: Vec<(usize, String)> = Vec::with_capacity(order.len());
                for (k, &i) in order.iter().enumerate() {
                    if order.get(k + 1).map(|&n| columns[n] == columns[i]).unwrap_or(false) {
                        continue;
                    }
                    let mut key = String::new();
                    push_json_str(&mut key, &columns[i]);
                    kept.push((i, key));
                }
                t.order = kept;
                t.ctx = Some(self.context(c)?);
            }
        }
        tables.push(t);
        index.insert(key, tables.len() - 1);
        Ok(Some(tables.len() - 1))
    }

    /// A SQL dump: rows of the tables whose columns map to fields, each stored as a JSON
    /// object of its columns (NULL as null), parsed back with its table's context.
    pub(super) fn stream_sql(&mut self, path: &Path, br: BufReader<Box<dyn Read>>, gz: bool, counter: &Arc<AtomicU64>, base_read: u64) -> Result<()> {
        let (rec0, bad0) = (self.records, self.bad);
        let mut sql = SqlReader::new(br, self.opts.max_line_bytes);
        let mut tables: Vec<SqlTable> = Vec::new();
        let mut index = HashMap::new();
        let mut cur: Option<usize> = None;
        let mut stmt = 0u64;
        let mut line = String::new();
        let mut n = 0u64;
        loop {
            let ev = sql.next();
            n += 1;
            if n & 1023 == 0 {
                self.progress.bytes_read.store(base_read + counter.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            match ev {
                Event::End => break,
                Event::Bad(why, at) => self.bad(path, at, &why, b"")?,
                Event::TooLong(_) | Event::Row => {
                    if sql.statement() != stmt {
                        stmt = sql.statement();
                        cur = self.sql_table(&sql, &mut tables, &mut index)?;
                    }
                    let Some(ti) = cur else {
                        self.bad(path, sql.line(), &format!("more than {} tables in one file", MAX_SQL_TABLES), b"")?;
                        continue;
                    };
                    let t = &mut tables[ti];
                    t.rows += 1;
                    let Some(ctx) = t.ctx else { continue };
                    if let Event::TooLong(_) = ev {
                        t.bad += 1;
                        let msg = format!("row over the {} byte cap", self.opts.max_line_bytes);
                        self.bad(path, sql.line(), &msg, b"")?;
                        continue;
                    }
                    if sql.len() != t.columns.len() {
                        t.bad += 1;
                        let msg = format!("{} values where table {} has {} columns", sql.len(), t.name, t.columns.len());
                        self.bad(path, sql.line(), &msg, b"")?;
                        continue;
                    }
                    let colmap = self.contexts[ctx as usize].columns();
                    let mut rec = SourceRecord::default();
                    line.clear();
                    line.push('{');
                    for (k, (i, key)) in t.order.iter().enumerate() {
                        if k > 0 {
                            line.push(',');
                        }
                        line.push_str(key);
                        line.push(':');
                        match sql.value(*i) {
                            None => line.push_str("null"),
                            Some(b) => {
                                let v = String::from_utf8_lossy(b);
                                push_json_str(&mut line, &v);
                                if let Some(f) = colmap[*i] {
                                    if !v.trim().is_empty() {
                                        rec.fields[f].push(v.into_owned());
                                    }
                                }
                            }
                        }
                    }
                    line.push('}');
                    if rec.fields.iter().all(|v| v.is_empty()) {
                        t.bad += 1;
                        self.bad(path, sql.line(), "no value for any field", line.as_bytes())?;
                        continue;
                    }
                    // As `LineContext::parse_with` ends: hashes moved, values kept once.
                    finish_record(&mut rec, self.contexts[ctx as usize].rules);
                    t.records += 1;
                    self.add(rec, ctx, &line)?;
                }
            }
        }
        let mut error = None;
        if let Some(e) = sql.take_io_error() {
            let msg = format!("input stops here: {} (truncated or corrupt compressed data?)", e);
            self.bad(path, sql.line(), &msg, b"")?;
            error = Some(msg);
        }
        let mut listed = Vec::new();
        let mut skipped = Vec::new();
        for t in &tables {
            let columns = TableColumns::Names(t.columns.clone());
            let mut v = TableSummary { name: t.name.clone(), rows: t.rows, records: t.records, bad_lines: t.bad, skipped: None, columns, unmapped: None, samples: None };
            match (&t.skipped, t.ctx) {
                (Some(why), _) => {
                    v.skipped = Some(why.clone());
                    skipped.push(SkippedTable { name: t.name.clone(), reason: why.clone() });
                }
                (None, Some(ctx)) => {
                    let (cols, unmapped) = column_summary(&self.contexts[ctx as usize]);
                    v.columns = TableColumns::Mapped(cols);
                    v.unmapped = Some(unmapped);
                    if self.opts.dry_run {
                        v.samples = Some(self.samples.remove(&ctx).unwrap_or_default());
                    }
                }
                (None, None) => {}
            }
            listed.push(v);
        }
        let info = FileSummary {
            path: path.display().to_string(),
            format: "sql".into(),
            gzip: gz,
            records: self.records - rec0,
            bad_lines: self.bad - bad0,
            tables: Some(listed),
            skipped_tables: Some(skipped),
            ..Default::default()
        };
        self.finish_file(info, error, counter, base_read);
        Ok(())
    }
}
