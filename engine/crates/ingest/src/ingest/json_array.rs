//! A file that is one JSON array of objects, cut into its elements by a bounded scanner:
//! each element stored as its compact JSON text and parsed like a JSON line.

use super::*;

impl Ingest<'_> {
    /// A file that is one JSON array of objects, read element by element: each object is
    /// stored as its compact JSON text (one line) and parsed like a JSON line. An element
    /// over `max_line_bytes` is reported and skipped without being held.
    pub(super) fn stream_json_array(&mut self, path: &Path, mut br: BufReader<Box<dyn Read>>, gz: bool, counter: &Arc<AtomicU64>, base_read: u64) -> Result<()> {
        let (rec0, bad0) = (self.records, self.bad);
        let ctx = self.context(LineContext::new(Format::JsonArray, vec![], ',', self.opts.map.clone()))?;
        let max = self.opts.max_line_bytes;
        let mut elem: Vec<u8> = Vec::new();
        let (mut started, mut done, mut depth, mut in_str, mut esc, mut too_long, mut scalar) = (false, false, 0u32, false, false, false, false);
        let (mut line_no, mut elem_line, mut elem_len) = (1u64, 1u64, 0u64);
        let mut error = None;
        let mut chunks = 0u64;
        'read: loop {
            let buf = match br.fill_buf() {
                Ok(b) if b.is_empty() => break,
                Ok(b) => b,
                Err(e) => {
                    let msg = format!("input stops here: {} (truncated or corrupt compressed data?)", e);
                    self.bad(path, line_no, &msg, b"")?;
                    error = Some(msg);
                    break;
                }
            };
            let n = buf.len();
            let mut stop = false;
            let mut finished: Vec<(u64, bool, Vec<u8>, u64)> = Vec::new();
            for &c in buf.iter() {
                if c == b'\n' {
                    line_no += 1;
                }
                if done {
                    if !c.is_ascii_whitespace() {
                        finished.push((line_no, false, b"text after the end of the JSON array".to_vec(), 0));
                        stop = true;
                        break;
                    }
                    continue;
                }
                if !started {
                    if c == b'[' {
                        started = true;
                    } else if !(c.is_ascii_whitespace() || c == 0xef || c == 0xbb || c == 0xbf) {
                        finished.push((line_no, false, b"not a JSON array".to_vec(), 0));
                        stop = true;
                        break;
                    }
                    continue;
                }
                if depth == 0 && !scalar {
                    match c {
                        b',' => continue,
                        c if c.is_ascii_whitespace() => continue,
                        b']' => {
                            done = true;
                            continue;
                        }
                        _ => {
                            elem.clear();
                            elem_line = line_no;
                            too_long = false;
                            if c == b'{' || c == b'[' {
                                depth = 1;
                            } else {
                                scalar = true;
                                in_str = c == b'"';
                            }
                            elem.push(c);
                            elem_len = 1;
                            continue;
                        }
                    }
                }
                if scalar && !in_str && (c == b',' || c == b']') {
                    scalar = false;
                    finished.push((elem_line, false, b"not a JSON object".to_vec(), 0));
                    if c == b']' {
                        done = true;
                    }
                    continue;
                }
                elem_len += 1;
                if !too_long {
                    if elem.len() < max {
                        elem.push(c);
                    } else {
                        too_long = true;
                        elem.clear();
                    }
                }
                if in_str {
                    if esc {
                        esc = false;
                    } else if c == b'\\' {
                        esc = true;
                    } else if c == b'"' {
                        in_str = false;
                    }
                    continue;
                }
                if scalar {
                    continue;
                }
                match c {
                    b'"' => in_str = true,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            finished.push((elem_line, !too_long, std::mem::take(&mut elem), elem_len));
                        }
                    }
                    _ => {}
                }
            }
            br.consume(n);
            self.json_elements(path, ctx, finished)?;
            if stop {
                break 'read;
            }
            chunks += 1;
            if chunks & 15 == 0 {
                self.progress.bytes_read.store(base_read + counter.load(Ordering::Relaxed), Ordering::Relaxed);
            }
        }
        if error.is_none() && !self.bad_lines.iter().any(|b| b.reason == "not a JSON array") && (!done || depth > 0 || scalar) {
            let msg = if started { "the input ends inside the JSON array (truncated?)" } else { "empty input" };
            self.bad(path, line_no, msg, b"")?;
        }
        let mut info = FileSummary {
            path: path.display().to_string(),
            format: "json-array".into(),
            gzip: gz,
            records: self.records - rec0,
            bad_lines: self.bad - bad0,
            ..Default::default()
        };
        if self.opts.dry_run {
            info.samples = Some(self.samples.remove(&ctx).unwrap_or_default());
        }
        self.finish_file(info, error, counter, base_read);
        Ok(())
    }

    /// The elements a chunk of a JSON array completed: (line, whole, bytes or the reason
    /// it is bad, length).
    pub(super) fn json_elements(&mut self, path: &Path, ctx: u16, elems: Vec<(u64, bool, Vec<u8>, u64)>) -> Result<()> {
        for (line, ok, bytes, len) in elems {
            if !ok {
                if len > 0 {
                    self.bad(path, line, &format!("element of {} bytes is over the {} byte cap", len, self.opts.max_line_bytes), b"")?;
                } else {
                    self.bad(path, line, &String::from_utf8_lossy(&bytes), b"")?;
                }
                continue;
            }
            let compact = match serde_json::from_slice::<Value>(&bytes) {
                Ok(v @ Value::Object(_)) => v.to_string(),
                Ok(_) => {
                    self.bad(path, line, "not a JSON object", &bytes)?;
                    continue;
                }
                Err(e) => {
                    self.bad(path, line, &format!("invalid JSON ({})", e), &bytes)?;
                    continue;
                }
            };
            match self.contexts[ctx as usize].parse_with(&compact, false) {
                Ok(rec) => {
                    self.note_keys(ctx, &compact);
                    self.add(rec, ctx, &compact)?
                }
                Err(reason) => self.bad(path, line, &reason, compact.as_bytes())?,
            }
        }
        Ok(())
    }

}
