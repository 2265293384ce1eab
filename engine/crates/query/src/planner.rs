//! The planner turns a parsed query into per-field term selections, and evaluates them
//! against one segment part to a sorted list of document numbers.
//!
//! - exact value: a term table lookup per field (bare terms: every field);
//! - `prefix*`: a contiguous ordinal range of the sorted dictionary;
//! - other wildcards and regexes: a scan of the field's distinct terms (never of records),
//!   narrowed to the ordinal range of a literal prefix when there is one, and to the terms
//!   containing the pattern's longest required literal (memmem over the term bytes), or,
//!   with a trigram index, to the term blocks holding every required literal's trigrams;
//!   every candidate is verified with the real check: the linear-time automaton, or for
//!   wildcards of literals and `*` only, an in-order search of the pieces.

use crate::error::{EngineError, Result};
use crate::fields::{case_insensitive, looks_hashed, normalize, EMAIL, EMAIL_DOMAIN, EMAIL_LOCAL, FIELD_COUNT, HASHED_PASSWORD, PHONE};
use crate::postings::intersect;
use crate::query::{compile_regex, Node, ParsedQuery, Pattern, WildPiece};
use crate::segment::{FieldIndex, Part};
use crate::budget::Budget;
use crate::termdict::Check;
use regex_syntax::hir::{Anchor, Hir, HirKind, Literal, RepetitionKind, RepetitionRange};

pub enum TermPlan {
    Exact(Vec<(usize, Vec<u8>)>),
    Prefix { field: usize, prefix: Vec<u8> },
    /// `literal`: the longest required literal (memmem prefilter of a full scan);
    /// `literals`: every required literal of 3 bytes or more (trigram prefilter).
    Scan { field: usize, prefix: Vec<u8>, literal: Option<Vec<u8>>, literals: Vec<Vec<u8>>, check: Check },
}

pub enum Plan {
    Term(TermPlan),
    And(Vec<Plan>),
    Or(Vec<Plan>),
}

pub fn plan(q: &ParsedQuery) -> Result<Plan> {
    plan_node(&q.root)
}

fn plan_node(n: &Node) -> Result<Plan> {
    Ok(match n {
        Node::And(v) => Plan::And(v.iter().map(plan_node).collect::<Result<_>>()?),
        Node::Or(v) => Plan::Or(v.iter().map(plan_node).collect::<Result<_>>()?),
        Node::Term(t) => Plan::Term(match (&t.pattern, t.field) {
            (Pattern::Exact(v), None) => {
                let every = TermPlan::Exact((0..FIELD_COUNT).filter_map(|f| normalize(f, v).map(|n| (f, n.into_bytes()))).collect());
                // A value that looks like a hash (with or without its salt) is also the
                // hashed password shown apart from its salt; anything else stays one lookup.
                if looks_hashed(v.trim().split(':').next().unwrap_or_default()) {
                    if let Plan::Or(mut plans) = hashed_password_plan(v) {
                        plans.push(Plan::Term(every));
                        return Ok(Plan::Or(plans));
                    }
                }
                every
            }
            (Pattern::Exact(v), Some(HASHED_PASSWORD)) => return Ok(hashed_password_plan(v)),
            (Pattern::Exact(v), Some(f)) => TermPlan::Exact(normalize(f, v).map(|n| vec![(f, n.into_bytes())]).unwrap_or_default()),
            (Pattern::Wildcard(p), Some(f)) => plan_wildcard(f, p)?,
            (Pattern::Regex(src), Some(f)) => plan_regex(f, src)?,
            // The parser requires a field for wildcard and regex terms.
            (_, None) => TermPlan::Exact(vec![]),
        }),
    })
}

/// The term of a distinct count, planned on its own field's terms: the dictionary terms it
/// selects are the distinct values it matches (terms are stored normalised, so two values
/// the index holds alike are one term). `email:*@example.com` is planned on the emails
/// (a search's plan looks up the domain instead: `plan_pieces`), whose documents are among
/// the domain's.
pub struct DistinctPlan {
    pub field: usize,
    /// Their selections united (a hashed password: the hash alone and with its salt).
    pub terms: Vec<TermPlan>,
}

