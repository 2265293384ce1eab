//! The bytes of a dump as SQL tokens: the read buffer (refilled from the input), whitespace
//! and comments (`--`, `#`, `/* */`; `/*!…*/` directives are read as code), words and
//! identifiers (quoted with backticks or double quotes, qualified names cut to their last
//! part), and skipping a statement to its `;` past any string.

use super::*;

impl<R: Read> SqlReader<R> {
    #[inline]
    pub(super) fn fill(&mut self) -> bool {
        if self.pos < self.end {
            return true;
        }
        if self.eof {
            return false;
        }
        loop {
            match self.r.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return false;
                }
                Ok(n) => {
                    self.pos = 0;
                    self.end = n;
                    self.bytes_read += n as u64;
                    return true;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.io_error = Some(e);
                    self.eof = true;
                    return false;
                }
            }
        }
    }

    #[inline]
    pub(super) fn peek(&mut self) -> Option<u8> {
        if self.fill() {
            Some(self.buf[self.pos])
        } else {
            None
        }
    }

    #[inline]
    pub(super) fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        if c == b'\n' {
            self.line += 1;
        }
        Some(c)
    }

    pub(super) fn skip_to_eol(&mut self) {
        while self.fill() {
            let avail = &self.buf[self.pos..self.end];
            if let Some(p) = memchr::memchr(b'\n', avail) {
                self.pos += p + 1;
                self.line += 1;
                return;
            }
            self.pos = self.end;
        }
    }

    /// Skips whitespace and comments (`-- `, `#`, `/* */`, `/*! */` directives included).
    pub(super) fn skip_space(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_ascii_whitespace() {
                self.bump();
            } else if c == b'#' {
                self.skip_to_eol();
            } else if c == b'-' && self.peek2() == Some(b'-') {
                self.line_comment();
            } else if c == b'/' && self.peek2() == Some(b'*') {
                self.bump();
                self.bump();
                let mut prev = 0u8;
                while let Some(c) = self.bump() {
                    if prev == b'*' && c == b'/' {
                        break;
                    }
                    prev = c;
                }
            } else {
                break;
            }
        }
    }

    /// A `--` comment; pg_dump's header turns backslash escapes off.
    pub(super) fn line_comment(&mut self) {
        let mut head = [0u8; 32];
        let mut n = 0;
        while let Some(c) = self.peek() {
            if c == b'\n' {
                break;
            }
            if n < head.len() {
                head[n] = c;
                n += 1;
            } else {
                break;
            }
            self.bump();
        }
        if head[..n].windows(19).any(|w| w == b"PostgreSQL database") {
            self.backslash = false;
        }
        self.skip_to_eol();
    }

    pub(super) fn peek2(&mut self) -> Option<u8> {
        if self.pos + 1 < self.end {
            return Some(self.buf[self.pos + 1]);
        }
        // Keep the byte at `pos`: move it to the front and read behind it.
        if self.pos < self.end && !self.eof {
            let c = self.buf[self.pos];
            self.buf[0] = c;
            self.pos = 0;
            self.end = 1;
            match self.r.read(&mut self.buf[1..]) {
                Ok(0) => self.eof = true,
                Ok(n) => {
                    self.end += n;
                    self.bytes_read += n as u64;
                }
                Err(e) => {
                    self.io_error = Some(e);
                    self.eof = true;
                }
            }
            return if self.end > 1 { Some(self.buf[1]) } else { None };
        }
        None
    }

    /// A bare word (keyword or unquoted identifier), at most MAX_IDENT bytes kept.
    pub(super) fn word(&mut self, out: &mut String) {
        out.clear();
        let mut bytes = Vec::new();
        while let Some(c) = self.peek() {
            if !is_word_byte(c) {
                break;
            }
            if bytes.len() < MAX_IDENT {
                bytes.push(c);
            }
            self.bump();
        }
        out.push_str(&String::from_utf8_lossy(&bytes));
    }

    /// An identifier, quoted (`` ` ``, `"`, `[ ]`) or not, qualified names reduced to
    /// their last part. Empty when none is there.
    pub(super) fn ident(&mut self) -> String {
        let mut name = String::new();
        loop {
            self.skip_space();
            let mut bytes = Vec::new();
            match self.peek() {
                Some(q @ (b'`' | b'"' | b'[')) => {
                    self.bump();
                    let close = if q == b'[' { b']' } else { q };
                    while let Some(c) = self.bump() {
                        if c == close {
                            if close != b']' && self.peek() == Some(close) {
                                self.bump();
                            } else {
                                break;
                            }
                        }
                        if bytes.len() < MAX_IDENT {
                            bytes.push(c);
                        }
                    }
                    name = String::from_utf8_lossy(&bytes).into_owned();
                }
                Some(c) if is_word_byte(c) => {
                    self.word(&mut name);
                }
                _ => return name,
            }
            if self.peek() == Some(b'.') {
                self.bump();
                continue;
            }
            return name;
        }
    }

    /// Skips to the end of the statement (its `;`, outside strings and identifiers).
    /// Returns false when the input ended inside a string.
    pub(super) fn skip_statement(&mut self) -> bool {
        let mut quote = 0u8;
        while self.fill() {
            if quote == 0 {
                let avail = &self.buf[self.pos..self.end];
                // Jump to the next byte that matters.
                match avail.iter().position(|&c| matches!(c, b';' | b'\'' | b'"' | b'`' | b'\n' | b'$')) {
                    None => {
                        self.pos = self.end;
                        continue;
                    }
                    Some(p) => self.pos += p,
                }
                match self.bump() {
                    Some(b';') => return true,
                    Some(q @ (b'\'' | b'"' | b'`')) => quote = q,
                    // PostgreSQL's dollar quotes ($$…$$, $tag$…$tag$): function bodies hold `;`.
                    Some(b'$') if !self.backslash => {
                        let mut tag = vec![b'$'];
                        loop {
                            match self.peek() {
                                Some(c) if (c.is_ascii_alphanumeric() || c == b'_') && tag.len() < 64 => {
                                    tag.push(c);
                                    self.bump();
                                }
                                Some(b'$') => {
                                    self.bump();
                                    tag.push(b'$');
                                    break;
                                }
                                _ => {
                                    tag.clear();
                                    break;
                                }
                            }
                        }
                        if !tag.is_empty() && !self.skip_past(&tag) {
                            return false;
                        }
                    }
                    _ => {}
                }
            } else {
                match self.bump() {
                    Some(b'\\') if quote != b'`' && self.backslash => {
                        self.bump();
                    }
                    Some(c) if c == quote => quote = 0,
                    _ => {}
                }
            }
        }
        quote == 0
    }

    /// Skips past the next occurrence of `tag` (a dollar quote's closing tag; its only `$`
    /// are its first and last bytes). False at the end of the input.
    pub(super) fn skip_past(&mut self, tag: &[u8]) -> bool {
        let mut matched = 0usize;
        while let Some(c) = self.bump() {
            if c == tag[matched] {
                matched += 1;
                if matched == tag.len() {
                    return true;
                }
            } else {
                matched = usize::from(c == tag[0]);
            }
        }
        false
    }

    pub(super) fn keyword_is(w: &str, k: &str) -> bool {
        w.eq_ignore_ascii_case(k)
    }

    pub(super) fn bad_statement(&mut self, why: &str) -> Event {
        let line = self.line;
        self.state = State::Top;
        if self.skip_statement() {
            Event::Bad(why.to_string(), line)
        } else {
            Event::Bad(format!("{}; unterminated string to the end of the input", why), line)
        }
    }
}
