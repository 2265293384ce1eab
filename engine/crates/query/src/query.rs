//! The query language: one parser for every entry point (dashboard, /v2 API, monitoring).
//!
//! ```text
//! query   := or
//! or      := and (" OR " and)*
//! and     := unary (("&" | " AND " | whitespace) unary)*
//! unary   := "(" or ")" | term
//! term    := [field (":" | "=")] value
//! value   := '"' chars '"' | "/" regex "/" (regex mode) | bare chars (backslash escapes)
//! ```
//! `database_name` terms are source filters: only at the top level, joined with `&`/AND,
//! never alone. A trailing `&wildcard` or `&regex` switches the mode (never both).

use crate::error::{EngineError, Result};
use crate::fields::{field_index, FIELDS};

pub const MIN_QUERY_CHARS: usize = 4;
pub const MAX_QUERY_CHARS: usize = 200;
pub const MAX_REGEX_COMPILED_BYTES: usize = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Exact,
    Wildcard,
    Regex,
}

impl Mode {
    pub fn parse(s: &str) -> Result<Mode> {
        match s {
            "exact" => Ok(Mode::Exact),
            "wildcard" => Ok(Mode::Wildcard),
            "regex" => Ok(Mode::Regex),
            other => Err(EngineError::InvalidArgument(format!("unknown mode {:?}", other))),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Mode::Exact => "exact",
            Mode::Wildcard => "wildcard",
            Mode::Regex => "regex",
        }
    }
}

/// One piece of a wildcard pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WildPiece {
    Lit(char),
    One,
    Many,
}

#[derive(Debug, Clone)]
pub enum Pattern {
    Exact(String),
    Wildcard(Vec<WildPiece>),
    Regex(String),
}

#[derive(Debug, Clone)]
pub struct Term {
    /// None: every field.
    pub field: Option<usize>,
    pub pattern: Pattern,
}

#[derive(Debug, Clone)]
pub enum Node {
    Term(Term),
    And(Vec<Node>),
    Or(Vec<Node>),
}

#[derive(Debug, Clone)]
pub struct ParsedQuery {
    pub root: Node,
    /// Lower-cased `database_name` values (any of them matches).
    pub sources: Vec<String>,
    pub mode: Mode,
}

fn err(code: &'static str, message: impl Into<String>) -> EngineError {
    EngineError::query(code, message)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    LParen,
    RParen,
    And,
    Or,
    /// `field` is the raw name before `:`/`=` (lower-cased), `chars` the unescaped value
    /// with an `escaped` flag per char, `slashed` when written as `/…/`.
    Term { field: Option<String>, chars: Vec<(char, bool)>, slashed: bool, regex_src: String },
}

struct Lexer<'a> {
    s: Vec<char>,
    i: usize,
    mode: Mode,
    _src: &'a str,
}

fn is_space(c: char) -> bool {
    c.is_whitespace()
}

impl<'a> Lexer<'a> {
    fn peek_word(&self, w: &str) -> bool {
        // " AND " / " OR " as operators: the word, then whitespace or "(".
        let wc: Vec<char> = w.chars().collect();
        if self.i + wc.len() > self.s.len() {
            return false;
        }
        if self.s[self.i..self.i + wc.len()] != wc[..] {
            return false;
        }
        let after = self.s.get(self.i + wc.len()).copied();
        let before_ok = self.i == 0 || is_space(self.s[self.i - 1]) || self.s[self.i - 1] == ')';
        before_ok && (after.is_none() || matches!(after, Some(c) if is_space(c) || c == '('))
    }

    fn tokens(&mut self) -> Result<Vec<Tok>> {
        let mut out = Vec::new();
        while self.i < self.s.len() {
            let c = self.s[self.i];
            if is_space(c) {
                self.i += 1;
            } else if c == '(' {
                out.push(Tok::LParen);
                self.i += 1;
            } else if c == ')' {
                out.push(Tok::RParen);
                self.i += 1;
            } else if c == '&' {
                out.push(Tok::And);
                self.i += 1;
            } else if self.peek_word("AND") {
                out.push(Tok::And);
                self.i += 3;
            } else if self.peek_word("OR") {
                out.push(Tok::Or);
                self.i += 2;
            } else {
                out.push(self.term()?);
            }
        }
        Ok(out)
    }

