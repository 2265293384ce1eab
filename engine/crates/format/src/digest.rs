//! SHA-256 and SHA-1 of short byte strings (Debian's `sha2` and `sha1` crates: the CPU's
//! SHA instructions where it has them), lower-case hex, and hex digits' values: the derived
//! password hashes (`password_sha256`, `password_sha1`, see `segment::write_derived`),
//! stored binary, and the opt-outs' HMAC (`suppress.rs`). Hashing is not on a search path:
//! it runs once per distinct password of a part, on the ingest's part-flush thread and in
//! merges.

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
}
