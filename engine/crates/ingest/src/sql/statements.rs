//! The statements a dump is made of: which one starts (`CREATE`, `INSERT`/`REPLACE`,
//! `COPY`, `SET standard_conforming_strings`, others skipped), `CREATE TABLE` column names,
//! and the header of an `INSERT` or a `COPY`: its table and column list.

use super::*;

impl<R: Read> SqlReader<R> {
    pub(super) fn statement_start(&mut self) -> Option<Event> {
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
    pub(super) fn create(&mut self) {
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
    pub(super) fn skip_definition(&mut self) -> bool {
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

    pub(super) fn skip_quoted(&mut self, q: u8) {
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
    pub(super) fn insert(&mut self) -> Option<Event> {
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
        let explicit = match self.column_list() {
            Some(c) => c,
            None => return Some(self.bad_statement("bad column list in INSERT")),
        };
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

    pub(super) fn start_statement(&mut self, name: String, explicit: Vec<String>) {
        self.columns = if explicit.is_empty() { self.tables.get(&name).cloned().unwrap_or_default() } else { explicit };
        self.table = name;
        self.statement += 1;
    }

    /// An optional `(a, b, …)` column list after a table name (`INSERT`, `COPY`): the names
    /// (empty without a list), None when it is malformed.
    pub(super) fn column_list(&mut self) -> Option<Vec<String>> {
        let mut explicit = Vec::new();
        if self.peek() != Some(b'(') {
            return Some(explicit);
        }
        self.bump();
        loop {
            let c = self.ident();
            if explicit.len() < MAX_COLUMNS {
                explicit.push(c);
            }
            self.skip_space();
            match self.bump() {
                Some(b',') => continue,
                Some(b')') => return Some(explicit),
                _ => return None,
            }
        }
    }
}