    fn term(&mut self) -> Result<Tok> {
        // Optional field prefix: identifier then ':' or '='.
        let start = self.i;
        let mut j = self.i;
        while j < self.s.len() && (self.s[j].is_ascii_alphanumeric() || self.s[j] == '_') {
            j += 1;
        }
        let mut field = None;
        if j > start && j < self.s.len() && (self.s[j] == ':' || self.s[j] == '=') {
            let name: String = self.s[start..j].iter().collect::<String>().to_lowercase();
            let known = name == "database_name" || field_index(&name).is_some();
            let looks_like_field = name.len() >= 2 && name.chars().all(|c| c.is_ascii_lowercase() || c == '_');
            // `http://…`, `fe80::1`: not a field prefix.
            let next = self.s.get(j + 1).copied();
            if known {
                field = Some(name);
                self.i = j + 1;
            } else if looks_like_field && next != Some('/') && next != Some(':') {
                return Err(err(
                    "unknown_field",
                    format!("Unknown field \"{}\". Fields: {}, database_name.", name, FIELDS.join(", ")),
                ));
            }
        }
        let mut chars = Vec::new();
        let mut slashed = false;
        let mut regex_src = String::new();
        match self.s.get(self.i).copied() {
            Some('"') => {
                self.i += 1;
                let mut closed = false;
                while self.i < self.s.len() {
                    let c = self.s[self.i];
                    if c == '\\' && self.i + 1 < self.s.len() {
                        let n = self.s[self.i + 1];
                        chars.push((n, true));
                        regex_src.push('\\');
                        regex_src.push(n);
                        self.i += 2;
                    } else if c == '"' {
                        self.i += 1;
                        closed = true;
                        break;
                    } else {
                        chars.push((c, false));
                        regex_src.push(c);
                        self.i += 1;
                    }
                }
                if !closed {
                    return Err(err("syntax", "A quote is not closed."));
                }
                if self.mode == Mode::Regex && regex_src.len() >= 2 && regex_src.starts_with('/') && regex_src.ends_with('/') {
                    regex_src = regex_src[1..regex_src.len() - 1].to_string();
                    slashed = true;
                }
            }
            Some('/') if self.mode == Mode::Regex => {
                self.i += 1;
                let mut closed = false;
                while self.i < self.s.len() {
                    let c = self.s[self.i];
                    if c == '\\' && self.i + 1 < self.s.len() {
                        let n = self.s[self.i + 1];
                        if n != '/' {
                            regex_src.push('\\');
                        }
                        regex_src.push(n);
                        self.i += 2;
                    } else if c == '/' {
                        self.i += 1;
                        closed = true;
                        break;
                    } else {
                        regex_src.push(c);
                        self.i += 1;
                    }
                }
                if !closed {
                    return Err(err("syntax", "A regular expression is not closed with '/'."));
                }
                slashed = true;
                chars = regex_src.chars().map(|c| (c, false)).collect();
            }
            _ => {
                let mut depth = 0i32;
                while self.i < self.s.len() {
                    let c = self.s[self.i];
                    if is_space(c) || c == '&' {
                        break;
                    }
                    if c == '(' {
                        if self.mode != Mode::Regex {
                            break;
                        }
                        depth += 1;
                    }
                    if c == ')' {
                        if self.mode != Mode::Regex || depth == 0 {
                            break;
                        }
                        depth -= 1;
                    }
                    if c == '\\' && self.i + 1 < self.s.len() {
                        let n = self.s[self.i + 1];
                        chars.push((n, true));
                        regex_src.push('\\');
                        regex_src.push(n);
                        self.i += 2;
                        continue;
                    }
                    chars.push((c, false));
                    regex_src.push(c);
                    self.i += 1;
                }
            }
        }
        if chars.is_empty() && regex_src.is_empty() {
            return Err(match field {
                Some(f) => err("syntax", format!("The field \"{}\" has no value.", f)),
                None => err("syntax", "A term is empty."),
            });
        }
        Ok(Tok::Term { field, chars, slashed, regex_src })
    }
}

