//! SHA-256 and SHA-1 of short byte strings (Debian's `sha2` and `sha1` crates: the CPU's
//! SHA instructions where it has them), MD4 and NTLM (written here: no packaged crate),
//! lower-case hex, and hex digits' values: the derived password hashes (`password_sha256`,
//! `password_sha1`, `password_ntlm`, see `segment::write_derived`), stored binary, and the
//! opt-outs' HMAC (`suppress.rs`). Hashing is not on a search path: it runs once per
//! distinct password of a part, on the ingest's part-flush thread and in merges, and once
//! per candidate a password lookup confirms.

use sha1::Sha1;
use sha2::{Digest, Sha256};

/// SHA-256 of the concatenation of `parts` (an HMAC hashes its padded key and its message
/// without copying them together).
pub fn sha256_of(parts: &[&[u8]]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p);
    }
    h.finalize().into()
}

pub fn sha256(msg: &[u8]) -> [u8; 32] {
    Sha256::digest(msg).into()
}

pub fn sha1(msg: &[u8]) -> [u8; 20] {
    Sha1::digest(msg).into()
}

/// MD4 (RFC 1320) of `msg`. Debian packages no MD4 crate (`librust-md4-dev` does not
/// exist) and the build is offline, so it is written here after the RFC, checked against
/// its seven test vectors. MD4 is broken as a cryptographic hash; it is here only because
/// NTLM is defined on it.
pub fn md4(msg: &[u8]) -> [u8; 16] {
    let mut st: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];
    let mut chunks = msg.chunks_exact(64);
    for block in &mut chunks {
        md4_block(&mut st, block.try_into().unwrap());
    }
    // Padding: 0x80, zeros to 56 bytes mod 64, the message's length in bits (u64 LE).
    let rest = chunks.remainder();
    let mut tail = [0u8; 128];
    tail[..rest.len()].copy_from_slice(rest);
    tail[rest.len()] = 0x80;
    let len = if rest.len() < 56 { 64 } else { 128 };
    tail[len - 8..len].copy_from_slice(&((msg.len() as u64).wrapping_mul(8)).to_le_bytes());
    for block in tail[..len].chunks_exact(64) {
        md4_block(&mut st, block.try_into().unwrap());
    }
    let mut out = [0u8; 16];
    for (o, w) in out.chunks_exact_mut(4).zip(st) {
        o.copy_from_slice(&w.to_le_bytes());
    }
    out
}

/// One 64-byte block of MD4: three rounds of 16 operations (RFC 1320, 3.4).
fn md4_block(st: &mut [u32; 4], block: &[u8; 64]) {
    let mut x = [0u32; 16];
    for (w, b) in x.iter_mut().zip(block.chunks_exact(4)) {
        *w = u32::from_le_bytes(b.try_into().unwrap());
    }
    let [mut a, mut b, mut c, mut d] = *st;
    let f = |x: u32, y: u32, z: u32| (x & y) | (!x & z);
    let g = |x: u32, y: u32, z: u32| (x & y) | (x & z) | (y & z);
    let h = |x: u32, y: u32, z: u32| x ^ y ^ z;
    // Round 1: [abcd k s] a = (a + F(b,c,d) + X[k]) <<< s, k in order, s = 3 7 11 19.
    for i in 0..4 {
        a = a.wrapping_add(f(b, c, d)).wrapping_add(x[4 * i]).rotate_left(3);
        d = d.wrapping_add(f(a, b, c)).wrapping_add(x[4 * i + 1]).rotate_left(7);
        c = c.wrapping_add(f(d, a, b)).wrapping_add(x[4 * i + 2]).rotate_left(11);
        b = b.wrapping_add(f(c, d, a)).wrapping_add(x[4 * i + 3]).rotate_left(19);
    }
    // Round 2: + 0x5A827999, k = i, i+4, i+8, i+12, s = 3 5 9 13.
    const K2: u32 = 0x5a82_7999;
    for i in 0..4 {
        a = a.wrapping_add(g(b, c, d)).wrapping_add(x[i]).wrapping_add(K2).rotate_left(3);
        d = d.wrapping_add(g(a, b, c)).wrapping_add(x[i + 4]).wrapping_add(K2).rotate_left(5);
        c = c.wrapping_add(g(d, a, b)).wrapping_add(x[i + 8]).wrapping_add(K2).rotate_left(9);
        b = b.wrapping_add(g(c, d, a)).wrapping_add(x[i + 12]).wrapping_add(K2).rotate_left(13);
    }
    // Round 3: + 0x6ED9EBA1, k = 0 8 4 12, 2 10 6 14, 1 9 5 13, 3 11 7 15, s = 3 9 11 15.
    const K3: u32 = 0x6ed9_eba1;
    for i in [0, 2, 1, 3] {
        a = a.wrapping_add(h(b, c, d)).wrapping_add(x[i]).wrapping_add(K3).rotate_left(3);
        d = d.wrapping_add(h(a, b, c)).wrapping_add(x[i + 8]).wrapping_add(K3).rotate_left(9);
        c = c.wrapping_add(h(d, a, b)).wrapping_add(x[i + 4]).wrapping_add(K3).rotate_left(11);
        b = b.wrapping_add(h(c, d, a)).wrapping_add(x[i + 12]).wrapping_add(K3).rotate_left(15);
    }
    st[0] = st[0].wrapping_add(a);
    st[1] = st[1].wrapping_add(b);
    st[2] = st[2].wrapping_add(c);
    st[3] = st[3].wrapping_add(d);
}

