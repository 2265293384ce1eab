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

    /// Maps into this process's page table every page of the file that the page cache
    /// already holds, without reading the disk for the others (`mincore`, then
    /// `MADV_POPULATE_READ` per run of resident pages). The first read of a page of a fresh
    /// mapping otherwise takes a page fault (the kernel maps a few pages around it each
    /// time), paid by whichever search reads it first. Returns the pages mapped;
    /// best effort (kernels before 5.14 refuse the advice: nothing changes).
    pub fn map_resident(&self) -> usize {
        const MADV_POPULATE_READ: libc::c_int = 22;
        let Bytes::Map(m) = self else { return 0 };
        // Safety: sysconf has no preconditions.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as usize;
        let pages = m.len().div_ceil(page);
        let mut resident = vec![0u8; pages];
        let base = m.as_ptr() as *mut libc::c_void;
        // Safety: the range is this mapping (page-aligned: offset 0), the vector has a byte a page.
        if unsafe { libc::mincore(base, m.len(), resident.as_mut_ptr()) } != 0 {
            return 0;
        }
        let mut mapped = 0;
        let mut i = 0;
        while i < pages {
            if resident[i] & 1 == 0 {
                i += 1;
                continue;
            }
            let start = i;
            while i < pages && resident[i] & 1 == 1 {
                i += 1;
            }
            // Safety: a sub-range of this read-only mapping; the advice only faults pages in.
            if unsafe { libc::madvise(base.cast::<u8>().add(start * page).cast(), (i - start) * page, MADV_POPULATE_READ) } != 0 {
                break;
            }
            mapped += i - start;
        }
        mapped
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
