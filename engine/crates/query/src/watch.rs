//! Monitoring: many watched values matched against one segment at once (`matchWatches`).
//!
//! - Exact kinds (email, username, phone, name, and any other public field): the watch's
//!   value normalised like the field's terms (`fields::normalize`), then per part and
//!   field one of two strategies, whichever the cost model says is cheaper (`Strategy`):
//!   one dictionary lookup per distinct watched term (a binary search), or one walk of
//!   the field's distinct terms probing a hash set of the watched terms. Both find the
//!   same (term, watch) pairs; the walk costs the dictionary's size whatever the number
//!   of watches, so 100,000 watches cost about what 10,000 do.
//! - Domains: a watch on `example.com` matches every record whose email domain, `domain`
//!   value or URL host is `example.com` or one of its subdomains (`mail.example.com`),
//!   never `notexample.com` nor `example.com.evil.net`. The distinct terms of `domain`
//!   (which holds the email domains too, see `segment::PartWriter::add_flat`) and `url`
//!   are walked once per part: each term's host (`host_of`), then each suffix of the
//!   host starting after a dot, is probed in a hash set of the watched domains.
//!   Consecutive URL terms mostly share their host (the table is sorted), so a host equal
//!   to the previous term's reuses its answer.
//!
//! Per watch: `total`, every matching record of the segment's range (a merged segment:
//! the range of the ingest it was asked for) that is not removed, and the first `limit`
//! of them in document order.

use crate::fields::{normalize, DOMAIN, FIELD_COUNT};
use crate::error::Result;
use crate::keys::Removed;
use crate::segment::{FieldIndex, Segment, TermHasher};
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::ops::Range;

/// The field index of `url`.
const URL: usize = 12;
/// The tables a domain watch walks: `domain` (email domains included) and `url`.
const DOMAIN_TABLES: [usize; 2] = [DOMAIN, URL];

/// How exact watches of one field are found in one part.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Strategy {
    /// By the cost model (`prefer_walk`).
    Auto,
    /// One dictionary lookup per watched term.
    Lookup,
    /// One walk of the dictionary, probing the hash set of watched terms.
    Walk,
}

/// Cost model, from the monitoring benchmark (BENCHMARKS.md, "Monitoring"): walking a table
/// costs a few operations a term (memchr for the newline, an xxh3 hash, a probe of the
/// watched set), a lookup much more (binary search of the in-memory samples, then of a
/// mapped run of up to 32 terms, each probe skipping newlines; lookups go in term order, so
/// neighbours share cache lines): one lookup costs about `LOOKUP_PER_WALKED_TERM` walked
/// terms. Walk when
/// `distinct watched terms × LOOKUP_PER_WALKED_TERM ≥ distinct terms of the field in the part`.
pub const LOOKUP_PER_WALKED_TERM: usize = 50;

pub fn prefer_walk(watched: usize, dict_len: usize) -> bool {
    watched.saturating_mul(LOOKUP_PER_WALKED_TERM) >= dict_len
}

/// One watch as the matcher takes it: a public field and a value as the user typed it.
pub struct WatchInput<'a> {
    pub field: &'a str,
    pub value: &'a str,
}

/// The matches of one watch: `total` records, the first `limit` as (part, doc).
#[derive(Default, Clone, Debug, PartialEq, Eq)]
pub struct WatchHits {
    pub total: u64,
    pub docs: Vec<(usize, u32)>,
}

type TermMap<'t> = HashMap<&'t [u8], u32, BuildHasherDefault<TermHasher>>;

