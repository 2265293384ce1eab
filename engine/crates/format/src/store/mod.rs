//! The record store of a segment part: the original line of every document (with the
//! index of its line context, segment.json `contexts`), in zstd-compressed blocks.
//! Fields are parsed from the line on display (`render.rs`).
//!
//! Since format 8 (FORMAT.md, "Record store"): blocks kept as bare zstd blocks and a grouped
//! block map (`map.rs`). Formats 6-7, still read:
//! - `store.dat`: the blocks, one zstd frame each, compressed with a dictionary of the part;
//! - `store.map`: 16 bytes per block (u64 offset in store.dat, u32 first document, u16
//!   context base added to the block's context indexes, u16 dictionary or 0xFFFF for none),
//!   then one more entry holding the end of store.dat and the part's document count;
//! - `store.dict`: u32 count, u32 length of each dictionary, then the dictionaries.
//!
//! A block is a run of documents that closes at `BLOCK_BYTES` of lines or `MAX_BLOCK_DOCS`
//! documents. Decompressed (format 7): u16 `n | V7_BLOCK` (and `ONE_CTX` when every
//! record has the same context), that context or n u16 context indexes, n LEB128 varint
//! line lengths, the lines; format 6: u16 n, n u16 context indexes, n u32 ends (of each
//! line, from the start of the lines), the lines (the u32 ends were about 4 bytes a record
//! after zstd: level 3 does not match their zero bytes). A record is found without walking
//! the others (the ends are summed when the block is loaded), and a merge appends a part's
//! blocks as they are, of either layout (its dictionaries and a new context base come
//! along: `StoreWriter::copy_from`).
//!
//! Recently used blocks are kept decompressed in a process-wide cache bounded in bytes
//! (`LEAKWELL_STORE_CACHE_MB`, default 64; 0 turns it off).


use crate::bytes::Bytes;
use crate::error::{EngineError, Result};
use crate::keys::IntHasher;
use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use crate::zstd_block::{self, Dctx, Ddict};
use zstd::zstd_safe::{self, CCtx, CDict, CParameter};


/// A block closes once its lines reach this many bytes: with a dictionary, 1 KiB blocks
/// compress better than larger blocks without one, and a scattered hit decodes little more
/// than its own record (BENCHMARKS.md, "Why a cold page is fast").
pub const BLOCK_BYTES: usize = 1024;
/// ... or this many documents.
pub const MAX_BLOCK_DOCS: usize = 64;
/// Bit 15 of a block's first u16: a format 7 block (lengths as varints); format 4-6
/// blocks start with their record count, at most `MAX_BLOCK_DOCS`.
const V7_BLOCK: u16 = 0x8000;
/// Bit 14: one context for every record of the block.
const ONE_CTX: u16 = 0x4000;
const ZSTD_LEVEL: i32 = 3;
/// Dictionary size, and the lines sampled to train it (the first ones of each run). A larger
/// dictionary trained on more lines makes smaller stores, but each step costs decoding time
/// on every block read and training time at every write: 110 KiB on 1 MiB is where the
/// stores stop shrinking much for what decoding costs (`param_choices` compares sizes,
/// `decode_stores` the decoding; FORMAT.md, "part-N/").
const DICT_BYTES: usize = 110 * 1024;
const SAMPLE_BYTES: usize = 1 << 20;
/// A run with fewer sampled lines than this gets no dictionary (training would fail).
const MIN_SAMPLES: usize = 256;
const NO_DICT: u16 = u16::MAX;
/// A block map entry of formats 4-7.
const MAP_ENTRY: usize = 16;
/// The first bytes of a format 8 `store.map` (one of formats 4-7 starts with 8 zero bytes:
/// its first block's offset).
const MAP8_MAGIC: [u8; 4] = *b"LWM8";
const MAP8_HEAD: usize = 16;
const MAP8_RUN: usize = 8;
const MAP8_GROUP: usize = 16;
/// Blocks a group of the format 8 map: a block is found by walking at most this many
/// entries from its group's offset and first document (32: 0.5 byte a block less, but a
/// cold page's lookups cost twice the instructions).
const GROUP_BLOCKS: usize = 16;
/// Bit 7 of a format 8 entry's first byte: the block is kept as a whole zstd frame (a
/// block copied from a format 4-7 store that is not one compressed zstd block, or one
/// whose content zstd stored raw or over several zstd blocks); clear, a bare zstd block.
const FRAME_BIT: u8 = 0x80;
const _: () = assert!(MAX_BLOCK_DOCS < FRAME_BIT as usize);

mod block;
mod cache;
mod map;
mod reader;
mod writer;
#[cfg(test)]
mod tests;

pub use block::*;
pub use cache::*;
use map::*;
pub use reader::*;
pub use writer::*;