struct Parser {
    toks: Vec<Tok>,
    i: usize,
    mode: Mode,
    default_field: Option<usize>,
    sources: Vec<String>,
}

impl Parser {
    fn or(&mut self, depth: usize) -> Result<Node> {
        let mut parts = vec![self.and(depth)?];
        while self.toks.get(self.i) == Some(&Tok::Or) {
            self.i += 1;
            parts.push(self.and(depth)?);
        }
        Ok(if parts.len() == 1 { parts.pop().unwrap() } else { Node::Or(parts) })
    }

    fn and(&mut self, depth: usize) -> Result<Node> {
        let mut parts = Vec::new();
        let mut expect_operand = true;
        loop {
            match self.toks.get(self.i) {
                None | Some(Tok::RParen) | Some(Tok::Or) => break,
                Some(Tok::And) => {
                    if expect_operand {
                        return Err(err("syntax", "An operator (&, AND) has nothing on one side."));
                    }
                    self.i += 1;
                    expect_operand = true;
                }
                _ => {
                    if let Some(n) = self.unary(depth)? {
                        parts.push(n);
                    }
                    expect_operand = false;
                }
            }
        }
        if expect_operand && (!parts.is_empty() || self.i > 0) {
            return Err(err("syntax", "An operator (&, AND, OR) has nothing on one side."));
        }
        if parts.is_empty() {
            // Only source filters here: the caller decides whether that is allowed.
            return Ok(Node::And(vec![]));
        }
        Ok(if parts.len() == 1 { parts.pop().unwrap() } else { Node::And(parts) })
    }

    fn unary(&mut self, depth: usize) -> Result<Option<Node>> {
        match self.toks.get(self.i).cloned() {
            Some(Tok::LParen) => {
                self.i += 1;
                let n = self.or(depth + 1)?;
                if self.toks.get(self.i) != Some(&Tok::RParen) {
                    return Err(err("syntax", "A parenthesis is not closed."));
                }
                self.i += 1;
                if let Node::And(v) = &n {
                    if v.is_empty() {
                        return Err(err("syntax", "Empty parentheses."));
                    }
                }
                Ok(Some(n))
            }
            Some(Tok::Term { field, chars, slashed, regex_src }) => {
                self.i += 1;
                if field.as_deref() == Some("database_name") {
                    if depth > 0 || self.toks.contains(&Tok::Or) {
                        return Err(err(
                            "syntax",
                            "database_name can only be added to a search with &database_name=…, not inside OR or parentheses.",
                        ));
                    }
                    let v: String = chars.iter().map(|(c, _)| *c).collect();
                    self.sources.push(v.trim().to_lowercase());
                    return Ok(None);
                }
                let field_idx = match &field {
                    Some(f) => field_index(f),
                    None => self.default_field,
                };
                Ok(Some(Node::Term(self.term(field_idx, chars, slashed, regex_src)?)))
            }
            _ => Err(err("syntax", "The query is not well formed.")),
        }
    }

