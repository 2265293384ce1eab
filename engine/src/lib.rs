//! leakwell search engine: a Node-API addon indexing breach records in immutable segments.
//! See ../ARCHITECTURE.md for the overview and ../FORMAT.md for the on-disk format.

pub mod budget;
pub mod bytes;
pub mod contract;
pub mod dedup;
pub mod digest;
pub mod engine;
pub mod error;
pub mod fields;
pub mod ingest;
pub mod keys;
pub mod manifest;
pub mod merge;
pub mod planner;
pub mod pool;
pub mod postings;
pub mod publish;
pub mod query;
pub mod render;
pub mod request;
pub mod segment;
pub mod source;
pub mod sql;
pub mod store;
pub mod suppress;
pub mod termdict;
pub mod trigram;
pub mod watch;
pub mod zstd_block;

/// CPU clocks: the ingest's phase figures (`timing` in its summary) and the ignored
/// measurement tests (store tuning, cold pages).
pub(crate) mod cpu_clock {
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

/// Test-only: an empty scratch directory `leakwell-<name>-<pid>` under the system's temp dir
/// (whatever an earlier run left there removed first).
#[cfg(test)]
pub(crate) fn test_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("leakwell-{}-{}", name, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Test-only: a reply as the JSON value the wrapper receives.
#[cfg(test)]
pub(crate) fn to_json<T: serde::Serialize>(reply: T) -> serde_json::Value {
    serde_json::to_value(reply).unwrap()
}

// The binding references napi_* symbols that only the node binary provides, so it is
// left out of `cargo test` executables.
#[cfg(not(test))]
mod ffi;
#[cfg(not(test))]
mod napi;
