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
/// (`segment::write_derived`). No query names them (`field_index` knows only the public
/// fields) and no entry shows them: only the password-check lookups read them.
pub const INDEXED_FIELDS: usize = 20;
pub const EMAIL_DOMAIN: usize = 16;
pub const EMAIL_LOCAL: usize = 17;
pub const PASSWORD_SHA256: usize = 18;
pub const PASSWORD_SHA1: usize = 19;

pub fn index_name(i: usize) -> &'static str {
    match i {
        EMAIL_DOMAIN => "email_domain",
        EMAIL_LOCAL => "email_local",
        PASSWORD_SHA256 => "password_sha256",
        PASSWORD_SHA1 => "password_sha1",
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
    let t = s.trim().trim_start_matches('[').trim_end_matches(']');
    match t.parse::<IpAddr>() {
        Ok(IpAddr::V4(a)) => Some(a.to_string()),
        Ok(IpAddr::V6(a)) => match a.to_ipv4_mapped() {
            Some(v4) => Some(v4.to_string()),
            None => Some(a.to_string()),
        },
        Err(_) => None,
    }
}

fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The indexed form of one value of `field`, or None when nothing is left to index.
pub fn normalize(field: usize, value: &str) -> Option<String> {
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
            if is_hex(&v) || v.split(':').next().map(is_hex).unwrap_or(false) {
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
        Some(truncate(out))
    }
}

/// Whether a value found in a password column is a recognisable password hash: bcrypt
/// (`$2a$`, `$2b$`, `$2x$`, `$2y$`; WordPress's `$wp$2y$`), phpass (`$P$`, `$H$`), crypt (`$1$`, `$5$`, `$6$`),
/// argon2 (`$argon2i$`, `$argon2d$`, `$argon2id$`), Django (`pbkdf2_sha256$`, `pbkdf2_sha1$`,
/// `argon2$`, `bcrypt_sha256$`), or hex of 32, 40, 64 or 128 digits (MD5, SHA-1, SHA-256,
/// SHA-512). A plaintext password of that shape is possible but rarer than the hash.
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
}