impl DistinctPlan {
    /// Whether finding the terms scans the dictionary (routed to the heavy lane).
    pub fn scans(&self) -> bool {
        self.terms.iter().any(|t| matches!(t, TermPlan::Scan { .. }))
    }
}

/// A distinct count's plan: the query must be one term of one field (source filters
/// allowed), else `invalid_argument`.
pub fn distinct_plan(q: &ParsedQuery) -> Result<DistinctPlan> {
    let term = match &q.root {
        Node::Term(t) => Some(t),
        Node::And(v) | Node::Or(v) if v.len() == 1 => match &v[0] {
            Node::Term(t) => Some(t),
            _ => None,
        },
        _ => None,
    };
    let refuse = |why: &str| EngineError::InvalidArgument(format!("distinct counts the values of one term of one field ({})", why));
    let Some(term) = term else { return Err(refuse("AND, OR and parentheses are not counted")) };
    let Some(field) = term.field else { return Err(refuse("name the field, e.g. email:*@example.com")) };
    let terms = match (&term.pattern, field) {
        (Pattern::Exact(v), HASHED_PASSWORD) => term_plans(hashed_password_plan(v)),
        (Pattern::Exact(v), f) => vec![TermPlan::Exact(normalize(f, v).map(|n| vec![(f, n.into_bytes())]).unwrap_or_default())],
        (Pattern::Wildcard(p), f) => vec![plan_wildcard_in(f, p, false)?],
        (Pattern::Regex(src), f) => vec![plan_regex(f, src)?],
    };
    Ok(DistinctPlan { field, terms })
}

/// The term selections of a plan of one field's ORed selections (`hashed_password_plan`).
fn term_plans(p: Plan) -> Vec<TermPlan> {
    match p {
        Plan::Term(t) => vec![t],
        Plan::Or(v) | Plan::And(v) => v.into_iter().flat_map(term_plans).collect(),
    }
}

/// A hashed password is stored as `hash:salt||extra` (a salt of `None` meaning none), and a
/// result shows the hash and its salt apart: searched on its field as shown, the hash alone
/// or with its salt, it finds its record. The exact value, or those values followed by `:`
/// (a salt) or, after a salt, by `||` (extra), in the case typed and the stored form's.
fn hashed_password_plan(v: &str) -> Plan {
    let Some(n) = normalize(HASHED_PASSWORD, v) else { return Plan::Term(TermPlan::Exact(vec![])) };
    let exact = Plan::Term(TermPlan::Exact(vec![(HASHED_PASSWORD, n.clone().into_bytes())]));
    if n.contains("||") {
        return exact;
    }
    let sep = if n.contains(':') { "||" } else { ":" };
    let typed = v.trim();
    let mut plans = vec![exact, Plan::Term(TermPlan::Prefix { field: HASHED_PASSWORD, prefix: format!("{}{}", n, sep).into_bytes() })];
    if typed != n {
        plans.push(Plan::Term(TermPlan::Prefix { field: HASHED_PASSWORD, prefix: format!("{}{}", typed, sep).into_bytes() }));
    }
    Plan::Or(plans)
}

fn plan_wildcard(field: usize, pieces: &[WildPiece]) -> Result<TermPlan> {
    plan_wildcard_in(field, pieces, true)
}

/// `domains`: `email:*@example.com` may be answered from the email domains' table (a
/// search's plan); false keeps the plan on the field's own terms (a distinct count's).
fn plan_wildcard_in(field: usize, pieces: &[WildPiece], domains: bool) -> Result<TermPlan> {
    // Normalise literal characters the way values are normalised.
    let ci = case_insensitive(field);
    let mut norm: Vec<WildPiece> = Vec::new();
    for p in pieces {
        match p {
            WildPiece::Lit(c) => {
                if field == PHONE && !c.is_ascii_digit() {
                    continue;
                }
                if ci {
                    for l in c.to_lowercase() {
                        norm.push(WildPiece::Lit(l));
                    }
                } else {
                    norm.push(WildPiece::Lit(*c));
                }
            }
            other => norm.push(other.clone()),
        }
    }
    plan_pieces_in(field, norm, domains)
}