/// Match `watches` against the documents of `seg` whose global numbers are in `range`,
/// leaving out documents whose dedup key is in `removed` and those of taken-down sources. The answer is aligned with
/// `watches` (a watch with an unknown field or nothing left after normalising matches
/// nothing).
pub fn match_segment(seg: &Segment, range: Range<u64>, watches: &[WatchInput], removed: &Removed, limit: usize, strategy: Strategy) -> Result<Vec<WatchHits>> {
    // Normalise, then group identical watches: per field (exact kinds) and for domains
    // (the `domain` slot), normalised term -> group.
    let norm: Vec<Option<(usize, String)>> = watches
        .iter()
        .map(|w| {
            let f = crate::fields::field_index(w.field)?;
            Some((f, normalize(f, w.value)?))
        })
        .collect();
    let mut exact: Vec<TermMap> = (0..FIELD_COUNT).map(|_| TermMap::default()).collect();
    let mut groups = 0u32;
    let group_of: Vec<Option<u32>> = norm
        .iter()
        .map(|n| {
            n.as_ref().map(|(f, t)| {
                *exact[*f].entry(t.as_bytes()).or_insert_with(|| {
                    groups += 1;
                    groups - 1
                })
            })
        })
        .collect();
    let domains = std::mem::take(&mut exact[DOMAIN]);
    let mut hits: Vec<WatchHits> = vec![WatchHits::default(); groups as usize];
    let mut docs: Vec<u32> = Vec::new();
    for (pi, part) in seg.parts.iter().enumerate() {
        let ps = seg.part_start[pi];
        let lo = range.start.saturating_sub(ps).min(part.docs as u64) as u32;
        let hi = range.end.saturating_sub(ps).min(part.docs as u64) as u32;
        if lo >= hi {
            continue;
        }
        let add = |h: &mut WatchHits, docs: &[u32]| -> Result<()> {
            for &d in docs {
                if d >= lo && d < hi && !seg.is_hidden(pi, d) && !part.is_removed(d, removed)? {
                    h.total += 1;
                    if h.docs.len() < limit {
                        h.docs.push((pi, d));
                    }
                }
            }
            Ok(())
        };
        // Exact kinds: each group has at most one term per field, so its documents come
        // sorted from one postings list.
        for (f, map) in exact.iter().enumerate() {
            if map.is_empty() {
                continue;
            }
            let Some(fi) = &part.fields[f] else { continue };
            for (g, ord) in exact_matches(fi, map, strategy) {
                docs.clear();
                fi.postings_into(ord, &mut docs);
                add(&mut hits[g as usize], &docs)?;
            }
        }
        if !domains.is_empty() {
            // Group -> its documents in this part (several terms each: sorted, deduplicated).
            let mut found: HashMap<u32, Vec<u32>> = HashMap::new();
            for f in DOMAIN_TABLES {
                let Some(fi) = &part.fields[f] else { continue };
                domain_matches(fi, &domains, |g, ord| fi.postings_into(ord, found.entry(g).or_default()));
            }
            for (g, mut d) in found {
                d.sort_unstable();
                d.dedup();
                add(&mut hits[g as usize], &d)?;
            }
        }
    }
    // Each group's answer to its watches: moved to the last watch of the group, cloned for the others.
    let mut left = vec![0u32; groups as usize];
    for g in group_of.iter().flatten() {
        left[*g as usize] += 1;
    }
    Ok(group_of
        .into_iter()
        .map(|g| match g {
            None => WatchHits::default(),
            Some(g) => {
                left[g as usize] -= 1;
                if left[g as usize] == 0 {
                    std::mem::take(&mut hits[g as usize])
                } else {
                    hits[g as usize].clone()
                }
            }
        })
        .collect())
}

/// (group, ordinal) of every watched term present in the part's dictionary.
fn exact_matches(fi: &FieldIndex, map: &TermMap, strategy: Strategy) -> Vec<(u32, u32)> {
    let walk = match strategy {
        Strategy::Auto => prefer_walk(map.len(), fi.dict.len()),
        Strategy::Lookup => false,
        Strategy::Walk => true,
    };
    let mut out = Vec::new();
    if walk {
        let _ = fi.dict.for_each(0..fi.dict.len() as u32, |ord, t| {
            if let Some(&g) = map.get(t) {
                out.push((g, ord));
            }
            Ok(())
        });
    } else {
        // In term order: consecutive lookups touch nearby parts of the table.
        let mut sorted: Vec<(&[u8], u32)> = map.iter().map(|(t, &g)| (*t, g)).collect();
        sorted.sort_unstable();
        for (t, g) in sorted {
            if let Some(ord) = fi.dict.get(t) {
                out.push((g, ord));
            }
        }
    }
    out
}

