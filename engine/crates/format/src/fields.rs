//! The record schema (the public API entry's fields) and per-field normalisation: what is
//! indexed and matched. The original text is kept in the store for display.

use std::net::IpAddr;

pub const FIELD_COUNT: usize = 16;

pub const FIELDS: [&str; FIELD_COUNT] = [
    "email",
    "username",
    "password",
    "hashed_password",
    "ip_address",
    "name",
    "dob",
    "license_plate",
    "vin",
    "address",
    "phone",
    "company",
    "url",
    "social",
    "cryptocurrency_address",
    "domain",
];

/// Indexed fields: the 16 public ones plus two internal ones: `email_domain`, the domain
/// part of every email (`email:*@example.com` is one exact lookup), and `email_local`, the
/// part before the last `@` (the whole value when there is none), written by formats 6 to 10
/// only (from 2026-11-23): a literal without `@` lies wholly in one of the two, so
/// `email:*gmail*` scanned the local parts and the few domains instead of every email.
/// Since format 11 the local parts are found from the emails themselves, through the
/// trigrams of their local parts (`email.ltri`, `trigram::write_local`); a part of format
/// 6 to 10 that has the table is still searched with it (see `planner::eval_term`).
/// Since format 3, two more internal (hidden) tables: `password_sha256` and
/// `password_sha1`, the lower-case hex SHA-256 and SHA-1 of every indexed `password` term
/// (`segment::write_derived`); since format 12 a third, `password_ntlm`, the NTLM (MD4 of
/// the UTF-16LE text, `digest::ntlm`) of every password term. No query names them
/// (`field_index` knows only the public fields) and no entry shows them: only the
/// password-check lookups read them.
pub const INDEXED_FIELDS: usize = 21;
pub const EMAIL_DOMAIN: usize = 16;
pub const EMAIL_LOCAL: usize = 17;
pub const PASSWORD_SHA256: usize = 18;
pub const PASSWORD_SHA1: usize = 19;
pub const PASSWORD_NTLM: usize = 20;
/// The derived password tables and their digests' widths in bytes (each width is one
/// table's: `digest::derived_hex_into` hashes by width).
pub const DERIVED_TABLES: [(usize, usize); 3] = [(PASSWORD_SHA256, 32), (PASSWORD_SHA1, 20), (PASSWORD_NTLM, 16)];

pub fn index_name(i: usize) -> &'static str {
    match i {
        EMAIL_DOMAIN => "email_domain",
        EMAIL_LOCAL => "email_local",
        PASSWORD_SHA256 => "password_sha256",
        PASSWORD_SHA1 => "password_sha1",
        PASSWORD_NTLM => "password_ntlm",
        _ => FIELDS[i],
    }
}

pub const EMAIL: usize = 0;
pub const USERNAME: usize = 1;
pub const PASSWORD: usize = 2;
pub const HASHED_PASSWORD: usize = 3;
pub const IP_ADDRESS: usize = 4;
pub const NAME: usize = 5;
pub const ADDRESS: usize = 9;
pub const PHONE: usize = 10;
pub const COMPANY: usize = 11;
pub const URL: usize = 12;
pub const CRYPTO: usize = 14;
pub const DOMAIN: usize = 15;

/// Longest indexed term in bytes; longer values are stored whole but indexed truncated.
pub const MAX_TERM_BYTES: usize = 256;

pub fn field_index(name: &str) -> Option<usize> {
    FIELDS.iter().position(|f| *f == name)
}

/// Fields whose terms are lower-cased (matching ignores case). Passwords, crypto
/// addresses and non-hex hashes keep their case.
pub fn case_insensitive(field: usize) -> bool {
    !matches!(field, PASSWORD | CRYPTO | HASHED_PASSWORD)
}

fn clean(value: &str) -> std::borrow::Cow<'_, str> {
    // Terms never contain newlines or NULs: the term blob uses '\n' as its separator.
    let t = value.trim();
    if t.bytes().any(|b| b == b'\n' || b == b'\r' || b == 0) {
        std::borrow::Cow::Owned(t.replace(['\n', '\r', '\0'], " "))
    } else {
        std::borrow::Cow::Borrowed(t)
    }
}

