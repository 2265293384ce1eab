//! Dedup keys: the hash that identifies a record's content (dedup and removals), and hash
//! sets of them.

use crate::fields::FIELD_COUNT;
use std::collections::HashSet;

/// The dedup key: a hash of every field's sorted, distinct normalised values. Identical
/// records from different sources share it; the source and the raw line do not count.
pub fn dedup_key(normalized: &[Vec<String>; FIELD_COUNT]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for (i, vals) in normalized.iter().enumerate() {
        if vals.is_empty() {
            continue;
        }
        h.update(&[0xfe, i as u8]);
        if vals.len() == 1 {
            h.update(vals[0].as_bytes());
            h.update(&[0xff]);
            continue;
        }
        let mut v: Vec<&String> = vals.iter().collect();
        v.sort();
        v.dedup();
        for s in v {
            h.update(s.as_bytes());
            h.update(&[0xff]);
        }
    }
    h.digest()
}

/// Dedup keys are already xxh3 hashes: hash sets of them need no second hash.
#[derive(Default)]
pub struct KeyHasher(u64);
impl std::hash::Hasher for KeyHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) ^ b as u64 ^ (self.0 >> 56);
        }
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

pub type KeySet = HashSet<u64, std::hash::BuildHasherDefault<KeyHasher>>;

/// A hasher for maps keyed by small integers (trigram keys, the store's block cache): one
/// rotate, xor and multiply per integer. SipHash, the default, was a sixth of a page's fetch.
#[derive(Default)]
pub struct IntHasher(u64);
impl std::hash::Hasher for IntHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(29) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}
