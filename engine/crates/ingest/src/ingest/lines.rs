//! A file of lines (JSON lines, CSV/TSV with a header, combolists and stealer logs): its
//! lines read without ever holding more than `max_line_bytes` of one, each parsed into a
//! record or reported.

use super::*;
use crate::fields::URL;

pub(super) enum LineStatus {
    Line,
    TooLong(u64),
}

/// Reads '\n'-terminated lines, never holding more than `max` bytes of one line.
pub(super) struct LineReader<R> {
    pub(super) r: R,
    pub(super) max: usize,
}

impl<R: BufRead> LineReader<R> {
    pub(super) fn next(&mut self, buf: &mut Vec<u8>) -> std::io::Result<Option<LineStatus>> {
        buf.clear();
        let mut too_long = false;
        let mut len = 0u64;
        let mut any = false;
        loop {
            let avail = self.r.fill_buf()?;
            if avail.is_empty() {
                if !any {
                    return Ok(None);
                }
                break;
            }
            any = true;
            let (chunk, consumed, done) = match memchr::memchr(b'\n', avail) {
                Some(p) => (&avail[..p], p + 1, true),
                None => (avail, avail.len(), false),
            };
            len += chunk.len() as u64;
            if !too_long {
                if buf.len() + chunk.len() <= self.max {
                    buf.extend_from_slice(chunk);
                } else {
                    too_long = true;
                    buf.clear();
                }
            }
            self.r.consume(consumed);
            if done {
                break;
            }
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        Ok(Some(if too_long { LineStatus::TooLong(len) } else { LineStatus::Line }))
    }
}

impl Ingest<'_> {
    /// A file of lines: JSON lines, CSV/TSV with a header, combolists and stealer logs.
    pub(super) fn stream_lines(&mut self, path: &Path, br: BufReader<Box<dyn Read>>, format: Format, gz: bool, counter: &Arc<AtomicU64>, base_read: u64) -> Result<()> {
        let mut lines = LineReader { r: br, max: self.opts.max_line_bytes };
        let mut format = format;
        let mut ctx: Option<u16> = None;
        let mut buf = Vec::new();
        let mut line_no = 0u64;
        let (rec0, bad0) = (self.records, self.bad);
        let mut error: Option<String> = None;
        let mut stealer_lines = 0u64;
        loop {
            let st = match lines.next(&mut buf) {
                Ok(Some(s)) => s,
                Ok(None) => break,
                Err(e) => {
                    let msg = format!("input stops here: {} (truncated or corrupt compressed data?)", e);
                    self.bad(path, line_no + 1, &msg, b"")?;
                    error = Some(msg);
                    break;
                }
            };
            line_no += 1;
            if line_no & 1023 == 0 {
                self.progress.bytes_read.store(base_read + counter.load(Ordering::Relaxed), Ordering::Relaxed);
            }
            if let LineStatus::TooLong(n) = st {
                self.bad(path, line_no, &format!("line of {} bytes is over the {} byte cap", n, self.opts.max_line_bytes), b"")?;
                continue;
            }
            let mut bytes: &[u8] = &buf;
            if line_no == 1 && bytes.starts_with(&[0xef, 0xbb, 0xbf]) {
                bytes = &bytes[3..];
            }
            if bytes.iter().all(|b| b.is_ascii_whitespace()) {
                continue;
            }
            if memchr::memchr(0, bytes).is_some() {
                let b = bytes.to_vec();
                self.bad(path, line_no, "NUL byte in line", &b)?;
                continue;
            }
            // Borrowed when the line is valid UTF-8 (no copy).
            let text = String::from_utf8_lossy(bytes);
            if format == Format::Auto {
                format = if text.trim_start().starts_with('{') {
                    Format::Jsonl
                } else {
                    let d = detect_delimiter(&text);
                    let cols = split_delimited(&text, d).unwrap_or_default();
                    if !text.contains('@') && (cols.len() >= 3 || (cols.len() == 2 && cols.iter().any(|c| self.map_key(c).is_some()))) {
                        Format::Csv
                    } else {
                        Format::Combo
                    }
                };
            }
            if ctx.is_none() {
                if format == Format::Csv {
                    let d = detect_delimiter(&text);
                    let cols = split_delimited(&text, d).unwrap_or_default();
                    let c = LineContext::new(Format::Csv, cols.clone(), d, self.opts.map.clone());
                    if !c.maps_any_column() {
                        let msg = format!("no column of the header maps to a field ({}); use --map column=field", cols.join(","));
                        self.bad(path, line_no, &msg, bytes)?;
                        error = Some(msg);
                        break;
                    }
                    ctx = Some(self.context(c)?);
                    continue;
                }
                ctx = Some(self.context(LineContext::new(format, vec![], ',', self.opts.map.clone()))?);
            }
            let ci = ctx.unwrap();
            let line = if format == Format::Jsonl { text.trim() } else { &text[..] };
            match self.contexts[ci as usize].parse_with(line, false) {
                Ok(rec) => {
                    if format == Format::Jsonl {
                        self.note_keys(ci, line);
                    }
                    if format == Format::Combo && !rec.fields[URL].is_empty() {
                        stealer_lines += 1;
                    }
                    self.add(rec, ci, line)?
                }
                Err(reason) => self.bad(path, line_no, &reason, line.as_bytes())?,
            }
        }
        let mut info = FileSummary {
            path: path.display().to_string(),
            format: if format == Format::Auto { "empty" } else { format.name() }.to_string(),
            gzip: gz,
            records: self.records - rec0,
            stealer_lines,
            bad_lines: self.bad - bad0,
            ..Default::default()
        };
        if let Some(ci) = ctx {
            let c = &self.contexts[ci as usize];
            if c.format == Format::Csv {
                let (cols, unmapped) = column_summary(c);
                info.delimiter = Some(c.delim.to_string());
                info.columns = Some(cols);
                info.unmapped = Some(unmapped);
            }
            if self.opts.dry_run {
                info.samples = Some(self.samples.remove(&ci).unwrap_or_default());
            }
        }
        self.finish_file(info, error, counter, base_read);
        Ok(())
    }
}
