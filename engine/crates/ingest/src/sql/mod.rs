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

/// A hex digit's value (lower case; 0 for anything else).
fn nib(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => 0,
    }
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

mod copy;
mod lexer;
mod statements;
mod values;
#[cfg(test)]
mod tests;