/// Lower-case, allocating once (ASCII fast path).
fn lower(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

fn collapse_spaces(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn truncate(mut s: String) -> String {
    if s.len() > MAX_TERM_BYTES {
        let mut cut = MAX_TERM_BYTES;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

pub fn canonical_ip(s: &str) -> Option<String> {
    parse_ip(s).map(|a| a.to_string())
}

/// The address `canonical_ip` writes (an IPv4-mapped IPv6 address as IPv4).
fn parse_ip(s: &str) -> Option<IpAddr> {
    let t = s.trim().trim_start_matches('[').trim_end_matches(']');
    match t.parse::<IpAddr>() {
        Ok(IpAddr::V6(a)) => Some(a.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(a))),
        other => other.ok(),
    }
}

fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The indexed form of one value of `field`, or None when nothing is left to index.
pub fn normalize(field: usize, value: &str) -> Option<String> {
    normalize_whole(field, value).map(truncate)
}

/// `normalize` before the cut at `MAX_TERM_BYTES`.
fn normalize_whole(field: usize, value: &str) -> Option<String> {
    let v = clean(value);
    if v.is_empty() {
        return None;
    }
    let out = match field {
        EMAIL => lower(&v),
        IP_ADDRESS => canonical_ip(&v).unwrap_or_else(|| lower(&v)),
        PHONE => {
            let digits: String = v.chars().filter(|c| c.is_ascii_digit()).collect();
            if digits.is_empty() {
                return None;
            }
            digits
        }
        HASHED_PASSWORD => {
            if hex_lowered(&v) {
                lower(&v)
            } else {
                v.into_owned()
            }
        }
        PASSWORD | CRYPTO => v.into_owned(),
        NAME | ADDRESS | COMPANY => collapse_spaces(&lower(&v)),
        DOMAIN => lower(v.trim_end_matches('.')),
        _ => lower(&v),
    };
    if out.is_empty() {
        None
    } else {
        Some(out)
    }
}

/// Whether a `hashed_password` value is lower-cased: hex, or hex before its first `:`
/// (`hash:salt`).
fn hex_lowered(v: &str) -> bool {
    v.split(':').next().map(is_hex).unwrap_or(false)
}

/// Whether `a` and `b`, two values of `field` in one record, are one value, kept once
/// (`source::keep_once`): the same text once trimmed, or the same
/// normalised value (`normalize`), whole: `John@Example.com` and `john@example.com` are one
/// email, `+1 555-0100` and `15550100` one phone number, `::ffff:10.0.0.1` and `10.0.0.1`
/// one IP address, `Ann  Lee` and `ann lee` one name; passwords and crypto addresses only
/// when identical. Values longer than `MAX_TERM_BYTES`, indexed cut, are one only when they
/// are equal whole. So a value kept once never changes the dedup key (`keys::dedup_key`
/// hashes the distinct normalised values). No allocation for ASCII values (the common
/// case: a record's values are compared with the values of their field before them).
pub fn same_value(field: usize, a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    if a == b {
        return true;
    }
    // `clean` only trims these (it turns newlines and NULs into spaces).
    let plain = |s: &str| s.is_ascii() && !s.bytes().any(|c| c == b'\n' || c == b'\r' || c == 0);
    if !plain(a) || !plain(b) {
        return normalize_whole(field, a).map(|n| Some(n) == normalize_whole(field, b)).unwrap_or(false);
    }
    match field {
        PASSWORD | CRYPTO => false,
        PHONE => {
            let (mut x, mut y) = (a.bytes().filter(u8::is_ascii_digit), b.bytes().filter(u8::is_ascii_digit));
            let mut any = false;
            loop {
                match (x.next(), y.next()) {
                    (None, None) => return any,
                    (Some(p), Some(q)) if p == q => any = true,
                    _ => return false,
                }
            }
        }
        IP_ADDRESS => match (parse_ip(a), parse_ip(b)) {
            (Some(x), Some(y)) => x == y,
            (None, None) => a.eq_ignore_ascii_case(b),
            // One is an address and the other not: lower-casing the other cannot give the
            // canonical form of an address (it would read as one before too).
            _ => false,
        },
        HASHED_PASSWORD => hex_lowered(a) && hex_lowered(b) && a.eq_ignore_ascii_case(b),
        NAME | ADDRESS | COMPANY => {
            let (mut x, mut y) = (a.split_whitespace(), b.split_whitespace());
            loop {
                match (x.next(), y.next()) {
                    (None, None) => return true,
                    (Some(p), Some(q)) if p.eq_ignore_ascii_case(q) => {}
                    _ => return false,
                }
            }
        }
        DOMAIN => {
            let (x, y) = (a.trim_end_matches('.'), b.trim_end_matches('.'));
            !x.is_empty() && x.eq_ignore_ascii_case(y)
        }
        _ => a.eq_ignore_ascii_case(b),
    }
}

/// Whether a value found in a password column is a recognisable password hash: bcrypt
/// (`$2a$`, `$2b$`, `$2x$`, `$2y$`; WordPress's `$wp$2y$`), phpass (`$P$`, `$H$`), crypt (`$1$`, `$5$`, `$6$`),
/// argon2 (`$argon2i$`, `$argon2d$`, `$argon2id$`), Django (`pbkdf2_sha256$`, `pbkdf2_sha1$`,
/// `argon2$`, `bcrypt_sha256$`), or hex of 32, 40, 64 or 128 digits (MD5, SHA-1, SHA-256,
/// SHA-512). A plaintext password of that shape is possible but rarer than the hash. LDAP
/// forms (`{SSHA}…`): `looks_ldap_hashed`, for contexts of rules 3 and later.
pub fn looks_hashed(v: &str) -> bool {
    let v = v.trim();
    let b = v.as_bytes();
    if matches!(b.len(), 32 | 40 | 64 | 128) && is_hex(v) {
        return true;
    }
    let tail_ok = |prefix: usize, min: usize| b.len() >= prefix + min && !v.contains(char::is_whitespace);
    if v.starts_with("$2a$") || v.starts_with("$2b$") || v.starts_with("$2x$") || v.starts_with("$2y$") {
        return b.len() == 60 && !v.contains(char::is_whitespace);
    }
    // WordPress 6.8: bcrypt of the password's HMAC-SHA384, `$wp` before bcrypt's own prefix.
    if v.starts_with("$wp$2y$") {
        return b.len() == 63 && !v.contains(char::is_whitespace);
    }
    if v.starts_with("$P$") || v.starts_with("$H$") {
        return b.len() == 34 && !v.contains(char::is_whitespace);
    }
    if v.starts_with("$1$") || v.starts_with("$5$") || v.starts_with("$6$") {
        return tail_ok(3, 20) && v[3..].contains('$');
    }
    if v.starts_with("$argon2i$") || v.starts_with("$argon2d$") || v.starts_with("$argon2id$") {
        return tail_ok(9, 20);
    }
    for p in ["pbkdf2_sha256$", "pbkdf2_sha1$", "argon2$", "bcrypt_sha256$"] {
        if v.starts_with(p) {
            return tail_ok(p.len(), 20) && v[p.len()..].contains('$');
        }
    }
    false
}

/// LDAP `userPassword` schemes of a digest in base64 (RFC 2307 `{SCHEME}payload`; OpenLDAP,
/// its `pw-sha2` module, 389 Directory Server): the digest's length, and whether a salt
/// follows it.
const LDAP_SCHEMES: [(&str, usize, bool); 10] = [
    ("SHA", 20, false),
    ("SSHA", 20, true),
    ("MD5", 16, false),
    ("SMD5", 16, true),
    ("SHA256", 32, false),
    ("SSHA256", 32, true),
    ("SHA384", 48, false),
    ("SSHA384", 48, true),
    ("SHA512", 64, false),
    ("SSHA512", 64, true),
];

/// Longest salt of a salted LDAP scheme, in bytes (OpenLDAP writes 4, others 8 or 16).
const LDAP_MAX_SALT: usize = 64;

/// Whether a value found in a password column is an LDAP password hash (from rules 3,
/// `source::hashed_under`): `{SHA}`, `{SSHA}`, `{MD5}`, `{SMD5}`, `{SHA256}`,
/// `{SSHA256}`, `{SHA384}`, `{SSHA384}`, `{SHA512}` or `{SSHA512}` (the scheme in any case)
/// followed by padded base64 of the scheme's digest (a salted scheme: of the digest and up
/// to 64 bytes of salt), or `{CRYPT}` followed by a crypt(3) string (`looks_crypt`). `{hello}`,
/// `{SHA}` alone or `{SSHA}not base64!` are not.
pub fn looks_ldap_hashed(v: &str) -> bool {
    let v = v.trim();
    let b = v.as_bytes();
    if b.first() != Some(&b'{') {
        return false;
    }
    // `{SSHA512}`: the longest scheme name is 7 bytes.
    let Some(close) = b.iter().take(9).position(|&c| c == b'}') else { return false };
    let (scheme, payload) = (&v[1..close], &v[close + 1..]);
    if scheme.eq_ignore_ascii_case("CRYPT") {
        return looks_crypt(payload);
    }
    let Some(&(_, digest, salted)) = LDAP_SCHEMES.iter().find(|(s, _, _)| s.eq_ignore_ascii_case(scheme)) else { return false };
    match base64_bytes(payload) {
        Some(n) if salted => n >= digest && n <= digest + LDAP_MAX_SALT,
        Some(n) => n == digest,
        None => false,
    }
}

/// The decoded length of padded standard base64 (`A-Z a-z 0-9 + /`, `=` padding to a
/// multiple of 4 bytes: what directories write), or None when `s` is not that.
fn base64_bytes(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let body = b.len() - b.iter().rev().take_while(|&&c| c == b'=').count();
    if body == 0 || b.len() % 4 != 0 || b.len() - body > 2 {
        return None;
    }
    if !b[..body].iter().all(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/') {
        return None;
    }
    Some(body * 3 / 4)
}

/// Whether `s` is a crypt(3) string: traditional DES (13 characters of `./0-9A-Za-z`), BSDi
/// extended DES (`_` and 19 of them), or the modular format `$id$…` (an alphanumeric id of 1
/// to 8 characters, then at least 16 characters of salt and hash with a `$` between them:
/// md5-crypt `$1$`, bcrypt `$2b$`, sha256/512-crypt `$5$` `$6$`, yescrypt `$y$`, …).
fn looks_crypt(s: &str) -> bool {
    let b = s.as_bytes();
    let crypt64 = |c: &u8| c.is_ascii_alphanumeric() || *c == b'.' || *c == b'/';
    if b.len() == 13 && b.iter().all(crypt64) {
        return true;
    }
    if b.len() == 20 && b[0] == b'_' && b[1..].iter().all(crypt64) {
        return true;
    }
    let Some(rest) = s.strip_prefix('$') else { return false };
    let Some(id_end) = rest.find('$') else { return false };
    let (id, tail) = (&rest[..id_end], &rest[id_end + 1..]);
    (1..=8).contains(&id.len())
        && id.bytes().all(|c| c.is_ascii_alphanumeric())
        && tail.len() >= 16
        && tail.contains('$')
        && tail.bytes().all(|c| crypt64(&c) || matches!(c, b'$' | b'=' | b',' | b'+' | b'-'))
}

/// Normalise a wildcard pattern the way `normalize` treats values, keeping `*` and `?`.
pub fn normalize_pattern(field: usize, pattern: &str) -> String {
    let v = clean(pattern);
    match field {
        PHONE => v.chars().filter(|c| c.is_ascii_digit() || *c == '*' || *c == '?').collect(),
        f if case_insensitive(f) => lower(&v),
        _ => v.into_owned(),
    }
}

/// The local part of a normalised email: the bytes before its last `@`, the whole value
/// when it has none. A literal without `@` found in an email lies wholly in its local part
/// or in its domain (`email_domain`): how `email:*gmail*` is answered (`planner::eval_term`).
pub fn email_local(email: &[u8]) -> &[u8] {
    match email.iter().rposition(|&b| b == b'@') {
        Some(at) => &email[..at],
        None => email,
    }
}

/// The domain part of an email address, indexed under `domain` too.
pub fn email_domain(normalized_email: &str) -> Option<&str> {
    let at = normalized_email.rfind('@')?;
    let d = &normalized_email[at + 1..];
    if d.is_empty() {
        None
    } else {
        Some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The boundary's field names (`contract::FieldName`, the TypeScript `FieldName`) are
    /// these, in this order.
    #[test]
    fn the_contract_names_the_fields_in_order() {
        for (i, f) in crate::contract::FieldName::ALL.iter().enumerate() {
            assert_eq!(serde_json::to_value(f).unwrap(), FIELDS[i]);
        }
    }

    #[test]
    fn ips_are_canonical() {
        assert_eq!(normalize(IP_ADDRESS, " 2001:DB8:0:0:0:0:0:1 ").unwrap(), "2001:db8::1");
        assert_eq!(normalize(IP_ADDRESS, "::ffff:10.0.0.1").unwrap(), "10.0.0.1");
        assert_eq!(normalize(IP_ADDRESS, "10.0.0.1").unwrap(), "10.0.0.1");
    }

    #[test]
    fn phones_are_digits_and_emails_fold() {
        assert_eq!(normalize(PHONE, "+1 (555) 010-2030").unwrap(), "15550102030");
        assert_eq!(normalize(EMAIL, "John@Example.COM").unwrap(), "john@example.com");
        assert_eq!(email_domain("john@example.com"), Some("example.com"));
        assert_eq!(email_local(b"a@b@example.com"), b"a@b");
        assert_eq!(email_local(b"no-at-all"), b"no-at-all");
        assert_eq!(email_local(b"@x.org"), b"");
        assert_eq!(normalize(HASHED_PASSWORD, "ABCDEF01").unwrap(), "abcdef01");
        assert_eq!(normalize(PASSWORD, "PassWord").unwrap(), "PassWord");
    }

    #[test]
    fn hashes_are_recognised() {
        let bcrypt = format!("$2y$10${}", "N9qo8uLOickgx2ZMRZoMye".repeat(3)[..53].to_string());
        for h in [
            bcrypt.as_str(),
            "$P$984478476IagS59wHZvyQMArzfx58u.",
            "$6$saltsalt$0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH",
            "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo",
            "pbkdf2_sha256$260000$salt$aGFzaGhhc2hoYXNoaGFzaA==",
            "5f4dcc3b5aa765d61d8327deb882cf99",
            "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8",
            &"ab".repeat(32),
            &"cd".repeat(64),
        ] {
            assert!(looks_hashed(h), "{}", h);
        }
        for p in ["password", "hunter2", "$2y$short", "5f4dcc3b5aa765d61d8327deb882cf9", "zz4dcc3b5aa765d61d8327deb882cf99", "$1$nodollar"] {
            assert!(!looks_hashed(p), "{}", p);
        }
    }

    /// LDAP `{SCHEME}` hashes are hashes; look-alike passwords are not.
    #[test]
    fn ldap_hashes_are_recognised_and_look_alikes_are_not() {
        for h in [
            "{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
            "{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
            "{sha}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
            " {SSHA}DkMTwBl+a/3DQTxCYEApdUtNXGgdUac3 ",
            "{MD5}X03MO1qnZdYdgyfeuILPmQ==",
            "{SMD5}4YbQlVJT4bHwCbLcvyGmD8Ryv1M=",
            "{SHA256}XohImNooBHFR0OVvjcYpJ3NgPQ1qq73WKhHvch0VQtg=",
            "{SSHA256}Wq0pSrQSuJcvXUdSflvXzjCbPFvRxmZJzlIFMjYPAyYvdhFy84NzWQ==",
            "{SHA384}qLZLq9CsqRpZvbt3YbQh1PK7OCgNOnW6DyHyvrxFWD1EbFmGYMlM5oDEfRnDB4On",
            "{SHA512}sQnzu7wkTrgkQZF+0G1hi5AI3Qmzvv0bXgc5THBqi7mAsdd4Xll27ASbRt9fEyavWi6m0QP9B8lThf+rDKy8hg==",
            "{SSHA512}SvmbUKJVUM6Dkzbj1vGBOnbRbJVAR9UXKH25d6EiVAWe86v0QcsWHP3vjRUCvqWTsh2SvwRswdWdS7mTWbDNc2mCo2XfW2wY",
            "{CRYPT}$6$saltsalt$0123456789abcdefghijklmnopqrstuvwxyzABCDEFGH",
            "{crypt}$1$saltsalt$qjXzSaI0rOTTlj1f5Zo8z/",
            "{CRYPT}$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
            "{CRYPT}$y$j9T$F5Jx5fExrKuPp53xLKQ..1$X3DX6M94c7o.9agCG9G317fhZg9SqC.5i5rd.RhAtQ7",
            "{CRYPT}abJnggxhB/yWI",
            "{CRYPT}_J9..CCCCXBrJUJV154M",
        ] {
            assert!(looks_ldap_hashed(h), "{}", h);
        }
        for p in [
            "{hello}",
            "{SHA}",
            "{SSHA}",
            "{SSHA}not base64!",
            "{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g",
            "{SHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g==",
            "{SHA}YWJj",
            "{MD5}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
            "{SSHA}YWJj",
            "{CRYPT}",
            "{CRYPT}hunter2",
            "{CRYPT}$1$nodollar",
            "{CRYPT}$6$salt with spaces$0123456789abcdef",
            "{SSHA} W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
            "x{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g=",
            "{ümlaut}abc",
            "{",
            "",
        ] {
            assert!(!looks_ldap_hashed(p), "{}", p);
        }
        // The forms of rules 2 are left as they were.
        assert!(!looks_hashed("{SSHA}W6ph5Mm5Pz8GgiULbPgzG37mj9g="));
    }

    /// `same_value` is "the same text trimmed, or the same whole normalised
    /// value", its allocation-free ASCII paths included.
    #[test]
    fn same_value_means_same_normalised_value() {
        let samples = [
            "jdoe", "JDoe", " jdoe ", "jdoe2", "John@Example.COM", "john@example.com", "john@example.com.", "+1 (555) 010-2030", "15550102030",
            "1555010203", "n/a", "none", "::ffff:10.0.0.1", "10.0.0.1", "[10.0.0.1]", "2001:DB8::1", "2001:db8:0:0:0:0:0:1", "not-an-ip", "NOT-AN-IP",
            "Ann  Lee", "ann lee", "ann\tlee", "annlee", "ABCDEF01", "abcdef01", "abcdef01:SALT", "ABCDEF01:salt", "$P$Abc", "$p$abc", "Example.com.",
            "example.com", ".", "..", "Zoé", "zoé", "ZOÉ", "a\nb", "a b", "A B", "",
        ];
        let long_a = format!("{}a", "x".repeat(MAX_TERM_BYTES));
        let long_b = format!("{}b", "x".repeat(MAX_TERM_BYTES));
        for f in 0..FIELD_COUNT {
            for a in samples.iter().copied().chain([long_a.as_str(), long_b.as_str()]) {
                for b in samples.iter().copied().chain([long_a.as_str(), long_b.as_str()]) {
                    let want = a.trim() == b.trim() || normalize_whole(f, a).map(|n| Some(n) == normalize_whole(f, b)).unwrap_or(false);
                    assert_eq!(same_value(f, a, b), want, "{} {:?} {:?}", FIELDS[f], a, b);
                }
            }
        }
        assert!(same_value(EMAIL, "John@Example.COM", "john@example.com"));
        assert!(same_value(USERNAME, "Quill O'Hara", "quill o'hara"));
        assert!(!same_value(PASSWORD, "Secret", "secret"));
        assert!(same_value(PHONE, "+1 (555) 010-2030", "15550102030"));
        assert!(same_value(IP_ADDRESS, "::ffff:10.0.0.1", "10.0.0.1"));
        assert!(same_value(NAME, "Ann  Lee", "ann lee"));
        assert!(!same_value(PHONE, "n/a", "none"), "nothing to index is not one value");
        assert!(!same_value(USERNAME, &long_a, &long_b), "cut alike for the index, different whole");
        assert_eq!(normalize(USERNAME, &long_a), normalize(USERNAME, &long_b));
    }
}