fn plan_pieces(field: usize, norm: Vec<WildPiece>) -> Result<TermPlan> {
    plan_pieces_in(field, norm, true)
}

fn plan_pieces_in(field: usize, norm: Vec<WildPiece>, domains: bool) -> Result<TermPlan> {
    // `email:*@example.com` (or `*@*.fr`): a lookup (or scan) of the email domains.
    if domains && field == EMAIL && norm.len() > 2 && norm[0] == WildPiece::Many && norm[1] == WildPiece::Lit('@') && !norm[2..].contains(&WildPiece::Lit('@')) {
        let rest = norm[2..].to_vec();
        if rest.iter().all(|p| matches!(p, WildPiece::Lit(_))) {
            let d: String = rest.iter().map(|p| if let WildPiece::Lit(c) = p { *c } else { ' ' }).collect();
            return Ok(TermPlan::Exact(vec![(EMAIL_DOMAIN, d.into_bytes())]));
        }
        return plan_pieces(EMAIL_DOMAIN, rest);
    }
    let prefix: String = norm.iter().map_while(|p| if let WildPiece::Lit(c) = p { Some(*c) } else { None }).collect();
    let rest = &norm[prefix.chars().count()..];
    if rest.len() == 1 && rest[0] == WildPiece::Many {
        return Ok(TermPlan::Prefix { field, prefix: prefix.into_bytes() });
    }
    // `*lit*` and `*lit`: no automaton needed.
    if prefix.is_empty() && norm.len() >= 2 && norm[0] == WildPiece::Many {
        let inner = &norm[1..];
        let lits: Option<String> = inner.iter().take_while(|p| matches!(p, WildPiece::Lit(_))).map(|p| if let WildPiece::Lit(c) = p { Some(*c) } else { None }).collect();
        let lits = lits.unwrap_or_default();
        let after = &inner[lits.chars().count()..];
        if !lits.is_empty() && after.is_empty() {
            return Ok(TermPlan::Scan { field, prefix: vec![], literal: Some(lits.clone().into_bytes()), literals: tri_literals(vec![lits.clone().into_bytes()]), check: Check::EndsWith(lits.into_bytes()) });
        }
        if !lits.is_empty() && after == [WildPiece::Many] {
            return Ok(TermPlan::Scan { field, prefix: vec![], literal: Some(lits.clone().into_bytes()), literals: tri_literals(vec![lits.into_bytes()]), check: Check::Contains });
        }
    }
    let mut src = String::from("(?s)^");
    let mut best = String::new();
    let mut run = String::new();
    let mut runs: Vec<Vec<u8>> = Vec::new();
    for p in &norm {
        match p {
            WildPiece::Lit(c) => {
                run.push(*c);
                src.push_str(&regex::escape(&c.to_string()));
            }
            WildPiece::One => {
                src.push('.');
            }
            WildPiece::Many => {
                src.push_str(".*");
            }
        }
        if !matches!(p, WildPiece::Lit(_)) {
            runs.push(run.clone().into_bytes());
            if run.len() > best.len() {
                best = std::mem::take(&mut run);
            }
            run.clear();
        }
    }
    runs.push(run.clone().into_bytes());
    if run.len() > best.len() {
        best = run;
    }
    src.push('$');
    // Literals and `*` only: matched without an automaton.
    let check = if !norm.contains(&WildPiece::One) {
        let mut pieces: Vec<Vec<u8>> = vec![vec![]];
        for p in &norm {
            match p {
                WildPiece::Lit(c) => pieces.last_mut().unwrap().extend_from_slice(c.to_string().as_bytes()),
                _ => pieces.push(vec![]),
            }
        }
        let open_end = norm.last() == Some(&WildPiece::Many);
        // Drop the empty pieces between consecutive stars; keep the first (the start
        // anchor, possibly empty) and, when the end is anchored, the last.
        let mut kept: Vec<Vec<u8>> = vec![pieces[0].clone()];
        let n = pieces.len();
        for (i, p) in pieces.into_iter().enumerate().skip(1) {
            if !p.is_empty() || (i == n - 1 && !open_end) {
                kept.push(p);
            }
        }
        Check::Glob { pieces: kept, open_end }
    } else {
        Check::Regex(compile_regex(&src, false)?)
    };
    Ok(TermPlan::Scan {
        field,
        prefix: prefix.into_bytes(),
        literal: if best.is_empty() { None } else { Some(best.into_bytes()) },
        literals: tri_literals(runs),
        check,
    })
}

