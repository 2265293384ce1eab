//! A streaming reader of SQL dumps: `mysqldump`/MariaDB (`CREATE TABLE` columns, extended
//! `INSERT … VALUES (…),(…);` with or without a column list, backslash escapes, `''`,
//! `NULL`, numbers, `_binary`/`0x…`/`X'…'` literals, comments and `/*!…*/` directives) and
//! `pg_dump` plain format (`COPY … FROM stdin;` blocks ending at `\.`, `INSERT`s).
//!
//! It yields one row at a time. Memory is bounded by `max_row` (the bytes of one row's
//! values), never by a statement or the file: an extended INSERT of many megabytes on one
//! line is read row by row from a fixed buffer. A row over the bound is reported, skipped
//! without being held, and reading goes on. Malformed input (an unterminated string,
//! binary garbage, a statement the reader does not know) is skipped to the next `;` and
//! reported with its line number; nothing panics.

use std::collections::HashMap;
use std::io::Read;

/// Longest identifier kept (longer ones are cut).
const MAX_IDENT: usize = 256;
/// Most columns kept for one table.
const MAX_COLUMNS: usize = 4096;
/// Most tables whose columns are remembered.
const MAX_TABLES: usize = 100_000;

#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    /// A row: `table()`, `columns()`, `value(i)`, `line()`.
    Row,
    /// A row of more than `max_row` bytes, skipped (its size so far).
    TooLong(u64),
    /// Input skipped (why, line where it started).
    Bad(String, u64),
    End,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Top,
    Values,
    Copy,
}

pub struct SqlReader<R: Read> {
    r: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    eof: bool,
    io_error: Option<std::io::Error>,
    line: u64,
    row_line: u64,
    max_row: usize,
    /// `'…'` strings take backslash escapes (MySQL; PostgreSQL with
    /// `standard_conforming_strings = off`).
    backslash: bool,
    state: State,
    tables: HashMap<String, Vec<String>>,
    table: String,
    columns: Vec<String>,
    /// Bumped at each INSERT or COPY: the caller resolves a table once per statement.
    statement: u64,
    vals: Vec<u8>,
    spans: Vec<Option<(u32, u32)>>,
    too_long: bool,
    bytes_read: u64,
}

fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

impl<R: Read> SqlReader<R> {
    pub fn new(r: R, max_row: usize) -> SqlReader<R> {
        SqlReader {
            r,
            buf: vec![0u8; 256 << 10].into_boxed_slice(),
            pos: 0,
            end: 0,
            eof: false,
            io_error: None,
            line: 1,
            row_line: 1,
            max_row,
            backslash: true,
            state: State::Top,
            tables: HashMap::new(),
            table: String::new(),
            columns: Vec::new(),
            statement: 0,
            vals: Vec::new(),
            spans: Vec::new(),
            too_long: false,
            bytes_read: 0,
        }
    }