/// NTLM of a password term: MD4 of its UTF-16LE encoding. Terms are UTF-8 (the ingest
/// decodes every input line with `String::from_utf8_lossy`, so an invalid byte was already
/// U+FFFD when it was indexed); a term that is not valid UTF-8 all the same (a part written
/// by something else) is decoded the same lossy way, each invalid sequence one U+FFFD: the
/// hash of the text the ingest would have indexed, never a panic, and the same when a
/// lookup hashes the term again to confirm it.
pub fn ntlm(term: &[u8]) -> [u8; 16] {
    let text = String::from_utf8_lossy(term);
    // A UTF-16 code unit per UTF-8 byte at most: a term (at most 256 bytes) fits on the stack.
    let mut stack = [0u8; 2 * crate::fields::MAX_TERM_BYTES];
    let heap: Vec<u8>;
    let utf16: &[u8] = if 2 * text.len() <= stack.len() {
        let mut n = 0;
        for u in text.encode_utf16() {
            stack[n..n + 2].copy_from_slice(&u.to_le_bytes());
            n += 2;
        }
        &stack[..n]
    } else {
        heap = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        &heap
    };
    md4(utf16)
}

/// The lower-case hex of the derived digest of a password `term` whose whole width is
/// `width` bytes (32: SHA-256, 20: SHA-1, 16: NTLM), appended to `out`; false for another
/// width (nothing appended).
pub fn derived_hex_into(width: usize, term: &[u8], out: &mut Vec<u8>) -> bool {
    match width {
        32 => hex_into(&sha256(term), out),
        20 => hex_into(&sha1(term), out),
        16 => hex_into(&ntlm(term), out),
        _ => return false,
    }
    true
}

/// Lower-case hex of `bytes`, appended to `out`.
pub fn hex_into(bytes: &[u8], out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for &b in bytes {
        out.push(HEX[(b >> 4) as usize]);
        out.push(HEX[(b & 15) as usize]);
    }
}