    fn term(&self, field: Option<usize>, chars: Vec<(char, bool)>, slashed: bool, regex_src: String) -> Result<Term> {
        match self.mode {
            Mode::Exact => Ok(Term { field, pattern: Pattern::Exact(chars.iter().map(|(c, _)| *c).collect()) }),
            Mode::Wildcard => {
                if slashed || (chars.len() > 2 && chars[0] == ('/', false) && chars[chars.len() - 1] == ('/', false)) {
                    return Err(err(
                        "mixed_modes",
                        "Wildcard and regex cannot be mixed in one query: turn regex on instead of wildcard.",
                    ));
                }
                let pieces: Vec<WildPiece> = chars
                    .iter()
                    .map(|&(c, esc)| match (c, esc) {
                        ('*', false) => WildPiece::Many,
                        ('?', false) => WildPiece::One,
                        (c, _) => WildPiece::Lit(c),
                    })
                    .collect();
                let has_wild = pieces.iter().any(|p| !matches!(p, WildPiece::Lit(_)));
                if !has_wild {
                    return Ok(Term { field, pattern: Pattern::Exact(chars.iter().map(|(c, _)| *c).collect()) });
                }
                if field.is_none() {
                    return Err(err(
                        "field_required",
                        "Wildcard searches need a field, for example email:john* or username:j?hn.",
                    ));
                }
                if pieces.iter().all(|p| matches!(p, WildPiece::Many)) {
                    return Err(err("wildcard_start", "A wildcard search needs at least one character that is not a wildcard."));
                }
                Ok(Term { field, pattern: Pattern::Wildcard(pieces) })
            }
            Mode::Regex => {
                if field.is_none() {
                    return Err(err("field_required", "Regex searches need a field, for example username:/j.hn[0-9]+/."));
                }
                validate_regex(&regex_src)?;
                Ok(Term { field, pattern: Pattern::Regex(regex_src) })
            }
        }
    }
}

/// Compile-check a user regex: linear-time engine, size capped, clear errors for syntax
/// the engine does not support (backreferences, look-around). The size is bounded before
/// anything is compiled (`compile_sized`).
pub fn validate_regex(src: &str) -> Result<()> {
    if src.is_empty() {
        return Err(err("syntax", "The regular expression is empty."));
    }
    parse_regex_ast(src)?;
    compile_regex(src, true).map(|_| ())
}

fn parse_regex_ast(src: &str) -> Result<regex_syntax::ast::Ast> {
    regex_syntax::ast::parse::Parser::new().parse(src).map_err(|e| {
        use regex_syntax::ast::ErrorKind::*;
        match e.kind() {
            UnsupportedBackreference => err(
                "regex_unsupported",
                "Backreferences (\\1) are not supported: regex search runs in linear time.",
            ),
            UnsupportedLookAround => err(
                "regex_unsupported",
                "Look-ahead and look-behind are not supported: regex search runs in linear time.",
            ),
            _ => err("regex_syntax", format!("Invalid regular expression: {}", e.kind())),
        }
    })
}

fn regex_too_big() -> EngineError {
    err("regex_too_big", "The regular expression is too large once compiled. Use a shorter pattern or smaller repetitions.")
}

/// Compiled bytes, per copy, of the atoms of a pattern in regex 1.7 (byte-oriented,
/// case-insensitive, the costlier of the two), measured from `(?:atom){10}` and `{100}`
/// (engine/ARCHITECTURE.md, "Regexes"): a Unicode class is expanded into UTF-8 byte
/// sequences, so `\w` costs a thousand times a letter.
mod atom_bytes {
    /// A literal (a letter is three instructions once case-folded); one outside ASCII.
    pub const LITERAL: u64 = 96;
    pub const LITERAL_UNICODE: u64 = 256;
    /// `a-z` in a class, `[:alpha:]`.
    pub const ASCII_RANGE: u64 = 320;
    /// `.`, `[^a]`, a range outside ASCII: any character but a few, as UTF-8 sequences.
    pub const ANY: u64 = 1_250;
    /// `\w`, `\W`, `\pL`: the largest atoms, every Unicode word character's UTF-8 sequences.
    pub const UNICODE_CLASS: u64 = 100_000;
    pub const DIGIT: u64 = 6_700;
    pub const SPACE: u64 = 1_024;
    /// An instruction of its own: a split (alternation, repetition), an assertion.
    pub const INST: u64 = 32;
}

/// An estimate of a pattern's compiled size in bytes, read from its syntax tree in
/// microseconds, before any compilation: each atom's measured size (`atom_bytes`) times the
/// product of the repetitions around it. Compiling is what costs: the case folding of a
/// large class alone is heavy work (`[\w\W]`, however small it compiles), and a pattern like
/// `[\w\W]{1000}[\w\W]{1000}` spends a thread's time on compiling only to be refused. The
/// estimate refuses such patterns outright; the compile's own limit stays the exact check for what
/// it lets through. The `u` flag is followed (`(?-u:\w)` is an ASCII class); case
/// insensitivity is always assumed (the costlier).
pub fn estimated_compiled_bytes(ast: &regex_syntax::ast::Ast) -> u64 {
    AtomBytes { unicode: true }.of(ast)
}

