//! Read-only file contents: memory-mapped when non-empty (segments are immutable).

use crate::error::Result;
use std::fs::File;
use std::ops::Deref;
use std::path::Path;

pub enum Bytes {
    Map(memmap2::Mmap),
    Empty,
}

impl Bytes {
    pub fn open(path: &Path) -> Result<Bytes> {
        let f = File::open(path).map_err(|e| crate::error::EngineError::Io(format!("{}: {}", path.display(), e)))?;
        if f.metadata()?.len() == 0 {
            return Ok(Bytes::Empty);
        }
        // Safety: segment files are written once, fsynced, then only read; nothing in this
        // crate truncates or rewrites them while they are mapped.
        let m = unsafe { memmap2::Mmap::map(&f)? };
        Ok(Bytes::Map(m))
    }

    /// The i-th little-endian u32 of the file.
    #[inline]
    pub fn u32_at(&self, i: usize) -> u32 {
        let b = &self[i * 4..i * 4 + 4];
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    /// The i-th little-endian u64 of the file.
    #[inline]
    pub fn u64_at(&self, i: usize) -> u64 {
        let b = &self[i * 8..i * 8 + 8];
        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Map(m) => m,
            Bytes::Empty => &[],
        }
    }
}