/// Calls `f(group, ordinal)` for every term of the table whose host is a watched domain or
/// a subdomain of one (for each watched domain it falls under).
fn domain_matches(fi: &FieldIndex, domains: &TermMap, mut f: impl FnMut(u32, u32)) {
    let mut last_host: Vec<u8> = Vec::new();
    let mut last_groups: Vec<u32> = Vec::new();
    let _ = fi.dict.for_each(0..fi.dict.len() as u32, |ord, t| {
        let host = host_of(t);
        if host != last_host.as_slice() {
            last_host.clear();
            last_host.extend_from_slice(host);
            last_groups.clear();
            suffixes(host, |s| {
                if let Some(&g) = domains.get(s) {
                    last_groups.push(g);
                }
            });
        }
        for &g in &last_groups {
            f(g, ord);
        }
        Ok(())
    });
}

/// The host itself, then every suffix that starts after a dot (`a.b.c`, `b.c`, `c`).
#[inline]
fn suffixes(host: &[u8], mut f: impl FnMut(&[u8])) {
    if host.is_empty() {
        return;
    }
    f(host);
    for (i, &b) in host.iter().enumerate() {
        if b == b'.' && i + 1 < host.len() {
            f(&host[i + 1..]);
        }
    }
}

/// The host of a (lower-cased) URL, domain or email-domain term: after the scheme's
/// `://` (or a leading `//`), before the first `/`, `?`, `#`, `\` or space, after the last
/// `@` of that authority (user info), before a `:port`, without a trailing dot. A bare
/// `example.com` is its own host; an IPv6 literal `[…]` comes back with its brackets.
pub fn host_of(t: &[u8]) -> &[u8] {
    let mut s = t;
    if let Some(p) = memchr::memmem::find(&s[..s.len().min(64)], b"://") {
        if p > 0 && s[..p].iter().all(|&b| b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.') {
            s = &s[p + 3..];
        }
    } else if s.starts_with(b"//") {
        s = &s[2..];
    }
    let end = s.iter().position(|&b| matches!(b, b'/' | b'?' | b'#' | b'\\' | b' ' | b'\t')).unwrap_or(s.len());
    s = &s[..end];
    if let Some(at) = memchr::memrchr(b'@', s) {
        s = &s[at + 1..];
    }
    if s.first() == Some(&b'[') {
        return match memchr::memchr(b']', s) {
            Some(e) => &s[..e + 1],
            None => s,
        };
    }
    if let Some(c) = memchr::memchr(b':', s) {
        s = &s[..c];
    }
    while let Some((&b'.', rest)) = s.split_last() {
        s = rest;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_of_urls_domains_and_junk() {
        let h = |t: &str| String::from_utf8(host_of(t.as_bytes()).to_vec()).unwrap();
        assert_eq!(h("https://shop.example.com/x"), "shop.example.com");
        assert_eq!(h("http://example.com:8080"), "example.com");
        assert_eq!(h("http://user:pw@example.com:8080/a@b"), "example.com");
        assert_eq!(h("example.com"), "example.com");
        assert_eq!(h("example.com."), "example.com");
        assert_eq!(h("www.example.com/path?q=1"), "www.example.com");
        assert_eq!(h("//cdn.example.com/a.js"), "cdn.example.com");
        assert_eq!(h("example.com?x=http://evil.net"), "example.com");
        assert_eq!(h("ftp://files.example.com#top"), "files.example.com");
        assert_eq!(h("http://[2001:db8::1]:80/"), "[2001:db8::1]");
        assert_eq!(h("https://example.com.evil.net/"), "example.com.evil.net");
        assert_eq!(h(""), "");
    }

    #[test]
    fn suffixes_start_after_dots() {
        let mut out = Vec::new();
        suffixes(b"a.mail.example.com", |s| out.push(String::from_utf8(s.to_vec()).unwrap()));
        assert_eq!(out, ["a.mail.example.com", "mail.example.com", "example.com", "com"]);
        out.clear();
        suffixes(b"notexample.com", |s| out.push(String::from_utf8(s.to_vec()).unwrap()));
        assert!(!out.contains(&"example.com".to_string()));
    }

    #[test]
    fn the_cost_model_walks_for_many_watches_only() {
        assert!(!prefer_walk(10, 1_000_000));
        assert!(prefer_walk(100_000, 1_000_000));
        assert!(prefer_walk(1, 10));
    }
}
