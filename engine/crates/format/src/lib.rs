//! The index on disk: fields and their normalised values, the record store, term tables,
//! postings and trigram lists, segments and the manifest that publishes them, and what
//! hides records (tombstones, opt-outs). The crates above (ingest, query, napi) build on it.
//! See ../../../ARCHITECTURE.md for the overview and ../../../FORMAT.md for the format.

pub mod budget;
pub mod bytes;
pub mod dedup;
pub mod digest;
pub mod error;
pub mod fields;
pub mod keys;
pub mod manifest;
pub mod postings;
pub mod segment;
pub mod source;
pub mod store;
pub mod suppress;
pub mod termdict;
pub mod trigram;
pub mod zstd_block;

// The boundary's types, `crate::contract` as in every crate of the engine: here only a test
// (the fields in the contract's order) names them.
#[cfg(test)]
use leakwell_contract as contract;

/// CPU clocks: the ingest's phase figures (`timing` in its summary) and the ignored
/// measurement tests (store tuning, cold pages).
pub mod cpu_clock {
    use std::time::Duration;

    fn clock(id: libc::clockid_t) -> Duration {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        // Safety: a valid timespec for the call to fill.
        unsafe { libc::clock_gettime(id, &mut ts) };
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    }

    /// CPU time of the calling thread.
    pub fn thread() -> Duration {
        clock(libc::CLOCK_THREAD_CPUTIME_ID)
    }

    /// CPU time of the whole process (helper threads included).
    pub fn process() -> Duration {
        clock(libc::CLOCK_PROCESS_CPUTIME_ID)
    }
}

/// For tests of this crate and the crates above it: an empty scratch directory
/// `leakwell-<name>-<pid>` under the system's temp dir (whatever an earlier run left there
/// removed first).
#[doc(hidden)]
pub fn test_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("leakwell-{}-{}", name, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
