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

/// Bits of a record's short dedup key (format 10, `dedup.top`): the key's top 32 bits. The
/// unit tests keep 4 (this crate's, and those of the crates above through the
/// `narrow-short-keys` feature of their dev-dependency), so that short keys of different
/// records collide all the time and every path confirming a short key with the whole one runs.
pub const SHORT_BITS: u32 = if cfg!(any(test, feature = "narrow-short-keys")) { 4 } else { 32 };

/// The short key of a dedup key: its top `SHORT_BITS` bits.
#[inline]
pub fn short_key(key: u64) -> u32 {
    (key >> (64 - SHORT_BITS)) as u32
}

/// The tombstoned dedup keys, and their short keys: a record is removed when its key is
/// listed, which is only worth checking (with a format 10 part: computing its whole key)
/// when its short key is. A bit per value of a short key's low 16 bits answers first: with
/// few tombstones, most hits are let through by one bit test, without hashing.
#[derive(Default)]
pub struct Removed {
    keys: KeySet,
    short: HashSet<u32, std::hash::BuildHasherDefault<IntHasher>>,
    low: Vec<u64>,
    generation: u64,
}

impl Removed {
    /// The removed keys of one state of the logs: `generation` grows with every change of
    /// them (the lengths of the append-only tombstone and suppression logs, added), so it
    /// names the set even when a lifted opt-out makes it smaller.
    pub fn new(keys: KeySet, generation: u64) -> Removed {
        let short: HashSet<u32, std::hash::BuildHasherDefault<IntHasher>> = keys.iter().map(|&k| short_key(k)).collect();
        let mut low = vec![0u64; 1 << 10];
        for &s in &short {
            low[(s as usize & 0xffff) >> 6] |= 1 << (s & 63);
        }
        Removed { keys, short, low, generation }
    }

    /// Identifies this set among the sets of one index (see `new`): a part's count cache key.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    #[inline]
    pub fn contains(&self, key: u64) -> bool {
        self.keys.contains(&key)
    }

    /// Whether some removed key has this short key.
    #[inline]
    pub fn may_contain(&self, short: u32) -> bool {
        self.low.get((short as usize & 0xffff) >> 6).is_some_and(|w| w >> (short & 63) & 1 == 1) && self.short.contains(&short)
    }
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
