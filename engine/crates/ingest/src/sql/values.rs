//! A row's values: the rows of an `INSERT … VALUES (…),(…);` one at a time, each value a
//! MySQL or PostgreSQL literal (quoted strings with their escapes, numbers, `NULL`,
//! `_binary`/`0x…`/`X'…'`), kept in the row buffer up to `max_row` bytes.

use super::*;

impl<R: Read> SqlReader<R> {
    pub(super) fn begin_row(&mut self) {
        self.vals.clear();
        self.spans.clear();
        self.too_long = false;
        self.row_line = self.line;
    }

    #[inline]
    pub(super) fn push_byte(&mut self, c: u8) {
        if self.vals.len() < self.max_row {
            self.vals.push(c);
        } else {
            self.too_long = true;
        }
    }

    pub(super) fn push_bytes(&mut self, b: &[u8]) {
        if self.vals.len() + b.len() <= self.max_row {
            self.vals.extend_from_slice(b);
        } else {
            self.too_long = true;
        }
    }

    pub(super) fn row_done(&mut self) -> Event {
        if self.too_long {
            Event::TooLong(self.vals.len() as u64)
        } else {
            Event::Row
        }
    }

    pub(super) fn values_next(&mut self) -> Option<Event> {
        self.skip_space();
        match self.peek() {
            None => {
                self.state = State::Top;
                Some(Event::Bad("the input ends inside an INSERT".into(), self.line))
            }
            Some(b',') => {
                self.bump();
                None
            }
            Some(b';') => {
                self.bump();
                self.state = State::Top;
                None
            }
            Some(b'(') => {
                self.bump();
                self.begin_row();
                loop {
                    self.skip_space();
                    if self.peek() == Some(b')') && self.spans.is_empty() {
                        self.bump();
                        break;
                    }
                    if let Err(why) = self.read_value() {
                        let line = self.row_line;
                        let e = self.bad_statement(why);
                        return Some(match e {
                            Event::Bad(w, _) => Event::Bad(w, line),
                            other => other,
                        });
                    }
                    self.skip_space();
                    match self.bump() {
                        Some(b',') => continue,
                        Some(b')') => break,
                        None => {
                            self.state = State::Top;
                            return Some(Event::Bad("the input ends inside a row".into(), self.row_line));
                        }
                        Some(_) => {
                            let line = self.row_line;
                            let e = self.bad_statement("unexpected text in a row of VALUES");
                            return Some(match e {
                                Event::Bad(w, _) => Event::Bad(w, line),
                                other => other,
                            });
                        }
                    }
                }
                Some(self.row_done())
            }
            Some(_) => {
                // ON DUPLICATE KEY UPDATE, RETURNING …: the rest of the statement.
                self.state = State::Top;
                if !self.skip_statement() {
                    return Some(Event::Bad("unterminated string to the end of the input".into(), self.line));
                }
                None
            }
        }
    }

