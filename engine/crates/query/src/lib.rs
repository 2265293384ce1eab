//! Searches: the query language (`query`), plans over a segment's tables (`planner`), the
//! engine of an open index (`engine`), a request's reading and its reply's writing
//! (`request`, `render`), watches matched against new segments (`watch`) and the engine's
//! own thread pool (`pool`). Builds on the format crate; the ingest only builds the indexes
//! of its tests.

pub mod engine;
pub mod planner;
pub mod pool;
pub mod query;
pub mod render;
pub mod request;
pub mod watch;

// The lower crates' modules, named at the root so that paths read `crate::segment` in
// every crate of the engine; Cargo lets this crate name nothing above it.
use leakwell_contract as contract;
#[allow(unused_imports)]
use leakwell_format::{budget, bytes, cpu_clock, dedup, digest, error, fields, keys, manifest, postings, segment, source, store, suppress, termdict, trigram, zstd_block};
#[cfg(test)]
use leakwell_format::test_dir;
#[cfg(test)]
use leakwell_ingest::{ingest, merge};

/// Test-only: a reply as the JSON value the wrapper receives.
#[cfg(test)]
pub(crate) fn to_json<T: serde::Serialize>(reply: T) -> serde_json::Value {
    serde_json::to_value(reply).unwrap()
}