/// The value of a lower-case hex digit.
#[inline]
pub fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h256(s: &[u8]) -> String {
        let mut o = Vec::new();
        hex_into(&sha256(s), &mut o);
        String::from_utf8(o).unwrap()
    }
    fn h1(s: &[u8]) -> String {
        let mut o = Vec::new();
        hex_into(&sha1(s), &mut o);
        String::from_utf8(o).unwrap()
    }

    #[test]
    fn fips_vectors() {
        assert_eq!(h256(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        assert_eq!(h256(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(
            h256(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
        assert_eq!(h256(b"password"), "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8");
        assert_eq!(h1(b""), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        assert_eq!(h1(b"abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(h1(b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
        assert_eq!(h1(b"password"), "5baa61e4c9b93f3f0682250b6cf8331b7ee68fd8");
        // Multi-block messages (padding across a block boundary, 1,000 bytes).
        let a = vec![b'a'; 1000];
        assert_eq!(h256(&a), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
        assert_eq!(h1(&a), "291e9a6c66994949b57ba5e650361e98fc36b1ba");
        assert_eq!(h256(&a[..55]), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
        assert_eq!(h256(&a[..56]), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
        assert_eq!(sha256_of(&[&a[..20], b"", &a[20..]]), sha256(&a));
    }

    fn hex(b: &[u8]) -> String {
        let mut o = Vec::new();
        hex_into(b, &mut o);
        String::from_utf8(o).unwrap()
    }

    /// RFC 1320, A.5: the seven test vectors.
    #[test]
    fn md4_rfc1320_vectors() {
        for (msg, want) in [
            ("", "31d6cfe0d16ae931b73c59d7e0c089c0"),
            ("a", "bde52cb31de33e46245e05fbdbd6fb24"),
            ("abc", "a448017aaf21d8525fc10ae87aa6729d"),
            ("message digest", "d9130a8164549fe818874806e1c7014b"),
            ("abcdefghijklmnopqrstuvwxyz", "d79e1c308aa5bbcdeea8ed63df412da9"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "043f8582f241db351ce627e153e7f0e4"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "e33b4ddc9c38f2199c3e7b164fcc0536"),
        ] {
            assert_eq!(hex(&md4(msg.as_bytes())), want, "{:?}", msg);
        }
        // Padding around the block boundaries (one or two padding blocks) and a
        // multi-block message: `a` repeated, digests from OpenSSL's MD4 (legacy provider).
        let a = vec![b'a'; 1000];
        for (n, want) in [
            (55, "c889c81dd86c4d2e025778944ea02881"),
            (56, "d5f9a9e9257077a5f08b0b92f348b0ad"),
            (63, "7ea3da77432d44c323671097d1348fc8"),
            (64, "52f5076fabd22680234a3fa9f9dc5732"),
            (119, "e65dd227ccef97fa1d34d70189120f76"),
            (120, "b03ddbd470b47c013e0c7ab2ddd763db"),
            (1000, "5f1bf26a8067c9159b91f1440f7c9e8a"),
        ] {
            assert_eq!(hex(&md4(&a[..n])), want, "{} bytes", n);
        }
    }

    #[test]
    fn ntlm_is_md4_of_utf16le() {
        assert_eq!(hex(&ntlm(b"password")), "8846f7eaee8fb117ad06bdd830b7586c");
        assert_eq!(hex(&ntlm(b"")), "31d6cfe0d16ae931b73c59d7e0c089c0");
        // Beyond ASCII: two UTF-16 code units for a character outside the BMP.
        assert_eq!(ntlm("pässwörd".as_bytes()), md4(&"pässwörd".encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<u8>>()));
        assert_eq!(ntlm("😀".as_bytes()), md4(&[0x3d, 0xd8, 0x00, 0xde]));
        // Not valid UTF-8: decoded lossily, as the ingest decodes lines.
        assert_eq!(ntlm(b"caf\xe9"), ntlm("caf\u{fffd}".as_bytes()));
        assert_eq!(ntlm(b"\xff\xfe"), ntlm("\u{fffd}\u{fffd}".as_bytes()));
        assert_ne!(ntlm(b"caf\xe9"), ntlm(b"caf"));
        // Longer than a term (the heap path) and at the stack's limit.
        for n in [256, 257, 1000] {
            let long = "é".repeat(n);
            assert_eq!(ntlm(long.as_bytes()), md4(&long.encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<u8>>()), "{} characters", n);
        }
        let a = "a".repeat(256);
        assert_eq!(ntlm(a.as_bytes()), md4(&a.encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<u8>>()));
        let mut o = Vec::new();
        assert!(derived_hex_into(16, b"password", &mut o) && o == b"8846f7eaee8fb117ad06bdd830b7586c");
        assert!(!derived_hex_into(8, b"password", &mut o));
    }
}
