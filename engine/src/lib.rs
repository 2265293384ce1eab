//! leakwell search engine: a Node-API addon indexing breach records in immutable segments.
//! See ../ARCHITECTURE.md for the overview and ../FORMAT.md for the on-disk format.

pub mod bytes;
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
pub mod store;
pub mod termdict;
pub mod trigram;
pub mod watch;

// The binding references napi_* symbols that only the node binary provides, so it is
// left out of `cargo test` executables.
#[cfg(not(test))]
mod ffi;
#[cfg(not(test))]
mod napi;