/// The flags in effect where the walk is: only `u` changes an atom's size.
#[derive(Clone, Copy)]
struct AtomBytes {
    unicode: bool,
}

impl AtomBytes {
    fn set(&mut self, flags: &regex_syntax::ast::Flags) {
        if let Some(on) = flags.flag_state(regex_syntax::ast::Flag::Unicode) {
            self.unicode = on;
        }
    }

    /// `(?-u)` set in a group lasts to the group's end: the state is passed along its items.
    fn of(&mut self, ast: &regex_syntax::ast::Ast) -> u64 {
        use regex_syntax::ast::{Ast, Class, GroupKind, RepetitionKind, RepetitionRange};
        use atom_bytes::*;
        match ast {
            Ast::Flags(f) => {
                self.set(&f.flags);
                INST
            }
            Ast::Empty(_) | Ast::Assertion(_) => INST,
            Ast::Literal(l) => literal_bytes(l.c),
            Ast::Dot(_) => ANY,
            Ast::Class(Class::Perl(c)) => self.perl_class(c),
            Ast::Class(Class::Unicode(c)) => unicode_class_bytes(c),
            Ast::Class(Class::Bracketed(c)) => self.bracketed_class(c),
            Ast::Repetition(r) => {
                let copies = match &r.op.kind {
                    RepetitionKind::ZeroOrOne | RepetitionKind::ZeroOrMore | RepetitionKind::OneOrMore => 1,
                    RepetitionKind::Range(RepetitionRange::Exactly(n)) => u64::from(*n),
                    RepetitionKind::Range(RepetitionRange::AtLeast(n)) => u64::from(*n) + 1,
                    RepetitionKind::Range(RepetitionRange::Bounded(_, n)) => u64::from(*n),
                };
                self.of(&r.ast).saturating_mul(copies.max(1)).saturating_add(INST)
            }
            Ast::Group(g) => {
                let mut inner = *self;
                if let GroupKind::NonCapturing(flags) = &g.kind {
                    inner.set(flags);
                }
                inner.of(&g.ast)
            }
            Ast::Alternation(a) => a.asts.iter().fold(0u64, |sum, a| sum.saturating_add(self.of(a)).saturating_add(INST)),
            Ast::Concat(c) => c.asts.iter().fold(0u64, |sum, a| sum.saturating_add(self.of(a))),
        }
    }

    fn perl_class(&self, c: &regex_syntax::ast::ClassPerl) -> u64 {
        use regex_syntax::ast::ClassPerlKind::*;
        if !self.unicode {
            return atom_bytes::ASCII_RANGE;
        }
        let base = match c.kind {
            Word => atom_bytes::UNICODE_CLASS,
            Digit => atom_bytes::DIGIT,
            Space => atom_bytes::SPACE,
        };
        // A complement holds every character the class does not.
        if c.negated {
            base.saturating_add(atom_bytes::ANY)
        } else {
            base
        }
    }

    fn bracketed_class(&self, c: &regex_syntax::ast::ClassBracketed) -> u64 {
        let (bytes, unicode) = self.class_set(&c.kind);
        if !c.negated {
            bytes
        } else if unicode {
            // The complement of a large class is as large.
            bytes.saturating_add(atom_bytes::UNICODE_CLASS)
        } else {
            bytes.saturating_add(atom_bytes::ANY)
        }
    }

    /// A class set's bytes (the sum of its items: a union is no larger), and whether it
    /// holds a large (Unicode) class.
    fn class_set(&self, set: &regex_syntax::ast::ClassSet) -> (u64, bool) {
        match set {
            regex_syntax::ast::ClassSet::Item(i) => self.class_item(i),
            regex_syntax::ast::ClassSet::BinaryOp(op) => {
                let (lb, lu) = self.class_set(&op.lhs);
                let (rb, ru) = self.class_set(&op.rhs);
                (lb.saturating_add(rb), lu || ru)
            }
        }
    }

