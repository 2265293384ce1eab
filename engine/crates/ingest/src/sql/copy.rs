//! pg_dump's `COPY … FROM stdin;` blocks: the statement, then one row a data line
//! (tab-separated, `\N` for NULL, backslash escapes) up to the closing `\.`.

use super::*;

impl<R: Read> SqlReader<R> {
    /// `COPY name [(columns)] FROM stdin;`: the data lines follow.
    pub(super) fn copy_start(&mut self) -> Option<Event> {
        let name = self.ident();
        self.skip_space();
        let explicit = match self.column_list() {
            Some(c) => c,
            None => return Some(self.bad_statement("bad column list in COPY")),
        };
        self.skip_space();
        let mut w = String::new();
        self.word(&mut w);
        self.skip_space();
        let mut src = String::new();
        self.word(&mut src);
        let stdin = Self::keyword_is(&w, "FROM") && Self::keyword_is(&src, "stdin");
        if !self.skip_statement() {
            return Some(Event::Bad("unterminated string to the end of the input".into(), self.row_line));
        }
        if stdin {
            self.skip_to_eol();
            self.start_statement(name, explicit);
            self.state = State::Copy;
        }
        None
    }

    /// One data line of a COPY block: tab-separated, `\N` for NULL, backslash escapes.
    pub(super) fn copy_next(&mut self) -> Option<Event> {
        if self.peek().is_none() {
            self.state = State::Top;
            return Some(Event::Bad("the input ends inside a COPY block (no \\.)".into(), self.line));
        }
        self.begin_row();
        let mut start = 0u32;
        let mut raw_null = true;
        let mut field_len = 0usize;
        loop {
            // Plain bytes up to the next tab, backslash or newline, copied as one run.
            if self.fill() {
                let avail = &self.buf[self.pos..self.end];
                let p = memchr::memchr3(b'\t', b'\\', b'\n', avail).unwrap_or(avail.len());
                if p > 0 {
                    let run = &avail[..p];
                    let run = if run.last() == Some(&b'\r') && avail.get(p) == Some(&b'\n') { &run[..run.len() - 1] } else { run };
                    if self.vals.len() + run.len() <= self.max_row {
                        self.vals.extend_from_slice(run);
                    } else {
                        self.too_long = true;
                    }
                    raw_null = false;
                    field_len += p;
                    self.pos += p;
                    continue;
                }
            }
            let c = match self.bump() {
                None | Some(b'\n') => {
                    self.end_copy_field(start, raw_null, field_len);
                    break;
                }
                Some(c) => c,
            };
            match c {
                b'\t' => {
                    self.end_copy_field(start, raw_null, field_len);
                    start = self.vals.len() as u32;
                    raw_null = true;
                    field_len = 0;
                    continue;
                }
                b'\r' if self.peek() == Some(b'\n') => continue,
                b'\\' => {
                    let e = self.bump().unwrap_or(b'\\');
                    field_len += 2;
                    if e == b'.' && self.spans.is_empty() && field_len == 2 && matches!(self.peek(), Some(b'\n' | b'\r') | None) {
                        if self.peek() == Some(b'\r') {
                            self.bump();
                        }
                        self.bump();
                        self.state = State::Top;
                        return None;
                    }
                    raw_null = raw_null && e == b'N' && field_len == 2;
                    match e {
                        b'N' => {}
                        b'b' => self.push_byte(8),
                        b'f' => self.push_byte(12),
                        b'n' => self.push_byte(b'\n'),
                        b'r' => self.push_byte(b'\r'),
                        b't' => self.push_byte(b'\t'),
                        b'v' => self.push_byte(11),
                        b'0'..=b'7' => {
                            let mut v = (e - b'0') as u32;
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d @ b'0'..=b'7') => {
                                        v = v * 8 + (d - b'0') as u32;
                                        self.bump();
                                    }
                                    _ => break,
                                }
                            }
                            self.push_byte(v as u8);
                        }
                        b'x' => {
                            let mut v = 0u8;
                            for _ in 0..2 {
                                match self.peek() {
                                    Some(d) if d.is_ascii_hexdigit() => {
                                        v = (v << 4) | nib(d.to_ascii_lowercase());
                                        self.bump();
                                    }
                                    _ => break,
                                }
                            }
                            self.push_byte(v);
                        }
                        b'\n' => {
                            self.push_byte(b'\n');
                        }
                        other => self.push_byte(other),
                    }
                    if e == b'N' && !raw_null {
                        self.push_bytes(b"\\N");
                    }
                }
                other => {
                    raw_null = false;
                    field_len += 1;
                    self.push_byte(other);
                }
            }
        }
        Some(self.row_done())
    }

    pub(super) fn end_copy_field(&mut self, start: u32, raw_null: bool, len: usize) {
        let null = raw_null && len == 2;
        self.spans.push(if null { None } else { Some((start, self.vals.len() as u32)) });
    }
}
