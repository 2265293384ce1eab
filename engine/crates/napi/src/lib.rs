//! leakwell search engine: a Node-API addon indexing breach records in immutable segments.
//! The binding (`napi`, over the Node-API declarations of `ffi`) calls the engine of the
//! crates below: query (searches), ingest (ingest, merges), format, contract. See
//! ../../../ARCHITECTURE.md for the overview and ../../../FORMAT.md for the on-disk format.

#[allow(unused_imports)]
use leakwell_contract as contract;
#[allow(unused_imports)]
use leakwell_format::{error, segment};
#[allow(unused_imports)]
use leakwell_ingest::{ingest, merge};
#[allow(unused_imports)]
use leakwell_query::{engine, planner, pool, query, render, request};

// The binding references napi_* symbols that only the node binary provides, so it is
// left out of `cargo test` executables.
#[cfg(not(test))]
mod ffi;
#[cfg(not(test))]
mod napi;