    fn class_item(&self, item: &regex_syntax::ast::ClassSetItem) -> (u64, bool) {
        use regex_syntax::ast::ClassSetItem;
        match item {
            ClassSetItem::Empty(_) => (0, false),
            ClassSetItem::Literal(l) => (literal_bytes(l.c), false),
            ClassSetItem::Range(r) if r.start.c.is_ascii() && r.end.c.is_ascii() => (atom_bytes::ASCII_RANGE, false),
            ClassSetItem::Range(_) => (atom_bytes::ANY, false),
            ClassSetItem::Ascii(_) => (atom_bytes::ASCII_RANGE, false),
            ClassSetItem::Unicode(c) => (unicode_class_bytes(c), true),
            ClassSetItem::Perl(c) => (self.perl_class(c), self.unicode),
            ClassSetItem::Bracketed(b) => (self.bracketed_class(b), self.class_set(&b.kind).1),
            ClassSetItem::Union(u) => {
                u.items.iter().map(|i| self.class_item(i)).fold((0, false), |(b, u), (ib, iu)| (b.saturating_add(ib), u || iu))
            }
        }
    }
}

fn literal_bytes(c: char) -> u64 {
    if c.is_ascii() {
        atom_bytes::LITERAL
    } else {
        atom_bytes::LITERAL_UNICODE
    }
}

fn unicode_class_bytes(c: &regex_syntax::ast::ClassUnicode) -> u64 {
    atom_bytes::UNICODE_CLASS.saturating_add(if c.negated { atom_bytes::ANY } else { 0 })
}

/// Compiled regexes of recent queries, so a repeated query (the next page, a refresh)
/// skips the compilation. Bounded by entries and by bytes (a few large patterns must not fill
/// memory that a count of entries alone allows): each entry is charged an upper bound of its
/// compiled size and the least recently used entries are evicted past `REGEX_CACHE_BYTES`.
///
/// Callers get a clone: in regex 1.7 a clone shares the compiled programs (`Arc`) but gets
/// its own, empty pool of per-thread lazy-DFA caches, so those caches (up to
/// `REGEX_DFA_BYTES` per searching thread) live only as long as the search that built them
/// and are never held by this cache. Worst case measured in engine/BENCHMARKS.md.
struct RegexCache {
    map: std::collections::HashMap<(String, bool), RegexCacheEntry>,
    bytes: usize,
    tick: u64,
}

struct RegexCacheEntry {
    re: regex::bytes::Regex,
    bytes: usize,
    used: u64,
}

static REGEX_CACHE: std::sync::Mutex<Option<RegexCache>> = std::sync::Mutex::new(None);
const REGEX_CACHE_ENTRIES: usize = 256;
/// Byte budget of the compiled programs the cache holds (charged estimates, see `compile_sized`).
pub const REGEX_CACHE_BYTES: usize = 32 << 20;
/// Lazy-DFA cache limit of one regex on one searching thread (regex `dfa_size_limit`).
const REGEX_DFA_BYTES: usize = 4 << 20;

impl RegexCache {
    fn get(&mut self, key: &(String, bool)) -> Option<regex::bytes::Regex> {
        self.tick += 1;
        let tick = self.tick;
        self.map.get_mut(key).map(|e| {
            e.used = tick;
            e.re.clone()
        })
    }

    fn insert(&mut self, key: (String, bool), re: regex::bytes::Regex, bytes: usize) {
        if bytes > REGEX_CACHE_BYTES {
            return;
        }
        if let Some(old) = self.map.remove(&key) {
            self.bytes -= old.bytes;
        }
        while !self.map.is_empty() && (self.map.len() >= REGEX_CACHE_ENTRIES || self.bytes + bytes > REGEX_CACHE_BYTES) {
            let lru = self.map.iter().min_by_key(|(_, e)| e.used).map(|(k, _)| k.clone()).expect("non-empty");
            if let Some(e) = self.map.remove(&lru) {
                self.bytes -= e.bytes;
            }
        }
        self.tick += 1;
        self.bytes += bytes;
        self.map.insert(key, RegexCacheEntry { re, bytes, used: self.tick });
    }
}