fn lit_bytes(l: &Literal) -> Vec<u8> {
    match l {
        Literal::Unicode(c) => c.to_string().into_bytes(),
        Literal::Byte(b) => vec![*b],
    }
}

/// Whether a repetition matches its body at least once (`+`, `{n,}`, `{n}`, `{n,m}`, n ≥ 1).
fn at_least_once(r: &regex_syntax::hir::Repetition) -> bool {
    match &r.kind {
        RepetitionKind::OneOrMore => true,
        RepetitionKind::Range(RepetitionRange::Exactly(n) | RepetitionRange::AtLeast(n) | RepetitionRange::Bounded(n, _)) => *n >= 1,
        _ => false,
    }
}

/// The longest literal every match must contain (empty when there is none).
fn required_literal(h: &Hir) -> Vec<u8> {
    match h.kind() {
        HirKind::Literal(l) => lit_bytes(l),
        HirKind::Group(g) => required_literal(&g.hir),
        HirKind::Repetition(r) => {
            if at_least_once(r) {
                required_literal(&r.hir)
            } else {
                vec![]
            }
        }
        HirKind::Concat(v) => {
            let mut best = Vec::new();
            let mut run = Vec::new();
            for c in v {
                if let HirKind::Literal(l) = c.kind() {
                    run.extend(lit_bytes(l));
                    continue;
                }
                if run.len() > best.len() {
                    best = std::mem::take(&mut run);
                }
                run.clear();
                let inner = required_literal(c);
                if inner.len() > best.len() {
                    best = inner;
                }
            }
            if run.len() > best.len() {
                best = run;
            }
            best
        }
        _ => vec![],
    }
}

/// Every literal run that every match must contain (the pieces of `required_literal`'s
/// search, all of them): a match contains each one, so a term must hold all their trigrams.
fn required_literals(h: &Hir, out: &mut Vec<Vec<u8>>) {
    match h.kind() {
        HirKind::Literal(l) => out.push(lit_bytes(l)),
        HirKind::Group(g) => required_literals(&g.hir, out),
        HirKind::Repetition(r) => {
            if at_least_once(r) {
                required_literals(&r.hir, out);
            }
        }
        HirKind::Concat(v) => {
            let mut run = Vec::new();
            for c in v {
                if let HirKind::Literal(l) = c.kind() {
                    run.extend(lit_bytes(l));
                    continue;
                }
                if !run.is_empty() {
                    out.push(std::mem::take(&mut run));
                }
                required_literals(c, out);
            }
            if !run.is_empty() {
                out.push(run);
            }
        }
        _ => {}
    }
}

/// The literals usable by the trigram index: 3 bytes or more, without duplicates.
fn tri_literals(mut v: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    v.retain(|l| l.len() >= 3);
    v.sort();
    v.dedup();
    v
}

/// The literal a match must start with, for a regex anchored at the start (`^abc…`).
fn anchored_prefix(h: &Hir) -> Vec<u8> {
    if let HirKind::Concat(v) = h.kind() {
        if let Some(first) = v.first() {
            if matches!(first.kind(), HirKind::Anchor(Anchor::StartText) | HirKind::Anchor(Anchor::StartLine)) {
                let mut out = Vec::new();
                for c in &v[1..] {
                    match c.kind() {
                        HirKind::Literal(l) => out.extend(lit_bytes(l)),
                        _ => break,
                    }
                }
                return out;
            }
        }
    }
    vec![]
}