    /// The table of the current row (the last part of a qualified name).
    pub fn table(&self) -> &str {
        &self.table
    }
    /// Its columns: the statement's column list, else its table's `CREATE TABLE` (empty
    /// when neither was seen).
    pub fn columns(&self) -> &[String] {
        &self.columns
    }
    pub fn statement(&self) -> u64 {
        self.statement
    }
    /// Line where the current row (or the reported input) starts.
    pub fn line(&self) -> u64 {
        self.row_line
    }
    pub fn len(&self) -> usize {
        self.spans.len()
    }
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
    /// Value `i` of the current row as bytes; None for NULL.
    pub fn value(&self, i: usize) -> Option<&[u8]> {
        self.spans.get(i).copied().flatten().map(|(s, e)| &self.vals[s as usize..e as usize])
    }
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }
    /// The read error that ended the input early, if any (a truncated compressed file).
    pub fn take_io_error(&mut self) -> Option<std::io::Error> {
        self.io_error.take()
    }

    #[inline]
    fn fill(&mut self) -> bool {
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
    fn peek(&mut self) -> Option<u8> {
        if self.fill() {
            Some(self.buf[self.pos])
        } else {
            None
        }
    }

    #[inline]
    fn bump(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.pos += 1;
        if c == b'\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn skip_to_eol(&mut self) {
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
    fn skip_space(&mut self) {
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
    fn line_comment(&mut self) {
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

    fn peek2(&mut self) -> Option<u8> {
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
    fn word(&mut self, out: &mut String) {
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
    fn ident(&mut self) -> String {
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
    fn skip_statement(&mut self) -> bool {
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
    fn skip_past(&mut self, tag: &[u8]) -> bool {
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

    fn keyword_is(w: &str, k: &str) -> bool {
        w.eq_ignore_ascii_case(k)
    }

    /// The next row of a table, or another event.
    pub fn next(&mut self) -> Event {
        loop {
            match self.state {
                State::Top => {
                    if let Some(e) = self.statement_start() {
                        return e;
                    }
                }
                State::Values => {
                    if let Some(e) = self.values_next() {
                        return e;
                    }
                }
                State::Copy => {
                    if let Some(e) = self.copy_next() {
                        return e;
                    }
                }
            }
        }
    }

    fn bad_statement(&mut self, why: &str) -> Event {
        let line = self.line;
        self.state = State::Top;
        if self.skip_statement() {
            Event::Bad(why.to_string(), line)
        } else {
            Event::Bad(format!("{}; unterminated string to the end of the input", why), line)
        }
    }

    fn statement_start(&mut self) -> Option<Event> {
        self.skip_space();
        let Some(c) = self.peek() else { return Some(Event::End) };
        if c == b';' {
            self.bump();
            return None;
        }
        self.row_line = self.line;
        if !is_word_byte(c) {
            let line = self.line;
            return Some(if self.skip_statement() {
                Event::Bad("not a SQL statement".into(), line)
            } else {
                Event::Bad("not a SQL statement; unterminated string to the end of the input".into(), line)
            });
        }
        let mut w = String::new();
        self.word(&mut w);
        if Self::keyword_is(&w, "CREATE") {
            self.create();
        } else if Self::keyword_is(&w, "INSERT") || Self::keyword_is(&w, "REPLACE") {
            return self.insert();
        } else if Self::keyword_is(&w, "COPY") {
            return self.copy_start();
        } else if Self::keyword_is(&w, "SET") {
            self.skip_space();
            let mut name = String::new();
            self.word(&mut name);
            if Self::keyword_is(&name, "standard_conforming_strings") {
                self.skip_space();
                if matches!(self.peek(), Some(b'=')) {
                    self.bump();
                }
                self.skip_space();
                let mut v = String::new();
                if self.peek() == Some(b'\'') {
                    self.bump();
                }
                self.word(&mut v);
                self.backslash = Self::keyword_is(&v, "off");
            }
            if !self.skip_statement() {
                return Some(Event::Bad("unterminated string to the end of the input".into(), self.row_line));
            }
        } else if Self::keyword_is(&w, "DELIMITER") {
            self.skip_to_eol();
        } else if !self.skip_statement() {
            return Some(Event::Bad("unterminated string to the end of the input".into(), self.row_line));
        }
        None
    }

    /// `CREATE TABLE [IF NOT EXISTS] name ( column …, … )`: the column names are kept.
    fn create(&mut self) {
        let mut w = String::new();
        loop {
            self.skip_space();
            self.word(&mut w);
            if w.is_empty() || Self::keyword_is(&w, "TABLE") {
                break;
            }
            // TEMPORARY, UNLOGGED, OR REPLACE …; anything else is not a table.
            if !["TEMPORARY", "TEMP", "UNLOGGED", "GLOBAL", "LOCAL", "OR", "REPLACE"].iter().any(|k| Self::keyword_is(&w, k)) {
                self.skip_statement();
                return;
            }
        }
        if !Self::keyword_is(&w, "TABLE") {
            self.skip_statement();
            return;
        }
        let mut name = self.ident();
        if Self::keyword_is(&name, "IF") {
            self.skip_space();
            self.word(&mut w); // NOT
            self.skip_space();
            self.word(&mut w); // EXISTS
            name = self.ident();
        }
        self.skip_space();
        if self.peek() != Some(b'(') {
            self.skip_statement();
            return;
        }
        self.bump();
        let mut cols = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some(b')') {
                break;
            }
            let quoted = matches!(self.peek(), Some(b'`' | b'"' | b'['));
            let col = self.ident();
            let constraint = !quoted
                && ["PRIMARY", "KEY", "UNIQUE", "INDEX", "CONSTRAINT", "FULLTEXT", "SPATIAL", "FOREIGN", "CHECK", "LIKE", "PERIOD", "EXCLUDE"]
                    .iter()
                    .any(|k| Self::keyword_is(&col, k));
            if !col.is_empty() && !constraint && cols.len() < MAX_COLUMNS {
                cols.push(col);
            }
            // The rest of the definition, to its comma or the closing parenthesis.
            if !self.skip_definition() {
                break;
            }
            if self.peek() == Some(b',') {
                self.bump();
            } else {
                break;
            }
        }
        if !cols.is_empty() && (self.tables.len() < MAX_TABLES || self.tables.contains_key(&name)) {
            self.tables.insert(name, cols);
        }
        self.skip_statement();
    }

    /// Skips a column definition up to (not past) its `,` or the table's `)`. False at the
    /// end of the input or a `;`.
    fn skip_definition(&mut self) -> bool {
        let mut depth = 0u32;
        while let Some(c) = self.peek() {
            match c {
                b'(' => depth += 1,
                b')' if depth == 0 => return true,
                b')' => depth -= 1,
                b',' if depth == 0 => return true,
                b';' => return false,
                b'\'' | b'"' | b'`' => {
                    self.bump();
                    self.skip_quoted(c);
                    continue;
                }
                _ => {}
            }
            self.bump();
        }
        false
    }

    fn skip_quoted(&mut self, q: u8) {
        while let Some(c) = self.bump() {
            if c == b'\\' && q != b'`' && self.backslash {
                self.bump();
            } else if c == q {
                if self.peek() == Some(q) {
                    self.bump();
                } else {
                    return;
                }
            }
        }
    }

    /// `INSERT [IGNORE …] INTO name [(columns)] VALUES`: then rows.
    fn insert(&mut self) -> Option<Event> {
        let mut w = String::new();
        loop {
            self.skip_space();
            self.word(&mut w);
            if w.is_empty() {
                return Some(self.bad_statement("INSERT without INTO"));
            }
            if Self::keyword_is(&w, "INTO") {
                break;
            }
        }
        let name = self.ident();
        self.skip_space();
        let mut explicit = Vec::new();
        if self.peek() == Some(b'(') {
            self.bump();
            loop {
                let c = self.ident();
                if explicit.len() < MAX_COLUMNS {
                    explicit.push(c);
                }
                self.skip_space();
                match self.bump() {
                    Some(b',') => continue,
                    Some(b')') => break,
                    _ => return Some(self.bad_statement("bad column list in INSERT")),
                }
            }
        }
        self.skip_space();
        self.word(&mut w);
        if !(Self::keyword_is(&w, "VALUES") || Self::keyword_is(&w, "VALUE")) {
            // INSERT … SELECT and the like: no literal rows.
            self.skip_statement();
            return None;
        }
        self.start_statement(name, explicit);
        self.state = State::Values;
        None
    }

    fn start_statement(&mut self, name: String, explicit: Vec<String>) {
        self.columns = if explicit.is_empty() { self.tables.get(&name).cloned().unwrap_or_default() } else { explicit };
        self.table = name;
        self.statement += 1;
    }

    fn begin_row(&mut self) {
        self.vals.clear();
        self.spans.clear();
        self.too_long = false;
        self.row_line = self.line;
    }

    #[inline]
    fn push_byte(&mut self, c: u8) {
        if self.vals.len() < self.max_row {
            self.vals.push(c);
        } else {
            self.too_long = true;
        }
    }

    fn push_bytes(&mut self, b: &[u8]) {
        if self.vals.len() + b.len() <= self.max_row {
            self.vals.extend_from_slice(b);
        } else {
            self.too_long = true;
        }
    }

    fn row_done(&mut self) -> Event {
        if self.too_long {
            Event::TooLong(self.vals.len() as u64)
        } else {
            Event::Row
        }
    }

    fn values_next(&mut self) -> Option<Event> {
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
    fn read_value(&mut self) -> Result<(), &'static str> {
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
    fn hex_digits(&mut self, close: Option<u8>) {
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
    fn string(&mut self, q: u8, esc: bool) -> Result<(), &'static str> {
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

    /// `COPY name [(columns)] FROM stdin;`: the data lines follow.
    fn copy_start(&mut self) -> Option<Event> {
        let name = self.ident();
        self.skip_space();
        let mut explicit = Vec::new();
        if self.peek() == Some(b'(') {
            self.bump();
            loop {
                let c = self.ident();
                if explicit.len() < MAX_COLUMNS {
                    explicit.push(c);
                }
                self.skip_space();
                match self.bump() {
                    Some(b',') => continue,
                    Some(b')') => break,
                    _ => return Some(self.bad_statement("bad column list in COPY")),
                }
            }
        }
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
    fn copy_next(&mut self) -> Option<Event> {
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

    fn end_copy_field(&mut self, start: u32, raw_null: bool, len: usize) {
        let null = raw_null && len == 2;
        self.spans.push(if null { None } else { Some((start, self.vals.len() as u32)) });
    }
}

fn nib(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => 0,
    }
}

/// Whether the start of a file looks like a SQL dump: a dump's comment header or its first
/// statements, with a CREATE TABLE, INSERT INTO or COPY somewhere in the sample.
pub fn looks_like_sql(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&head[..head.len().min(64 << 10)]);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    let upper = t.chars().take(64).collect::<String>().to_ascii_uppercase();
    let starts = ["--", "/*", "CREATE ", "INSERT ", "DROP ", "SET ", "LOCK ", "COPY ", "USE ", "BEGIN", "START ", "REPLACE "].iter().any(|k| upper.starts_with(k));
    if !starts {
        return false;
    }
    let u = text.to_ascii_uppercase();
    u.contains("INSERT INTO") || u.contains("CREATE TABLE") || (u.contains("COPY ") && u.contains("FROM STDIN"))
}

/// `s` as a SQL string literal in MySQL's escaping (what mysqldump writes).
pub fn quote_mysql(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\0' => out.push_str("\\0"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\u{1a}' => out.push_str("\\Z"),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `s` as a field of a pg_dump COPY line.
pub fn quote_copy(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(input: &[u8], max: usize) -> Vec<Result<(String, Vec<String>, Vec<Option<String>>), String>> {
        let mut r = SqlReader::new(input, max);
        let mut out = Vec::new();
        for _ in 0..10_000 {
            match r.next() {
                Event::End => return out,
                Event::Row => out.push(Ok((r.table().to_string(), r.columns().to_vec(), (0..r.len()).map(|i| r.value(i).map(|v| String::from_utf8_lossy(v).into_owned())).collect()))),
                Event::TooLong(n) => out.push(Err(format!("too long {}", n))),
                Event::Bad(w, l) => out.push(Err(format!("{}:{}", l, w))),
            }
        }
        panic!("no end");
    }

    fn s(v: &str) -> Option<String> {
        Some(v.to_string())
    }

    #[test]
    fn mysqldump_extended_insert() {
        let dump = b"-- MySQL dump 10.13\n/*!40101 SET NAMES utf8mb4 */;\nDROP TABLE IF EXISTS `wp_users`;\nCREATE TABLE `wp_users` (\n  `ID` bigint(20) unsigned NOT NULL AUTO_INCREMENT,\n  `user_login` varchar(60) NOT NULL DEFAULT '',\n  `user_pass` varchar(255) NOT NULL DEFAULT '',\n  PRIMARY KEY (`ID`),\n  KEY `user_login_key` (`user_login`)\n) ENGINE=InnoDB;\nLOCK TABLES `wp_users` WRITE;\nINSERT INTO `wp_users` VALUES (1,'ad\\'min','it''s',NULL),(2,_binary 'x\\\\y',0x616263, -1.5e3);\nUNLOCK TABLES;\n";
        let r = rows(dump, 1 << 20);
        assert_eq!(r.len(), 2, "{:?}", r);
        let (t, c, v) = r[0].clone().unwrap();
        assert_eq!(t, "wp_users");
        assert_eq!(c, vec!["ID", "user_login", "user_pass"]);
        assert_eq!(v, vec![s("1"), s("ad'min"), s("it's"), None]);
        assert_eq!(r[1].clone().unwrap().2, vec![s("2"), s("x\\y"), s("abc"), s("-1.5e3")]);
    }

    #[test]
    fn pg_dump_copy_and_insert() {
        let dump = b"--\n-- PostgreSQL database dump\n--\nSET standard_conforming_strings = on;\nCREATE TABLE public.users (\n    id integer NOT NULL,\n    email character varying(255),\n    pw text\n);\nCOPY public.users (id, email, pw) FROM stdin;\n1\ta@x.org\tp\\tw\n2\t\\N\tback\\\\slash\n\\.\nINSERT INTO public.users (id, email, pw) VALUES (3, 'c@x.org', 'a\\b'::text);\n";
        let r = rows(dump, 1 << 20);
        assert_eq!(r.len(), 3, "{:?}", r);
        assert_eq!(r[0].clone().unwrap().2, vec![s("1"), s("a@x.org"), s("p\tw")]);
        assert_eq!(r[1].clone().unwrap().2, vec![s("2"), None, s("back\\slash")]);
        let (t, c, v) = r[2].clone().unwrap();
        assert_eq!((t.as_str(), c.len()), ("users", 3));
        assert_eq!(v, vec![s("3"), s("c@x.org"), s("a\\b")]);
    }

    #[test]
    fn pg_function_bodies_are_skipped_whole() {
        let dump = b"-- PostgreSQL database dump\nSET standard_conforming_strings = on;\nCREATE FUNCTION public.f() RETURNS trigger LANGUAGE plpgsql AS $_$\nBEGIN\n  INSERT INTO audit VALUES ('x'); RETURN NEW;\nEND;\n$_$;\nCREATE FUNCTION public.g() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;\nCOPY public.t (a) FROM stdin;\nonly\n\\.\n";
        let r = rows(dump, 1 << 20);
        assert_eq!(r.len(), 1, "{:?}", r);
        assert_eq!(r[0].as_ref().unwrap().2, vec![s("only")]);
    }

    #[test]
    fn bad_input_is_reported_not_fatal() {
        // An unterminated string swallows the rest of the input, reported once.
        let r = rows(b"INSERT INTO t (a) VALUES ('x),('y');\nINSERT INTO t (a) VALUES ('z", 1 << 20);
        assert!(!r.is_empty() && r.iter().all(|x| x.is_err()), "{:?}", r);
        let r = rows(b"INSERT INTO t (a) VALUES ('ok'),('never closed", 1 << 20);
        assert!(r[0].is_ok() && r[1].as_ref().is_err_and(|e| e.contains("unterminated")), "{:?}", r);
        // Garbage between statements.
        let mut g = b"\x00\xff\xfe garbage ; INSERT INTO t (a) VALUES ('ok');".to_vec();
        g.extend_from_slice(b"INSERT INTO t (a) VALUES ('x' y);INSERT INTO t (a) VALUES ('ok2');");
        let r = rows(&g, 1 << 20);
        let ok: Vec<_> = r.iter().filter_map(|x| x.as_ref().ok()).map(|x| x.2[0].clone().unwrap()).collect();
        assert_eq!(ok, vec!["ok", "ok2"], "{:?}", r);
        assert_eq!(r.iter().filter(|x| x.is_err()).count(), 2);
    }

    #[test]
    fn huge_rows_are_skipped_with_bounded_memory() {
        let mut d = b"INSERT INTO t (a,b) VALUES ('small','x'),('".to_vec();
        d.extend(std::iter::repeat(b'A').take(3 << 20));
        d.extend_from_slice(b"','y'),('after','z');");
        let mut r = SqlReader::new(&d[..], 4096);
        assert_eq!(r.next(), Event::Row);
        assert!(matches!(r.next(), Event::TooLong(n) if n <= 4096));
        assert!(r.vals.capacity() <= 2 * 4096 + 64, "capacity {}", r.vals.capacity());
        assert_eq!(r.next(), Event::Row);
        assert_eq!(r.value(0), Some(&b"after"[..]));
        assert_eq!(r.next(), Event::End);
    }

    #[test]
    fn random_bytes_never_panic() {
        let mut x = 0x2545F4914F6CDD1Du64;
        for round in 0..300 {
            let len = (round * 37) % 2000;
            let mut d = b"INSERT INTO t VALUES ('".to_vec();
            for _ in 0..len {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let alphabet = b"'(),;\\\"`-#/*\n\tNULL0x ab";
                d.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            let mut r = SqlReader::new(&d[..], 64);
            let mut n = 0;
            while r.next() != Event::End {
                n += 1;
                assert!(n < 100_000);
            }
        }
    }

    #[test]
    fn escaping_round_trips() {
        let mut x = 0x9E3779B97F4A7C15u64;
        let alphabet: Vec<char> = "ab'\"\\\n\r\t\0\u{1a}%_;,()é€ ".chars().collect();
        for _ in 0..500 {
            let mut v = String::new();
            for _ in 0..(x % 20) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                v.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            // MySQL: \% and \_ keep their backslash, as MySQL does; the dump escapes neither.
            let my = format!("INSERT INTO t (a) VALUES ({});", quote_mysql(&v));
            let r = rows(my.as_bytes(), 1 << 20);
            assert_eq!(r[0].as_ref().unwrap().2[0].as_deref(), Some(v.as_str()), "{}", my);
            let pg = format!("COPY t (a) FROM stdin;\n{}\n\\.\n", quote_copy(&v));
            let r = rows(pg.as_bytes(), 1 << 20);
            assert_eq!(r[0].as_ref().unwrap().2[0].as_deref(), Some(v.as_str()), "{:?}", pg);
        }
    }

    #[test]
    fn detects_dumps() {
        assert!(looks_like_sql(b"-- MySQL dump\nCREATE TABLE t (a int);"));
        assert!(looks_like_sql(b"INSERT INTO t VALUES (1);"));
        assert!(!looks_like_sql(b"email,password\na@b.c,x\n"));
        assert!(!looks_like_sql(b"{\"a\":1}\n"));
    }
}
