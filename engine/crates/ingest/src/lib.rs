//! The ingest: dumps (SQL, CSV, JSON, stealer logs and combolists, archives) read into
//! records and written as segments (`ingest`, `sql`), published to the index (`publish`),
//! and segments merged, upgraded and purged (`merge`). Builds on the format crate only.

pub mod ingest;
pub mod merge;
pub mod publish;
pub mod sql;

// The lower crates' modules, named at the root so that paths read `crate::segment` in
// every crate of the engine; Cargo lets this crate name nothing above it.
use leakwell_contract as contract;
#[allow(unused_imports)]
use leakwell_format::{budget, bytes, cpu_clock, dedup, digest, error, fields, keys, manifest, postings, segment, source, store, suppress, termdict, trigram, zstd_block};
#[cfg(test)]
use leakwell_format::test_dir;