/// (entries, charged bytes) of the regex cache.
pub fn regex_cache_usage() -> (usize, usize) {
    REGEX_CACHE.lock().ok().and_then(|c| c.as_ref().map(|c| (c.map.len(), c.bytes))).unwrap_or((0, 0))
}

pub fn compile_regex(src: &str, case_insensitive: bool) -> Result<regex::bytes::Regex> {
    let key = (src.to_string(), case_insensitive);
    if let Some(re) = REGEX_CACHE.lock().ok().and_then(|mut c| c.as_mut().and_then(|c| c.get(&key))) {
        return Ok(re);
    }
    let (re, bytes) = compile_sized(src, case_insensitive)?;
    if let Ok(mut c) = REGEX_CACHE.lock() {
        let c = c.get_or_insert_with(|| RegexCache { map: Default::default(), bytes: 0, tick: 0 });
        c.insert(key, re.clone(), bytes + src.len() + 256);
    }
    Ok(re)
}

/// Compile once, with `MAX_REGEX_COMPILED_BYTES` as the limit of each of the (at most
/// three: NFA, forward and reverse DFA programs) compiled programs, after the estimate
/// (`estimated_compiled_bytes`) has refused what would pass it. A compile over the limit
/// stops as soon as it passes it. The regex is charged three times its estimate rounded up
/// to a power of two (at least 8 KiB): regex 1.7 exposes no memory figure of its own.
/// Compiling once matters: each try would parse and case-fold the pattern again, so finding
/// the smallest limit that compiles would cost several compiles.
fn compile_sized(src: &str, case_insensitive: bool) -> Result<(regex::bytes::Regex, usize)> {
    let estimate = estimated_compiled_bytes(&parse_regex_ast(src)?);
    if estimate > MAX_REGEX_COMPILED_BYTES as u64 {
        return Err(regex_too_big());
    }
    let re = compile_regex_uncached(src, case_insensitive)?;
    let charged = (estimate as usize).next_power_of_two().clamp(8 << 10, MAX_REGEX_COMPILED_BYTES);
    Ok((re, 3 * charged))
}

#[cfg(test)]
thread_local! {
    /// Compilations started on this thread (tests: a refusal must come before any).
    static REGEX_BUILDS: std::cell::Cell<usize> = std::cell::Cell::new(0);
}

fn build_regex(src: &str, case_insensitive: bool, size_limit: usize) -> std::result::Result<regex::bytes::Regex, regex::Error> {
    #[cfg(test)]
    REGEX_BUILDS.with(|n| n.set(n.get() + 1));
    regex::bytes::RegexBuilder::new(src)
        .case_insensitive(case_insensitive)
        .size_limit(size_limit)
        .dfa_size_limit(REGEX_DFA_BYTES)
        .build()
}

fn compile_regex_uncached(src: &str, case_insensitive: bool) -> Result<regex::bytes::Regex> {
    build_regex(src, case_insensitive, MAX_REGEX_COMPILED_BYTES)
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(_) => regex_too_big(),
            regex::Error::Syntax(m) => err("regex_syntax", format!("Invalid regular expression: {}", m.lines().last().unwrap_or(""))),
            _ => err("regex_syntax", "Invalid regular expression."),
        })
}

/// Strip trailing `&wildcard` / `&regex` toggles (any ASCII case, repeated) and reconcile
/// them with the requested mode. Linear in the query, however many toggles it ends with.
fn take_mode_suffixes(q: &str, mode: Mode) -> Result<(&str, Mode)> {
    let mut s = q.trim_end();
    let mut out = mode;
    loop {
        let (rest, flag) = if let Some(rest) = strip_suffix_ascii_ci(s, "&wildcard") {
            (rest, Mode::Wildcard)
        } else if let Some(rest) = strip_suffix_ascii_ci(s, "&regex") {
            (rest, Mode::Regex)
        } else {
            return Ok((s, out));
        };
        if out != Mode::Exact && out != flag {
            return Err(err("mixed_modes", "Wildcard and regex cannot be used together."));
        }
        out = flag;
        s = rest.trim_end();
    }
}