fn plan_regex(field: usize, src: &str) -> Result<TermPlan> {
    let ci = case_insensitive(field);
    let re = compile_regex(src, ci)?;
    let mut all = Vec::new();
    let (mut literal, mut prefix) = match regex_syntax::ParserBuilder::new().allow_invalid_utf8(true).build().parse(src) {
        Ok(h) => {
            required_literals(&h, &mut all);
            (required_literal(&h), anchored_prefix(&h))
        }
        Err(_) => (vec![], vec![]),
    };
    if ci {
        literal = String::from_utf8_lossy(&literal).to_lowercase().into_bytes();
        prefix = String::from_utf8_lossy(&prefix).to_lowercase().into_bytes();
        // Only literals that are valid UTF-8 can be lower-cased like the terms were.
        all = all.into_iter().filter_map(|l| String::from_utf8(l).ok()).map(|l| l.to_lowercase().into_bytes()).collect();
    }
    Ok(TermPlan::Scan { field, prefix, literal: if literal.is_empty() { None } else { Some(literal) }, literals: tri_literals(all), check: Check::Regex(re) })
}

fn sort_dedup(v: &mut Vec<u32>) {
    v.sort_unstable();
    v.dedup();
}

/// Sorted union of two sorted lists without duplicates.
fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len() + b.len());
    while i < a.len() && j < b.len() {
        if a[i] < b[j] {
            out.push(a[i]);
            i += 1;
        } else if a[i] > b[j] {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// Document numbers of `part` matching `plan`, sorted ascending, without duplicates.
pub fn eval(plan: &Plan, part: &Part, budget: &Budget) -> Result<Vec<u32>> {
    match plan {
        Plan::And(v) => {
            let mut acc: Option<Vec<u32>> = None;
            for p in v {
                let r = eval(p, part, budget)?;
                acc = Some(match acc {
                    None => r,
                    Some(a) => intersect(&a, &r),
                });
                if acc.as_ref().map(|a| a.is_empty()).unwrap_or(false) {
                    break;
                }
            }
            Ok(acc.unwrap_or_default())
        }
        Plan::Or(v) => {
            let mut out = Vec::new();
            for p in v {
                out.extend(eval(p, part, budget)?);
            }
            sort_dedup(&mut out);
            Ok(out)
        }
        Plan::Term(t) => eval_term(t, part, budget),
    }
}

/// The union of the postings of `ords`: concatenated for a few terms, through a bitset of
/// the part's documents for many (no sort of the hits).
fn postings_of(part: &Part, field: usize, ords: impl ExactSizeIterator<Item = u32>, budget: &Budget) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    let fi = match &part.fields[field] {
        Some(f) => f,
        None => return Ok(out),
    };
    let count = ords.len();
    if count <= 16 {
        fi.postings_sorted(ords, &mut out);
        if count > 1 {
            sort_dedup(&mut out);
        }
        return Ok(out);
    }
    // The deadline is checked every 4,096 terms. Ordinals far apart (an infix scan's
    // hits) are read with prefetches; a range or dense hits, in one sequential walk.
    let ords: Vec<u32> = ords.collect();
    let spread = ords.last().zip(ords.first()).map(|(l, f)| l - f).unwrap_or(0) as usize;
    let scattered = spread > ords.len() * 2 * crate::postings::PIX_STEP;
    for chunk in ords.chunks(4096) {
        budget.check()?;
        if scattered {
            fi.postings_many(chunk, &mut out);
        } else {
            fi.postings_sorted(chunk.iter().copied(), &mut out);
        }
    }
    // Few hits for the part's size: sort them; many: through a bitset (no sort).
    if out.len() * 64 < part.docs as usize {
        sort_dedup(&mut out);
        return Ok(out);
    }
    let mut bits = vec![0u64; (part.docs as usize + 63) / 64];
    for &d in &out {
        bits[(d >> 6) as usize] |= 1u64 << (d & 63);
    }
    out.clear();
    for (w, &word) in bits.iter().enumerate() {
        let mut x = word;
        while x != 0 {
            out.push((w as u32) << 6 | x.trailing_zeros());
            x &= x - 1;
        }
    }
    Ok(out)
}

/// `email:*lit*`, `lit` without `@`: the emails whose local part holds it united with the
/// emails of the few domains holding it (`email_domain`). The local parts: a format 6-10
/// part's own table of them (`email_local`, scanned whole); else the emails in the blocks
/// that the local parts' trigrams give (`.ltri` lists where it has the trigram, `.tri`
/// lists for the others), or, when those are many (a literal common in local parts too,
/// or shorter than a trigram), one pass over every email skipping the domain hits.
fn local_or_domain(part: &Part, emails: &FieldIndex, domain: &FieldIndex, lit: &[u8], literals: &[Vec<u8>], budget: &Budget) -> Result<Vec<u32>> {
    let mut docs = match &part.fields[EMAIL_LOCAL] {
        Some(local) => {
            let mut l = Vec::new();
            local.dict.scan(0..local.dict.len() as u32, Some(lit), &Check::Contains, budget, &mut l)?;
            postings_of(part, EMAIL_LOCAL, l.into_iter(), budget)?
        }
        None => {
            let n = emails.dict.len() as u32;
            // Past a quarter of the blocks, one pass over the emails is cheaper (as above).
            let blocks = match (&emails.tri, &emails.ltri) {
                (Some(tri), Some(ltri)) if n > 0 => {
                    let span = (n - 1) / tri.grain + 1;
                    tri.local_candidates(ltri, literals, 0..span, (span as usize / 4).max(64))
                }
                _ => None,
            };
            let mut ords = Vec::new();
            match (blocks, &emails.tri) {
                (Some(blocks), Some(tri)) => emails.dict.scan_blocks(0..n, &blocks, tri.grain, Some(lit), &Check::InLocal(lit.to_vec()), budget, &mut ords)?,
                _ => emails.dict.scan_local(0..n, lit, budget, &mut ords)?,
            }
            postings_of(part, EMAIL, ords.into_iter(), budget)?
        }
    };
    let mut d = Vec::new();
    domain.dict.scan(0..domain.dict.len() as u32, Some(lit), &Check::Contains, budget, &mut d)?;
    let from_domains = postings_of(part, EMAIL_DOMAIN, d.into_iter(), budget)?;
    if docs.is_empty() {
        return Ok(from_domains);
    }
    if !from_domains.is_empty() {
        docs = union(&docs, &from_domains);
    }
    Ok(docs)
}

pub fn eval_term(t: &TermPlan, part: &Part, budget: &Budget) -> Result<Vec<u32>> {
    match t {
        TermPlan::Exact(list) => {
            let mut out = Vec::new();
            let mut hits = 0;
            for (f, v) in list {
                if let Some(fi) = &part.fields[*f] {
                    if let Some(o) = fi.dict.get(v) {
                        fi.postings_into(o, &mut out);
                        hits += 1;
                    }
                }
            }
            if hits > 1 {
                sort_dedup(&mut out);
            }
            Ok(out)
        }
        TermPlan::Prefix { field, prefix } => {
            let range = match &part.fields[*field] {
                Some(fi) => fi.dict.prefix_range(prefix),
                None => return Ok(vec![]),
            };
            postings_of(part, *field, range, budget)
        }
        TermPlan::Scan { field, prefix, literal, literals, check } => {
            let fi = match &part.fields[*field] {
                Some(fi) => fi,
                None => return Ok(vec![]),
            };
            let (range, blocks) = scan_candidates(fi, prefix, literals);
            // `email:*lit*` with a literal too common for the trigrams (`*gmail*`): the
            // literal has no `@`, so it lies in the local part or in the domain.
            if let (None, EMAIL, Check::Contains, Some(lit), true) = (&blocks, *field, check, literal.as_deref(), prefix.is_empty()) {
                if let (Some(domain), false) = (&part.fields[EMAIL_DOMAIN], lit.contains(&b'@')) {
                    return local_or_domain(part, fi, domain, lit, literals, budget);
                }
            }
            let mut ords = Vec::new();
            scan_ords(fi, range, blocks, literal.as_deref(), check, budget, &mut ords)?;
            postings_of(part, *field, ords.into_iter(), budget)
        }
    }
}

/// A scan's ordinal range (its literal prefix's) and, when the trigram index narrows it,
/// the candidate blocks.
fn scan_candidates(fi: &FieldIndex, prefix: &[u8], literals: &[Vec<u8>]) -> (std::ops::Range<u32>, Option<Vec<u32>>) {
    let range = fi.dict.prefix_range(prefix);
    // A narrow range (a literal prefix) is cheaper to scan than to intersect lists.
    let blocks = match (&fi.tri, literals.is_empty()) {
        (Some(tri), false) if range.start < range.end && range.end - range.start > 2048 => {
            // Past a quarter of the range's blocks, one memmem pass over the term
            // bytes is cheaper than verifying the candidates one by one.
            let g = tri.grain;
            let span = (range.end - 1) / g - range.start / g + 1;
            tri.candidates(literals, range.start / g..(range.end - 1) / g + 1, (span as usize / 4).max(64))
        }
        _ => None,
    };
    (range, blocks)
}

fn scan_ords(fi: &FieldIndex, range: std::ops::Range<u32>, blocks: Option<Vec<u32>>, literal: Option<&[u8]>, check: &Check, budget: &Budget, ords: &mut Vec<u32>) -> Result<()> {
    match blocks {
        Some(blocks) => fi.dict.scan_blocks(range, &blocks, fi.tri.as_ref().map(|t| t.grain).unwrap_or(1), literal, check, budget, ords),
        None => fi.dict.scan(range, literal, check, budget, ords),
    }
}

/// The ordinals of a field's terms that a selection selects.
pub enum Ords {
    Range(std::ops::Range<u32>),
    /// Ascending.
    List(Vec<u32>),
}

/// The terms of `fi` (the selection's own field) that `t` selects: the dictionary's
/// answer, no postings read.
pub fn term_ords(t: &TermPlan, fi: &FieldIndex, budget: &Budget) -> Result<Ords> {
    Ok(match t {
        TermPlan::Exact(list) => Ords::List(list.iter().filter_map(|(_, v)| fi.dict.get(v)).collect()),
        TermPlan::Prefix { prefix, .. } => Ords::Range(fi.dict.prefix_range(prefix)),
        TermPlan::Scan { prefix, literal, literals, check, .. } => {
            let (range, blocks) = scan_candidates(fi, prefix, literals);
            let mut ords = Vec::new();
            scan_ords(fi, range, blocks, literal.as_deref(), check, budget, &mut ords)?;
            Ords::List(ords)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_matches_like_the_wildcard() {
        let g = |pat: &str, t: &str| {
            let pieces: Vec<WildPiece> = pat.chars().map(|c| if c == '*' { WildPiece::Many } else { WildPiece::Lit(c) }).collect();
            match plan_pieces(1, pieces).unwrap() {
                TermPlan::Scan { check, .. } => check.matches(t.as_bytes()),
                TermPlan::Prefix { prefix, .. } => t.as_bytes().starts_with(&prefix),
                TermPlan::Exact(v) => v.iter().any(|(_, x)| x == t.as_bytes()),
            }
        };
        for (pat, t, want) in [
            ("john*smith*", "johnsmith", true), ("john*smith*", "john.smith@x", true), ("john*smith*", "jo.smith", false),
            ("john*smith", "john.smith", true), ("john*smith", "john.smithy", false), ("john*smith", "johnsmith.smith", true),
            ("a*b*c", "abc", true), ("a*b*c", "acb", false), ("a*b*c", "abcbc", true), ("*a*b", "xab", true), ("*a*b", "xba", false),
            ("ab*ab", "ab", false), ("ab*ab", "abab", true), ("a**b", "ab", true), ("a**b", "axb", true), ("a*", "a", true),
            ("*x*y*", "axbyc", true), ("*x*y*", "ayxb", false),
        ] {
            let re = regex::Regex::new(&format!("^{}$", regex::escape(pat).replace("\\*", ".*"))).unwrap();
            assert_eq!(re.is_match(t), want, "oracle {} {}", pat, t);
            assert_eq!(g(pat, t), want, "{} {}", pat, t);
        }
    }
}