    /// One value of a row, appended to `vals` with its span.
    pub(super) fn read_value(&mut self) -> Result<(), &'static str> {
        let start = self.vals.len() as u32;
        let c = self.peek().ok_or("the input ends inside a row")?;
        let mut null = false;
        match c {
            b'\'' | b'"' => {
                self.bump();
                let esc = self.backslash;
                self.string(c, esc)?;
                // Adjacent literals are one string ('a' 'b' is 'ab').
                loop {
                    self.skip_space();
                    if self.peek() != Some(c) {
                        break;
                    }
                    self.bump();
                    self.string(c, esc)?;
                }
            }
            b'-' | b'+' | b'.' | b'0'..=b'9' => {
                if c == b'0' && matches!(self.peek2(), Some(b'x' | b'X')) {
                    self.bump();
                    self.bump();
                    self.hex_digits(None);
                } else {
                    self.push_byte(c);
                    self.bump();
                    while let Some(d) = self.peek() {
                        if d.is_ascii_alphanumeric() || d == b'.' || ((d == b'-' || d == b'+') && matches!(self.vals.last(), Some(b'e' | b'E'))) {
                            self.push_byte(d);
                            self.bump();
                        } else {
                            break;
                        }
                    }
                }
            }
            c if is_word_byte(c) => {
                let mut w = String::new();
                self.word(&mut w);
                self.skip_space();
                let next = self.peek();
                if Self::keyword_is(&w, "NULL") {
                    null = true;
                } else if next == Some(b'\'') && (w.eq_ignore_ascii_case("x")) {
                    self.bump();
                    self.hex_digits(Some(b'\''));
                } else if next == Some(b'\'') && (w.eq_ignore_ascii_case("e")) {
                    self.bump();
                    self.string(b'\'', true)?;
                } else if w.starts_with('_') || w.eq_ignore_ascii_case("n") || w.eq_ignore_ascii_case("b") {
                    // A charset introducer (`_binary`, `_utf8mb4`), N'…' or b'…': the literal after it.
                    if matches!(next, Some(b'\'' | b'"' | b'0'..=b'9')) {
                        return self.read_value();
                    }
                    self.push_bytes(w.as_bytes());
                } else if next == Some(b'(') {
                    // A function call (NOW(), CAST(…)): no literal value.
                    null = true;
                    self.bump();
                    let mut depth = 1u32;
                    while depth > 0 {
                        match self.bump().ok_or("the input ends inside a row")? {
                            b'(' => depth += 1,
                            b')' => depth -= 1,
                            q @ (b'\'' | b'"') => self.skip_quoted(q),
                            _ => {}
                        }
                    }
                } else {
                    // TRUE, FALSE, DEFAULT, other bare words: their text.
                    self.push_bytes(w.as_bytes());
                }
            }
            _ => return Err("unexpected byte in a row of VALUES"),
        }
        // A PostgreSQL cast (`'…'::text`, `'…'::character varying`).
        self.skip_space();
        while self.peek() == Some(b':') && self.peek2() == Some(b':') {
            self.bump();
            self.bump();
            let mut w = String::new();
            loop {
                self.skip_space();
                self.word(&mut w);
                self.skip_space();
                if self.peek() == Some(b'(') {
                    while let Some(c) = self.bump() {
                        if c == b')' {
                            break;
                        }
                    }
                }
                if w.is_empty() || matches!(self.peek(), Some(b',' | b')' | b':') | None) {
                    break;
                }
            }
        }
        self.spans.push(if null { None } else { Some((start, self.vals.len() as u32)) });
        Ok(())
    }

    /// Hex digits (after `0x`, or inside `X'…'` up to `close`), decoded: the text when it
    /// is printable UTF-8, else the lower-case hex (a binary hash column).
    pub(super) fn hex_digits(&mut self, close: Option<u8>) {
        let start = self.vals.len();
        while let Some(c) = self.peek() {
            if c.is_ascii_hexdigit() {
                self.push_byte(c.to_ascii_lowercase());
                self.bump();
            } else {
                if close == Some(c) {
                    self.bump();
                }
                break;
            }
        }
        let hex = &self.vals[start..];
        if hex.len() % 2 == 0 {
            let bytes: Vec<u8> = hex.chunks(2).map(|p| (nib(p[0]) << 4) | nib(p[1])).collect();
            if let Ok(s) = std::str::from_utf8(&bytes) {
                if !s.is_empty() && !s.chars().any(|c| c.is_control()) {
                    self.vals.truncate(start);
                    self.vals.extend_from_slice(&bytes);
                }
            }
        }
    }

    /// The rest of a quoted string (its opening quote read), unescaped into `vals`.
    pub(super) fn string(&mut self, q: u8, esc: bool) -> Result<(), &'static str> {
        loop {
            if !self.fill() {
                return Err("unterminated string");
            }
            let avail = &self.buf[self.pos..self.end];
            let hit = if esc { memchr::memchr3(q, b'\\', b'\n', avail) } else { memchr::memchr2(q, b'\n', avail) };
            match hit {
                None => {
                    let n = avail.len();
                    if self.vals.len() + n <= self.max_row {
                        self.vals.extend_from_slice(avail);
                    } else {
                        self.too_long = true;
                    }
                    self.pos = self.end;
                }
                Some(p) => {
                    if self.vals.len() + p <= self.max_row {
                        self.vals.extend_from_slice(&avail[..p]);
                    } else {
                        self.too_long = true;
                    }
                    self.pos += p;
                    let c = self.bump().unwrap_or(0);
                    if c == b'\n' {
                        self.push_byte(b'\n');
                    } else if c == q {
                        if self.peek() == Some(q) {
                            self.bump();
                            self.push_byte(q);
                        } else {
                            return Ok(());
                        }
                    } else {
                        let e = self.bump().ok_or("unterminated string")?;
                        match e {
                            b'0' => self.push_byte(0),
                            b'b' => self.push_byte(8),
                            b'n' => self.push_byte(b'\n'),
                            b'r' => self.push_byte(b'\r'),
                            b't' => self.push_byte(b'\t'),
                            b'Z' => self.push_byte(0x1a),
                            // MySQL keeps the backslash of \% and \_ (LIKE patterns).
                            b'%' | b'_' => self.push_bytes(&[b'\\', e]),
                            other => self.push_byte(other),
                        }
                    }
                }
            }
        }
    }
}