/// The mode a query runs in once its typed `&wildcard`/`&regex` toggles are read, without
/// parsing it (the lanes' routing: a regex is compiled and scanned on the heavy lane).
pub fn effective_mode(query: &str, mode: Mode) -> Mode {
    take_mode_suffixes(query.trim(), mode).map(|(_, m)| m).unwrap_or(mode)
}

fn strip_suffix_ascii_ci<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = s.len().checked_sub(suffix.len())?;
    (s.is_char_boundary(cut) && s[cut..].eq_ignore_ascii_case(suffix)).then(|| &s[..cut])
}

pub fn parse(query: &str, mode: Mode, default_field: Option<usize>) -> Result<ParsedQuery> {
    // A typed mode suffix is a toggle, not part of the query: it does not count toward the
    // length (the dashboard removes it before counting; server/src/common/search-rules.ts).
    let (q, mode) = take_mode_suffixes(query.trim(), mode)?;
    let q = q.trim();
    if q.is_empty() {
        return Err(err("empty", "Empty Query"));
    }
    let n = q.chars().count();
    if n > MAX_QUERY_CHARS {
        return Err(err("too_long", "Query Too Long"));
    }
    if n < MIN_QUERY_CHARS {
        return Err(err("too_short", "Query not long enough (minimum 4 characters)"));
    }
    // On a field's tab (a default field) `*smith` is that field's `*smith`, as `username:*smith`
    // is on All: the same scan and limits. Without one, the field must be named.
    if mode == Mode::Wildcard && default_field.is_none() && (q.starts_with('*') || q.starts_with('?')) {
        return Err(err(
            "wildcard_start",
            "A query cannot start with a wildcard: name a field first, for example email:*@example.com or use &domain:example.com.",
        ));
    }
    // `&database_name=…` is often appended to an empty box: a leading or trailing `&` is harmless.
    let q = q.trim().trim_start_matches('&').trim_end_matches('&').to_string();
    let toks = Lexer { s: q.chars().collect(), i: 0, mode, _src: &q }.tokens()?;
    let mut p = Parser { toks, i: 0, mode, default_field, sources: Vec::new() };
    let root = p.or(0)?;
    if p.i != p.toks.len() {
        return Err(err("syntax", "A closing parenthesis has no opening one."));
    }
    if let Node::And(v) = &root {
        if v.is_empty() {
            if !p.sources.is_empty() {
                return Err(err(
                    "database_name_alone",
                    "database_name cannot be the only parameter: add a search term, for example email:john@example.com&database_name=Example.",
                ));
            }
            return Err(err("empty", "Empty Query"));
        }
    }
    Ok(ParsedQuery { root, sources: p.sources, mode })
}

/// What a search may hold without the right to see values (no search subscription): one
/// term, one field and one value, matched exactly. A count of anything more is an oracle on
/// hidden values (`email:"x" AND password:/^[a-m]/` answers 1 or 0), so it is refused
/// before anything runs; a regex before it is even compiled.
pub const SUBSCRIPTION_REQUIRED: &str = "Without a search subscription a search holds one term: one field and one value, in full (put a value with spaces in quotes). AND, OR, wildcards, regular expressions and source filters need a search subscription.";

/// `parse` for a searcher without a search subscription: one exact term, no source filter
/// (`subscription_required` otherwise). A regex (by the toggle or a typed `&regex`) is
/// refused before the parser compiles it.
pub fn parse_one_term(query: &str, mode: Mode, default_field: Option<usize>) -> Result<ParsedQuery> {
    let refuse = || err("subscription_required", SUBSCRIPTION_REQUIRED);
    if take_mode_suffixes(query.trim(), mode)?.1 == Mode::Regex {
        return Err(refuse());
    }
    let parsed = parse(query, mode, default_field)?;
    match &parsed.root {
        Node::Term(Term { pattern: Pattern::Exact(_), .. }) if parsed.sources.is_empty() => Ok(parsed),
        _ => Err(refuse()),
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod regex_cache_tests;
