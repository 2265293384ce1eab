//! The record store of a segment part: the original line of every document (with the
//! index of its line context, segment.json `contexts`), in zstd-compressed blocks.
//! Fields are parsed from the line on display (`render.rs`).
//!
//! Format 4 (`store.map` present; see FORMAT.md, "Record store"):
//! - `store.dat`: the blocks, one zstd frame each, compressed with a dictionary of the part;
//! - `store.map`: 16 bytes per block (u64 offset in store.dat, u32 first document, u16
//!   context base added to the block's context indexes, u16 dictionary or 0xFFFF for none),
//!   then one more entry holding the end of store.dat and the part's document count;
//! - `store.dict`: u32 count, u32 length of each dictionary, then the dictionaries.
//!
//! A block is a run of documents that closes at `BLOCK_BYTES` of lines or `MAX_BLOCK_DOCS`
//! documents. Decompressed (format 7): u16 `n | V7_BLOCK` (and `ONE_CTX` when every
//! record has the same context), that context or n u16 context indexes, n LEB128 varint
//! line lengths, the lines; formats 4-6: u16 n, n u16 context indexes, n u32 ends (of each
//! line, from the start of the lines), the lines (the u32 ends were about 4 bytes a record
//! after zstd: level 3 does not match their zero bytes). A record is found without walking
//! the others (the ends are summed when the block is loaded), and a merge appends a part's
//! blocks as they are, of either layout (its dictionaries and a new context base come
//! along: `StoreWriter::copy_from`).
//!
//! Formats 1-3 (`store.idx`): blocks of `V3_BLOCK_DOCS` documents, `store.idx` the u64 LE
//! offset of each block plus the end; in a block, each record is u16 LE context, u32 LE
//! length and the line.
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

/// Documents per block of formats 1-3.
pub const V3_BLOCK_DOCS: u32 = 32;
/// A format-4 block closes once its lines reach this many bytes (see BENCHMARKS.md in git history, "Issue
/// 14": with a dictionary, 1 KiB blocks compress better than the 32-record blocks of
/// format 3 without one, and a scattered hit costs about a third of the time).
pub const BLOCK_BYTES: usize = 1024;
/// ... or this many documents.
pub const MAX_BLOCK_DOCS: usize = 64;
/// Bit 15 of a block's first u16: a format 7 block (lengths as varints); format 4-6
/// blocks start with their record count, at most `MAX_BLOCK_DOCS`.
const V7_BLOCK: u16 = 0x8000;
/// Bit 14: one context for every record of the block.
const ONE_CTX: u16 = 0x4000;
const ZSTD_LEVEL: i32 = 3;
/// Dictionary size, and the lines sampled to train it (the first ones of each run). 64 KiB:
/// 2-6% smaller stores than 16 KiB on the bench's sources (BENCHMARKS.md in git history, "Issue 14: index
/// size at 10M, format 5"); 110 KiB trained on 1 MiB instead of 64 KiB on 256 KiB: 2.1%
/// smaller over 300,000 lines of each of sources 00-08 (`param_choices`), the instructions
/// to decode every block +1.1% (`decode_stores` under callgrind), the store's write CPU
/// +12-27% (a longer training); 256 KiB on 2 MiB: 5% smaller but +5.8% decoding
/// (BENCHMARKS.md in git history, "Issue 14: session 10, index size (sizemisc)").
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

/// The fastCover segment size of every dictionary. `ZDICT_trainFromBuffer` tried five
/// (50 to 1998) on three quarters of the samples and kept the one compressing the last
/// quarter best; one pass with 537 (one of its frequent picks) on all of them costs about
/// 50 ms less CPU per dictionary, and the stores of the bench's nine shapes come out 0.4%
/// smaller (`train_k_choices`, BENCHMARKS.md in git history "session 9").
const TRAIN_K: u32 = 537;

/// `ZDICT_fastCover_params_t` of zdict.h (zstd 1.5).
#[repr(C)]
#[derive(Default, Clone, Copy)]
struct FastCoverParams {
    k: u32,
    d: u32,
    f: u32,
    steps: u32,
    threads: u32,
    split_point: f64,
    accel: u32,
    shrink_dict: u32,
    shrink_dict_max_regression: u32,
    compression_level: i32,
    notification_level: u32,
    dict_id: u32,
}

extern "C" {
    // libzstd's dictionary builder (zdict.h), linked through zstd-sys; the crate's own
    // wrapper sits behind its `zdict_builder` feature, which the build does not enable.
    fn ZDICT_trainFromBuffer_fastCover(dict: *mut std::ffi::c_void, dict_cap: usize, samples: *const std::ffi::c_void, sizes: *const usize, n: u32, params: FastCoverParams) -> usize;
    fn ZDICT_optimizeTrainFromBuffer_fastCover(dict: *mut std::ffi::c_void, dict_cap: usize, samples: *const std::ffi::c_void, sizes: *const usize, n: u32, params: *mut FastCoverParams) -> usize;
    fn ZDICT_isError(code: usize) -> u32;
}

/// A dictionary trained on `samples` (concatenated, `sizes` each), or None when zstd
/// cannot train one (too few or too uniform samples). `k`: the fastCover segment size;
/// 0 tries five as `ZDICT_trainFromBuffer` does (the measurements).
fn train_dict(samples: &[u8], sizes: &[usize], dict_bytes: usize, k: u32, level: i32) -> Option<Vec<u8>> {
    if sizes.len() < MIN_SAMPLES {
        return None;
    }
    let mut dict = vec![0u8; dict_bytes];
    // ZDICT_trainFromBuffer's parameters (d = 8), the writer's level, `k` fixed when given.
    let mut params = FastCoverParams { k, d: 8, steps: 4, compression_level: level, ..Default::default() };
    // Safety: the buffers are valid for the lengths given; sizes sum to samples.len();
    // `params` has zdict.h's layout.
    let n = unsafe {
        if k == 0 {
            ZDICT_optimizeTrainFromBuffer_fastCover(dict.as_mut_ptr().cast(), dict.len(), samples.as_ptr().cast(), sizes.as_ptr(), sizes.len() as u32, &mut params)
        } else {
            ZDICT_trainFromBuffer_fastCover(dict.as_mut_ptr().cast(), dict.len(), samples.as_ptr().cast(), sizes.as_ptr(), sizes.len() as u32, params)
        }
    };
    if unsafe { ZDICT_isError(n) } != 0 {
        return None;
    }
    dict.truncate(n);
    Some(dict)
}

fn zstd_err(code: usize) -> EngineError {
    EngineError::Io(format!("zstd: {}", zstd_safe::get_error_name(code)))
}

/// The open block of a writer.
#[derive(Default)]
struct OpenBlock {
    ctx: Vec<u16>,
    ends: Vec<u32>,
    lines: Vec<u8>,
}

impl OpenBlock {
    /// A format 7 block: u16 `n | V7_BLOCK` (`| ONE_CTX` when every record has the same
    /// context), that context or the `n` contexts (u16 each), each record's length as a
    /// LEB128 varint, then the lines.
    fn encode(&self, out: &mut Vec<u8>) {
        out.clear();
        let one = self.ctx.iter().all(|&c| c == self.ctx[0]);
        out.extend_from_slice(&(self.ctx.len() as u16 | V7_BLOCK | if one { ONE_CTX } else { 0 }).to_le_bytes());
        for c in if one { &self.ctx[..1] } else { &self.ctx[..] } {
            out.extend_from_slice(&c.to_le_bytes());
        }
        let mut prev = 0u32;
        for &e in &self.ends {
            crate::postings::put_varint(e - prev, out);
            prev = e;
        }
        out.extend_from_slice(&self.lines);
    }

    /// The format 4 block (u16 n, n u16 contexts, n u32 ends, the lines): what format 4-6
    /// wrote, kept for the tests of old stores.
    #[cfg(test)]
    fn encode_v4(&self, out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&(self.ctx.len() as u16).to_le_bytes());
        for c in &self.ctx {
            out.extend_from_slice(&c.to_le_bytes());
        }
        for e in &self.ends {
            out.extend_from_slice(&e.to_le_bytes());
        }
        out.extend_from_slice(&self.lines);
    }
}

pub struct StoreWriter {
    dat: std::io::BufWriter<std::fs::File>,
    map: MapWriter,
    dicts: Vec<Vec<u8>>,
    pos: u64,
    docs: u32,
    dir: PathBuf,
    /// One compression context for every block (creating one per block was a large
    /// share of the ingest's time).
    cctx: CCtx<'static>,
    /// The dictionary of the current run (index in `dicts`), once trained.
    cdict: Option<(u16, CDict<'static>)>,
    /// Before a run's dictionary: its first lines, kept as training samples.
    training: bool,
    sample: OpenBlock,
    block: OpenBlock,
    raw: Vec<u8>,
    out: Vec<u8>,
    block_bytes: usize,
    /// Lines sampled to train a run's dictionary; 0 for no dictionary.
    sample_bytes: usize,
    level: i32,
    dict_bytes: usize,
    /// The dictionaries' fastCover segment size (`TRAIN_K`; 0 tries five).
    train_k: u32,
    /// Compression parameters set on the context beside the level: the run's dictionary
    /// is then loaded into the context (`load_dictionary`, once a run) so that they apply
    /// to it too (a referenced `CDict` brings the parameters of its level). `param_choices`.
    local: Option<u16>,
    tuned: bool,
    /// Write format 4 blocks (tests of old stores).
    #[cfg(test)]
    v4_blocks: bool,
    /// Write the block map of formats 4-7 (16 bytes a block) and whole frames: tests of
    /// old stores, measurements of the frames' bytes.
    #[cfg(test)]
    v7_map: Option<Vec<u8>>,
}

/// The format 8 block map being written: the runs of blocks sharing a context base and a
/// dictionary, each group's start, each block's entry.
#[derive(Default)]
struct MapWriter {
    blocks: u32,
    runs: Vec<u8>,
    last_run: Option<(u16, u16)>,
    groups: Vec<u8>,
    entries: Vec<u8>,
}

impl MapWriter {
    /// The next block (`l.b` is not read).
    fn push(&mut self, l: &Loc) -> Result<()> {
        if l.docs == 0 || l.docs >= FRAME_BIT as u32 {
            return Err(EngineError::Corrupt(format!("a store block of {} records", l.docs)));
        }
        let len = u32::try_from(l.end - l.offset).map_err(|_| EngineError::InvalidArgument("a store block of 4 GiB".into()))?;
        if self.last_run != Some((l.ctx_base, l.dict)) {
            self.runs.extend_from_slice(&self.blocks.to_le_bytes());
            self.runs.extend_from_slice(&l.ctx_base.to_le_bytes());
            self.runs.extend_from_slice(&l.dict.to_le_bytes());
            self.last_run = Some((l.ctx_base, l.dict));
        }
        if (self.blocks as usize).is_multiple_of(GROUP_BLOCKS) {
            self.group(l.offset, l.first);
        }
        self.entries.push(l.docs as u8 | if l.bare { 0 } else { FRAME_BIT });
        crate::postings::put_varint(len, &mut self.entries);
        self.blocks = self.blocks.checked_add(1).ok_or_else(|| EngineError::InvalidArgument("too many store blocks in one part".into()))?;
        Ok(())
    }

    fn group(&mut self, offset: u64, first: u32) {
        self.groups.extend_from_slice(&offset.to_le_bytes());
        self.groups.extend_from_slice(&first.to_le_bytes());
        self.groups.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
    }

    /// The map's bytes, its last group entry the end of store.dat and the document count.
    fn finish(mut self, end: u64, docs: u32) -> Vec<u8> {
        let groups = self.groups.len() / MAP8_GROUP;
        self.group(end, docs);
        let mut out = Vec::with_capacity(MAP8_HEAD + self.runs.len() + self.groups.len() + self.entries.len());
        out.extend_from_slice(&MAP8_MAGIC);
        debug_assert_eq!(groups, (self.blocks as usize).div_ceil(GROUP_BLOCKS));
        for n in [self.blocks, (self.runs.len() / MAP8_RUN) as u32, GROUP_BLOCKS as u32] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(&self.runs);
        out.extend_from_slice(&self.groups);
        out.extend_from_slice(&self.entries);
        out
    }
}

impl StoreWriter {
    pub fn create(dir: &Path) -> Result<StoreWriter> {
        Self::create_with(dir, BLOCK_BYTES, SAMPLE_BYTES)
    }

    /// A writer with another block size, or without dictionaries (the measurements of
    /// BENCHMARKS.md in git history, "Issue 14").
    pub fn create_with(dir: &Path, block_bytes: usize, sample_bytes: usize) -> Result<StoreWriter> {
        Self::create_level(dir, block_bytes, sample_bytes, ZSTD_LEVEL)
    }

    /// ... and another zstd level.
    pub fn create_level(dir: &Path, block_bytes: usize, sample_bytes: usize, level: i32) -> Result<StoreWriter> {
        Self::create_tuned(dir, block_bytes, sample_bytes, level, DICT_BYTES)
    }

    /// ... and another dictionary size.
    pub fn create_tuned(dir: &Path, block_bytes: usize, sample_bytes: usize, level: i32, dict_bytes: usize) -> Result<StoreWriter> {
        let mut cctx = CCtx::create();
        for p in [CParameter::CompressionLevel(level), CParameter::ContentSizeFlag(true), CParameter::ChecksumFlag(false), CParameter::DictIdFlag(false)] {
            cctx.set_parameter(p).map_err(zstd_err)?;
        }
        Ok(StoreWriter {
            dat: std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(dir.join("store.dat"))?),
            map: MapWriter::default(),
            dicts: Vec::new(),
            pos: 0,
            docs: 0,
            dir: dir.to_path_buf(),
            cctx,
            cdict: None,
            training: true,
            sample: OpenBlock::default(),
            block: OpenBlock::default(),
            raw: Vec::new(),
            out: Vec::new(),
            block_bytes,
            sample_bytes,
            level,
            dict_bytes,
            train_k: TRAIN_K,
            local: None,
            tuned: false,
            #[cfg(test)]
            v4_blocks: false,
            #[cfg(test)]
            v7_map: None,
        })
    }

    /// A writer with compression parameters beside the level (measurements).
    #[cfg(test)]
    pub fn create_params(dir: &Path, level: i32, params: &[CParameter]) -> Result<StoreWriter> {
        let mut w = Self::create_level(dir, BLOCK_BYTES, SAMPLE_BYTES, level)?;
        for p in params {
            w.cctx.set_parameter(p.clone()).map_err(zstd_err)?;
        }
        w.tuned = true;
        Ok(w)
    }

    pub fn add(&mut self, ctx: u16, line: &str) -> Result<()> {
        self.add_bytes(ctx, line.as_bytes())
    }

    /// `line` must be UTF-8 (a record copied from another store).
    pub fn add_bytes(&mut self, ctx: u16, line: &[u8]) -> Result<()> {
        if self.training {
            self.sample.ctx.push(ctx);
            self.sample.lines.extend_from_slice(line);
            self.sample.ends.push(self.sample.lines.len() as u32);
            if self.sample.lines.len() >= self.sample_bytes {
                self.train()?;
            }
            return Ok(());
        }
        self.push(ctx, line)
    }

    fn push(&mut self, ctx: u16, line: &[u8]) -> Result<()> {
        let b = &mut self.block;
        b.ctx.push(ctx);
        b.lines.extend_from_slice(line);
        if b.lines.len() > u32::MAX as usize {
            return Err(EngineError::InvalidArgument("a record longer than 4 GiB".into()));
        }
        b.ends.push(b.lines.len() as u32);
        if b.lines.len() >= self.block_bytes || b.ctx.len() >= MAX_BLOCK_DOCS {
            self.flush_block()?;
        }
        Ok(())
    }

    /// Train the current run's dictionary on its sampled lines, then write them.
    fn train(&mut self) -> Result<()> {
        self.training = false;
        let sample = std::mem::take(&mut self.sample);
        let mut sizes = Vec::with_capacity(sample.ends.len());
        let mut prev = 0u32;
        for &e in &sample.ends {
            sizes.push((e - prev) as usize);
            prev = e;
        }
        // zstd refuses empty samples; leave them out of training only.
        let lines_nonempty = sizes.iter().filter(|&&s| s > 0).count();
        let dict = if self.sample_bytes > 0 && lines_nonempty == sizes.len() { train_dict(&sample.lines, &sizes, self.dict_bytes, self.train_k, self.level) } else { None };
        if let Some(d) = dict {
            if self.dicts.len() >= NO_DICT as usize {
                return Err(EngineError::InvalidArgument("too many store dictionaries in one part".into()));
            }
            if self.tuned {
                self.cctx.load_dictionary(&d).map_err(zstd_err)?;
                self.local = Some(self.dicts.len() as u16);
            } else {
                let cdict = CDict::try_create(&d, self.level).ok_or_else(|| EngineError::Internal("zstd could not load a dictionary".into()))?;
                self.cdict = Some((self.dicts.len() as u16, cdict));
            }
            self.dicts.push(d);
        }
        let mut start = 0usize;
        for (i, &e) in sample.ends.iter().enumerate() {
            self.push(sample.ctx[i], &sample.lines[start..e as usize])?;
            start = e as usize;
        }
        Ok(())
    }

    /// End the current run: its pending lines written, its last block closed. The next
    /// records start a new run with a dictionary of its own.
    pub(crate) fn seal(&mut self) -> Result<()> {
        if self.training && !self.sample.ctx.is_empty() {
            self.train()?;
        }
        self.flush_block()?;
        self.cdict = None;
        if self.local.take().is_some() {
            self.cctx.load_dictionary(&[]).map_err(zstd_err)?;
        }
        self.training = true;
        Ok(())
    }

    fn flush_block(&mut self) -> Result<()> {
        let n = self.block.ctx.len();
        if n == 0 {
            return Ok(());
        }
        #[cfg(test)]
        if self.v4_blocks {
            self.block.encode_v4(&mut self.raw);
        } else {
            self.block.encode(&mut self.raw);
        }
        #[cfg(not(test))]
        self.block.encode(&mut self.raw);
        self.out.clear();
        self.out.reserve(zstd_safe::compress_bound(self.raw.len()));
        let dict = match &self.cdict {
            _ if self.tuned => self.local.unwrap_or(NO_DICT),
            Some((i, cd)) => {
                self.cctx.ref_cdict(cd).map_err(zstd_err)?;
                *i
            }
            None => {
                // An empty dictionary clears the one referenced before.
                self.cctx.load_dictionary(&[]).map_err(zstd_err)?;
                NO_DICT
            }
        };
        self.cctx.compress2(&mut self.out, &self.raw).map_err(zstd_err)?;
        let frame = std::mem::take(&mut self.out);
        let put = self.put_stored(&frame, false, n as u32, 0, dict);
        self.out = frame;
        put?;
        let b = &mut self.block;
        b.ctx.clear();
        b.ends.clear();
        b.lines.clear();
        Ok(())
    }

    /// Write a block of `docs` documents, `stored` a zstd frame or (`bare`) a bare zstd
    /// block: a frame that is one compressed zstd block is kept as that block
    /// (`zstd_block::frame_block`), any other whole.
    fn put_stored(&mut self, stored: &[u8], bare: bool, docs: u32, ctx_base: u16, dict: u16) -> Result<()> {
        #[cfg(test)]
        if let Some(m) = &mut self.v7_map {
            if bare {
                return Err(EngineError::InvalidArgument("a bare zstd block in a format 7 store".into()));
            }
            m.extend_from_slice(&self.pos.to_le_bytes());
            m.extend_from_slice(&self.docs.to_le_bytes());
            m.extend_from_slice(&ctx_base.to_le_bytes());
            m.extend_from_slice(&dict.to_le_bytes());
            self.dat.write_all(stored)?;
            self.pos += stored.len() as u64;
            self.docs += docs;
            return Ok(());
        }
        let (bytes, bare) = match (bare, zstd_block::frame_block(stored)) {
            (false, Some(block)) => (block, true),
            _ => (stored, bare),
        };
        let end = self.pos + bytes.len() as u64;
        self.map.push(&Loc { b: self.map.blocks as usize, offset: self.pos, end, first: self.docs, docs, ctx_base, dict, bare })?;
        self.dat.write_all(bytes)?;
        self.pos += bytes.len() as u64;
        self.docs = self.docs.checked_add(docs).ok_or_else(|| EngineError::InvalidArgument("too many records in one part".into()))?;
        Ok(())
    }

    /// Append every record of `src` with `ctx_base` added to its context indexes. The blocks
    /// of formats 4-8 are copied (with their dictionaries), not decompressed: frames of one
    /// compressed zstd block as that block, other frames and bare blocks as they are;
    /// older stores are decompressed and written again as a run of their own.
    pub fn copy_from(&mut self, src: &StoreReader, ctx_base: u16) -> Result<()> {
        self.seal()?;
        let Layout::Mapped { map, dicts } = &src.layout else {
            for b in 0..src.blocks() {
                let block = src.load(b)?;
                for k in 0..block.len() as usize {
                    let (ctx, line) = block.record_at(k)?;
                    self.add_bytes(ctx + ctx_base, line)?;
                }
            }
            return self.seal();
        };
        if self.dicts.len() + dicts.len() >= NO_DICT as usize {
            return Err(EngineError::InvalidArgument("too many store dictionaries in one part".into()));
        }
        let dict_base = self.dicts.len() as u16;
        self.dicts.extend(dicts.iter().map(|d| d.1.clone()));
        let mut at = map.start();
        for _ in 0..map.blocks() {
            let e = map.next(&mut at);
            let base = e.ctx_base.checked_add(ctx_base).ok_or_else(|| EngineError::InvalidArgument("too many input files in one part".into()))?;
            let dict = if e.dict == NO_DICT { NO_DICT } else { e.dict + dict_base };
            self.put_stored(&src.dat[e.offset as usize..e.end as usize], e.bare, e.docs, base, dict)?;
        }
        Ok(())
    }

    pub fn finish(mut self) -> Result<u64> {
        self.seal()?;
        self.dat.flush()?;
        let map = std::mem::take(&mut self.map).finish(self.pos, self.docs);
        #[cfg(test)]
        let map = match self.v7_map.take() {
            Some(mut m) => {
                m.extend_from_slice(&self.pos.to_le_bytes());
                m.extend_from_slice(&self.docs.to_le_bytes());
                m.extend_from_slice(&[0; 4]);
                m
            }
            None => map,
        };
        std::fs::write(self.dir.join("store.map"), &map)?;
        let mut d = Vec::new();
        d.extend_from_slice(&(self.dicts.len() as u32).to_le_bytes());
        for x in &self.dicts {
            d.extend_from_slice(&(x.len() as u32).to_le_bytes());
        }
        for x in &self.dicts {
            d.extend_from_slice(x);
        }
        std::fs::write(self.dir.join("store.dict"), &d)?;
        Ok(self.pos + map.len() as u64 + d.len() as u64)
    }
}

/// A block of a store of formats 4-8, as its block map gives it.
#[derive(Clone, Copy)]
struct Loc {
    /// The block's number in the part.
    b: usize,
    /// Its bytes in store.dat.
    offset: u64,
    end: u64,
    first: u32,
    docs: u32,
    ctx_base: u16,
    dict: u16,
    /// A bare zstd block (format 8), else a whole zstd frame.
    bare: bool,
}

/// Where a walk over a block map stands: the next block, and where its entry, bytes and
/// first document are (format 8).
struct Cursor {
    b: usize,
    entry: usize,
    offset: u64,
    first: u32,
    run: usize,
}

/// `store.map`. Validated when opened: every read below is within the file.
enum BlockMap {
    /// Formats 4-7: `MAP_ENTRY` bytes a block, then the end of store.dat and the document
    /// count; every block a zstd frame.
    Fixed { map: Bytes, blocks: usize },
    /// Format 8: a 16-byte head (magic, blocks, runs, blocks a group), the runs (u32 first
    /// block, u16 context base, u16 dictionary), a group entry for every G blocks and
    /// one more (u64 offset in store.dat, u32 first document, u32 offset of the group's
    /// first block entry), then the block entries (u8 record count | `FRAME_BIT`, LEB128
    /// byte length).
    Grouped { map: Bytes, blocks: usize, runs: usize, group: usize, groups: usize },
}

// One bounds check and one load each (the lookups of a cold page make many).
#[inline]
fn le_u16(b: &[u8], p: usize) -> u16 {
    u16::from_le_bytes(b[p..p + 2].try_into().expect("2 bytes"))
}

#[inline]
fn le_u32(b: &[u8], p: usize) -> u32 {
    u32::from_le_bytes(b[p..p + 4].try_into().expect("4 bytes"))
}

#[inline]
fn le_u64(b: &[u8], p: usize) -> u64 {
    u64::from_le_bytes(b[p..p + 8].try_into().expect("8 bytes"))
}

/// Format 8: the last of the `runs` runs of `map` starting at or before block `b`.
fn run_of(map: &[u8], runs: usize, b: usize) -> usize {
    let (mut lo, mut hi) = (0usize, runs);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if le_u32(map, MAP8_HEAD + mid * MAP8_RUN) as usize <= b {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

impl BlockMap {
    /// The map of a store.dat of `dat_len` bytes, checked whole (blocks in order, within
    /// store.dat, each of 1 to 127 records, dictionaries among the `dicts`).
    fn open(map: Bytes, dat_len: usize, dicts: usize) -> std::result::Result<BlockMap, &'static str> {
        let m = if map.starts_with(&MAP8_MAGIC) {
            if map.len() < MAP8_HEAD {
                return Err("store.map truncated");
            }
            let (blocks, runs, group) = (le_u32(&map, 4) as usize, le_u32(&map, 8) as usize, le_u32(&map, 12) as usize);
            if !(1..=1024).contains(&group) || (runs == 0) != (blocks == 0) || runs > blocks {
                return Err("store.map has a bad head");
            }
            let groups = blocks.div_ceil(group);
            let entries = MAP8_HEAD + runs * MAP8_RUN + (groups + 1) * MAP8_GROUP;
            if map.len() < entries {
                return Err("store.map truncated");
            }
            BlockMap::Grouped { map, blocks, runs, group, groups }
        } else {
            if map.len() < MAP_ENTRY || map.len() % MAP_ENTRY != 0 {
                return Err("store.map has a bad length");
            }
            BlockMap::Fixed { blocks: map.len() / MAP_ENTRY - 1, map }
        };
        if let BlockMap::Grouped { map, runs, .. } = &m {
            // Runs: the first at block 0, then ascending.
            for r in 0..*runs {
                let first = le_u32(map, MAP8_HEAD + r * MAP8_RUN) as usize;
                let prev = if r == 0 { None } else { Some(le_u32(map, MAP8_HEAD + (r - 1) * MAP8_RUN) as usize) };
                if (r == 0 && first != 0) || prev.is_some_and(|p| p >= first) || first >= m.blocks() {
                    return Err("store.map has bad runs");
                }
            }
        }
        // Every block once, as the readers will see them.
        let mut c = m.start();
        for b in 0..m.blocks() {
            if let BlockMap::Grouped { map, group, .. } = &m {
                if b.is_multiple_of(*group) {
                    let g = m.group_at(b / group);
                    if (g.entry, g.offset, g.first) != (c.entry, c.offset, c.first) {
                        return Err("store.map has a bad group");
                    }
                }
                // The entry's byte and its varint (at most 5 bytes) within the map.
                let at = c.entry;
                if at >= map.len() || !map[at + 1..].iter().take(5).any(|&x| x < 0x80) {
                    return Err("store.map truncated");
                }
            }
            let e = m.next(&mut c);
            if e.end < e.offset || e.end > dat_len as u64 || e.docs == 0 || e.docs >= FRAME_BIT as u32 || (e.dict != NO_DICT && e.dict as usize >= dicts) {
                return Err("store.map has a bad block");
            }
        }
        let (end, docs) = m.end();
        let whole = match &m {
            BlockMap::Fixed { .. } => true,
            BlockMap::Grouped { map, groups, .. } => m.group_at(*groups).entry == map.len() && c.entry == map.len() && c.offset == end && c.first == docs,
        };
        if !whole || end != dat_len as u64 {
            return Err("store.map does not match store.dat");
        }
        Ok(m)
    }

    fn blocks(&self) -> usize {
        match self {
            BlockMap::Fixed { blocks, .. } | BlockMap::Grouped { blocks, .. } => *blocks,
        }
    }

    /// The end of store.dat and the part's document count.
    fn end(&self) -> (u64, u32) {
        match self {
            BlockMap::Fixed { map, blocks } => (le_u64(map, blocks * MAP_ENTRY), le_u32(map, blocks * MAP_ENTRY + 8)),
            BlockMap::Grouped { groups, .. } => {
                let g = self.group_at(*groups);
                (g.offset, g.first)
            }
        }
    }

    fn start(&self) -> Cursor {
        match self {
            BlockMap::Fixed { .. } => Cursor { b: 0, entry: 0, offset: 0, first: 0, run: 0 },
            BlockMap::Grouped { .. } => self.group_at(0),
        }
    }

    /// Format 8: the cursor at group `g`'s first block.
    fn group_at(&self, g: usize) -> Cursor {
        let BlockMap::Grouped { map, runs, group, groups, .. } = self else { unreachable!("format 8 maps only") };
        let at = MAP8_HEAD + runs * MAP8_RUN + g * MAP8_GROUP;
        let entries = MAP8_HEAD + runs * MAP8_RUN + (groups + 1) * MAP8_GROUP;
        let b = g * group;
        Cursor { b, entry: entries + le_u32(map, at + 12) as usize, offset: le_u64(map, at), first: le_u32(map, at + 8), run: run_of(map, *runs, b) }
    }

    /// The block at the cursor; the cursor moves to the next one.
    #[inline]
    fn next(&self, c: &mut Cursor) -> Loc {
        let b = c.b;
        c.b += 1;
        match self {
            BlockMap::Fixed { map, .. } => {
                let (e, n) = (b * MAP_ENTRY, (b + 1) * MAP_ENTRY);
                let (offset, first) = (le_u64(map, e), le_u32(map, e + 8));
                Loc { b, offset, end: le_u64(map, n), first, docs: le_u32(map, n + 8).wrapping_sub(first), ctx_base: le_u16(map, e + 12), dict: le_u16(map, e + 14), bare: false }
            }
            BlockMap::Grouped { map, runs, .. } => {
                let head = map[c.entry];
                c.entry += 1;
                let len = crate::postings::varint_at(map, &mut c.entry) as u64;
                let r = MAP8_HEAD + c.run * MAP8_RUN;
                let docs = (head & !FRAME_BIT) as u32;
                let loc = Loc { b, offset: c.offset, end: c.offset + len, first: c.first, docs, ctx_base: le_u16(map, r + 4), dict: le_u16(map, r + 6), bare: head & FRAME_BIT == 0 };
                c.offset += len;
                c.first = c.first.wrapping_add(docs);
                if c.run + 1 < *runs && le_u32(map, r + MAP8_RUN) as usize == c.b {
                    c.run += 1;
                }
                loc
            }
        }
    }

    /// Block `b` (< blocks).
    fn get(&self, b: usize) -> Loc {
        match self {
            BlockMap::Fixed { .. } => self.next(&mut Cursor { b, entry: 0, offset: 0, first: 0, run: 0 }),
            BlockMap::Grouped { group, .. } => self.walk_group(b / group, |x, _, _| x == b),
        }
    }

    /// The block holding document `doc`: the last one whose first document is <= doc
    /// (blocks > 0).
    fn locate(&self, doc: u32) -> Loc {
        // The last block (formats 4-7) or group (format 8) whose first document is <= doc.
        let (n, at, step) = match self {
            BlockMap::Fixed { blocks, .. } => (*blocks, 8, MAP_ENTRY),
            BlockMap::Grouped { runs, groups, .. } => (*groups, MAP8_HEAD + runs * MAP8_RUN + 8, MAP8_GROUP),
        };
        let (BlockMap::Fixed { map, .. } | BlockMap::Grouped { map, .. }) = self;
        let (mut lo, mut hi) = (0usize, n);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if le_u32(map, at + mid * step) <= doc {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        match self {
            BlockMap::Fixed { .. } => self.get(lo),
            BlockMap::Grouped { .. } => self.walk_group(lo, |_, first, docs| doc.wrapping_sub(first) < docs),
        }
    }

    /// Format 8: the first block of group `g` for which `stop(block, first document,
    /// records)` holds, or the group's last block. Only the entries are read on the way.
    #[inline]
    fn walk_group(&self, g: usize, stop: impl Fn(usize, u32, u32) -> bool) -> Loc {
        let BlockMap::Grouped { map, blocks, runs, group, groups } = self else { unreachable!("format 8 maps only") };
        let m: &[u8] = map;
        let at = MAP8_HEAD + runs * MAP8_RUN + g * MAP8_GROUP;
        let mut e = MAP8_HEAD + runs * MAP8_RUN + (groups + 1) * MAP8_GROUP + le_u32(m, at + 12) as usize;
        let (mut offset, mut first) = (le_u64(m, at), le_u32(m, at + 8));
        let mut b = g * group;
        let last = (b + group).min(*blocks) - 1;
        loop {
            let (head, l0) = (m[e], m[e + 1]);
            let docs = (head & !FRAME_BIT) as u32;
            // Most lengths take one or two bytes.
            let len = if l0 < 0x80 {
                e += 2;
                l0 as u64
            } else if m[e + 2] < 0x80 {
                e += 3;
                (l0 & 0x7F) as u64 | (m[e - 1] as u64) << 7
            } else {
                e += 1;
                crate::postings::varint_at(m, &mut e) as u64
            };
            if b == last || stop(b, first, docs) {
                let r = MAP8_HEAD + run_of(m, *runs, b) * MAP8_RUN;
                return Loc { b, offset, end: offset + len, first, docs, ctx_base: le_u16(m, r + 4), dict: le_u16(m, r + 6), bare: head & FRAME_BIT == 0 };
            }
            offset += len;
            first = first.wrapping_add(docs);
            b += 1;
        }
    }
}

enum Layout {
    /// Formats 1-3: `store.idx`, blocks of `V3_BLOCK_DOCS` documents.
    V3 { idx: Bytes, blocks: usize },
    /// Formats 4-8: `store.map` and `store.dict` (each dictionary with its bytes, which a
    /// merge copies).
    Mapped { map: BlockMap, dicts: Vec<(Ddict, Vec<u8>)> },
}

pub struct StoreReader {
    /// Shared with the thread that maps it in (`map_in_background`).
    dat: Arc<Bytes>,
    layout: Layout,
    /// Names this store in the block cache (unique in the process).
    id: u64,
    /// Blocks of this store decompressed so far.
    loads: AtomicU64,
}

/// A thread's decompression context, and the buffer a bare zstd block is decoded into
/// (its size is not stored: at most `zstd_block::BLOCK_MAX`).
struct Decoder {
    dctx: Dctx,
    scratch: Vec<u8>,
}

thread_local! {
    static DECODER: std::cell::RefCell<Option<Decoder>> = const { std::cell::RefCell::new(None) };
}

/// The content of a store block's bytes: a bare zstd block or a zstd frame, compressed
/// with `dict`.
fn decompress(stored: &[u8], bare: bool, dict: Option<&Ddict>) -> Result<Vec<u8>> {
    let corrupt = |e: &str| EngineError::Corrupt(format!("store block: {}", e));
    DECODER.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            *d = Some(Decoder { dctx: Dctx::new().ok_or_else(|| EngineError::Internal("zstd could not create a context".into()))?, scratch: vec![0; zstd_block::BLOCK_MAX] });
        }
        let Some(d) = d.as_mut() else { unreachable!("set above") };
        d.dctx.decode(stored, bare, dict, &mut d.scratch).map_err(corrupt)
    })
}

static NEXT_STORE: AtomicU64 = AtomicU64::new(1);
/// Blocks decompressed since the process started (tests and the benchmark read it).
static DECOMPRESSED: AtomicU64 = AtomicU64::new(0);

pub fn blocks_decompressed() -> u64 {
    DECOMPRESSED.load(Ordering::Relaxed)
}

/// Stores queued for or being mapped in by the background thread.
static MAPPING: AtomicUsize = AtomicUsize::new(0);

/// Maps the resident pages of a newly opened `store.dat` in, on one background thread for
/// the process (`Bytes::map_resident`), so that a large page's first reads of scattered
/// blocks do not each take a page fault: 2-11 ms of thread CPU of a cold page of 10,000 at
/// 10M (`cold_page` with `LEAKWELL_COLD_MODE=touch`). `LEAKWELL_STORE_PREMAP=0` turns it off.
fn map_in_background(dat: &Arc<Bytes>) {
    static QUEUE: OnceLock<Option<std::sync::mpsc::Sender<Arc<Bytes>>>> = OnceLock::new();
    let queue = QUEUE.get_or_init(|| {
        if std::env::var("LEAKWELL_STORE_PREMAP").map(|v| v.trim() == "0").unwrap_or(false) {
            return None;
        }
        let (tx, rx) = std::sync::mpsc::channel::<Arc<Bytes>>();
        let worker = std::thread::Builder::new().name("leakwell-premap".into()).spawn(move || {
            for dat in rx {
                dat.map_resident();
                MAPPING.fetch_sub(1, Ordering::Relaxed);
            }
        });
        worker.ok().map(|_| tx)
    });
    if let Some(tx) = queue {
        MAPPING.fetch_add(1, Ordering::Relaxed);
        if tx.send(Arc::clone(dat)).is_err() {
            MAPPING.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// Stores not yet mapped in (measurements wait for 0).
pub fn stores_mapping() -> usize {
    MAPPING.load(Ordering::Relaxed)
}

fn get_u32(b: &[u8], p: usize) -> Result<u32> {
    b.get(p..p + 4).map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]])).ok_or_else(|| EngineError::Corrupt("store record truncated".into()))
}

impl StoreReader {
    pub fn open(dir: &Path) -> Result<StoreReader> {
        let dat = Arc::new(Bytes::open(&dir.join("store.dat"))?);
        map_in_background(&dat);
        let id = NEXT_STORE.fetch_add(1, Ordering::Relaxed);
        let corrupt = |what: &str| EngineError::Corrupt(format!("{}: {}", dir.display(), what));
        let map_path = dir.join("store.map");
        if !map_path.exists() {
            let idx = Bytes::open(&dir.join("store.idx"))?;
            if idx.len() < 8 || idx.len() % 8 != 0 {
                return Err(corrupt("store.idx has a bad length"));
            }
            let blocks = idx.len() / 8 - 1;
            if idx.u64_at(blocks) as usize != dat.len() {
                return Err(corrupt("store.idx does not match store.dat"));
            }
            return Ok(StoreReader { dat, layout: Layout::V3 { idx, blocks }, id, loads: AtomicU64::new(0) });
        }
        let raw = std::fs::read(dir.join("store.dict"))?;
        let n = get_u32(&raw, 0).map_err(|_| corrupt("store.dict truncated"))? as usize;
        let mut at = 4 + 4 * n;
        let mut dicts = Vec::with_capacity(n);
        for i in 0..n {
            let len = get_u32(&raw, 4 + 4 * i).map_err(|_| corrupt("store.dict truncated"))? as usize;
            let d = raw.get(at..at + len).ok_or_else(|| corrupt("store.dict truncated"))?.to_vec();
            at += len;
            dicts.push((Ddict::new(&d).ok_or_else(|| corrupt("zstd could not load a dictionary"))?, d));
        }
        let map = BlockMap::open(Bytes::open(&map_path)?, dat.len(), n).map_err(corrupt)?;
        Ok(StoreReader { dat, layout: Layout::Mapped { map, dicts }, id, loads: AtomicU64::new(0) })
    }

    /// Blocks of this store decompressed since it was opened.
    pub fn loads(&self) -> u64 {
        self.loads.load(Ordering::Relaxed)
    }

    pub fn blocks(&self) -> usize {
        match &self.layout {
            Layout::V3 { blocks, .. } => *blocks,
            Layout::Mapped { map, .. } => map.blocks(),
        }
    }

    /// Dictionaries of the store (format 4; none before).
    pub fn dictionaries(&self) -> usize {
        match &self.layout {
            Layout::V3 { .. } => 0,
            Layout::Mapped { dicts, .. } => dicts.len(),
        }
    }

    /// The block holding document `doc`.
    pub fn block_of(&self, doc: u32) -> usize {
        match &self.layout {
            Layout::V3 { .. } => (doc / V3_BLOCK_DOCS) as usize,
            Layout::Mapped { map, .. } if map.blocks() > 0 => map.locate(doc).b,
            Layout::Mapped { .. } => 0,
        }
    }

    /// The bytes of block `b` in store.dat, and whether they are a bare zstd block (else a
    /// zstd frame): measurements.
    #[cfg(test)]
    pub(crate) fn stored(&self, b: usize) -> (&[u8], bool) {
        match &self.layout {
            Layout::V3 { idx, .. } => (&self.dat[idx.u64_at(b) as usize..idx.u64_at(b + 1) as usize], false),
            Layout::Mapped { map, .. } => {
                let l = map.get(b);
                (&self.dat[l.offset as usize..l.end as usize], l.bare)
            }
        }
    }

    /// Block `b`, from the cache or decompressed (then cached).
    pub fn block(&self, b: usize) -> Result<Arc<Block>> {
        self.cached(b, || self.load(b))
    }

    /// The block holding document `doc`, from the cache or decompressed (then cached): one
    /// walk of the block map where `block(block_of(doc))` takes two.
    pub fn block_holding(&self, doc: u32) -> Result<Arc<Block>> {
        match &self.layout {
            Layout::Mapped { map, dicts } if map.blocks() > 0 => {
                let l = map.locate(doc);
                self.cached(l.b, || self.decode(&l, dicts))
            }
            _ => self.block(self.block_of(doc)),
        }
    }

    fn cached(&self, b: usize, load: impl FnOnce() -> Result<Block>) -> Result<Arc<Block>> {
        let c = cache();
        let key = (self.id, b as u32);
        if let Some(x) = c.get(key) {
            return Ok(x);
        }
        let block = Arc::new(load()?);
        c.put(key, &block);
        Ok(block)
    }

    /// Block `b`, decompressed (not cached).
    pub fn load(&self, b: usize) -> Result<Block> {
        if b >= self.blocks() {
            return Err(EngineError::Corrupt("store block out of range".into()));
        }
        match &self.layout {
            Layout::V3 { idx, .. } => {
                self.count_load();
                let frame = &self.dat[idx.u64_at(b) as usize..idx.u64_at(b + 1) as usize];
                Block::v3(decompress(frame, false, None)?, b as u32 * V3_BLOCK_DOCS)
            }
            Layout::Mapped { map, dicts } => self.decode(&map.get(b), dicts),
        }
    }

    fn decode(&self, l: &Loc, dicts: &[(Ddict, Vec<u8>)]) -> Result<Block> {
        self.count_load();
        let dict = if l.dict == NO_DICT { None } else { Some(&dicts[l.dict as usize].0) };
        Block::v4(decompress(&self.dat[l.offset as usize..l.end as usize], l.bare, dict)?, l.first, l.docs, l.ctx_base)
    }

    fn count_load(&self) {
        DECOMPRESSED.fetch_add(1, Ordering::Relaxed);
        self.loads.fetch_add(1, Ordering::Relaxed);
    }
}

/// A decompressed block: documents `first..first + len()` of the part.
pub struct Block {
    data: Vec<u8>,
    first: u32,
    ctx_base: u16,
    /// Format 4: where the ends and the lines start. Formats 1-3: (context, start, end)
    /// of each record, found once when the block is loaded.
    layout: BlockLayout,
}

enum BlockLayout {
    V3(Vec<(u16, u32, u32)>),
    V4 { n: u32, ends: usize, lines: usize },
    /// Format 7: the contexts at 2 (one, or one a record), each record's end in the lines
    /// (decoded from the varints when the block is loaded), where the lines start.
    V7 { one: bool, ends: Vec<u32>, lines: usize },
}

impl Block {
    fn v3(data: Vec<u8>, first: u32) -> Result<Block> {
        let mut recs = Vec::with_capacity(V3_BLOCK_DOCS as usize);
        let mut p = 0usize;
        while p < data.len() {
            if p + 6 > data.len() {
                return Err(EngineError::Corrupt("store block truncated".into()));
            }
            let ctx = u16::from_le_bytes([data[p], data[p + 1]]);
            let n = get_u32(&data, p + 2)? as usize;
            p += 6;
            if p + n > data.len() {
                return Err(EngineError::Corrupt("store value truncated".into()));
            }
            recs.push((ctx, p as u32, (p + n) as u32));
            p += n;
        }
        Ok(Block { data, first, ctx_base: 0, layout: BlockLayout::V3(recs) })
    }

    fn v4(data: Vec<u8>, first: u32, docs: u32, ctx_base: u16) -> Result<Block> {
        let bad = || EngineError::Corrupt("store block has a bad header".into());
        let head = u16::from_le_bytes([*data.first().ok_or_else(bad)?, *data.get(1).ok_or_else(bad)?]);
        if head & V7_BLOCK != 0 {
            let n = (head & !(V7_BLOCK | ONE_CTX)) as usize;
            let one = head & ONE_CTX != 0;
            let mut p = 2 + 2 * if one { 1 } else { n };
            let mut ends = Vec::with_capacity(n);
            let mut end = 0u32;
            for _ in 0..n {
                let first = *data.get(p).ok_or_else(bad)?;
                p += 1;
                // Lines under 128 bytes (most) take one byte.
                let l = if first < 0x80 {
                    first as u32
                } else {
                    let (mut l, mut shift) = ((first & 0x7f) as u32, 7);
                    loop {
                        let b = *data.get(p).ok_or_else(bad)?;
                        p += 1;
                        l |= ((b & 0x7f) as u32).checked_shl(shift).ok_or_else(bad)?;
                        shift += 7;
                        if b < 0x80 {
                            break l;
                        }
                    }
                };
                end = end.checked_add(l).ok_or_else(bad)?;
                ends.push(end);
            }
            if n as u32 != docs || n == 0 || p + end as usize != data.len() {
                return Err(bad());
            }
            return Ok(Block { data, first, ctx_base, layout: BlockLayout::V7 { one, ends, lines: p } });
        }
        let n = head as u32;
        let ends = 2 + 2 * n as usize;
        let lines = ends + 4 * n as usize;
        if n != docs || lines > data.len() || (n > 0 && lines + get_u32(&data, lines - 4)? as usize != data.len()) {
            return Err(bad());
        }
        Ok(Block { data, first, ctx_base, layout: BlockLayout::V4 { n, ends, lines } })
    }

    pub fn first_doc(&self) -> u32 {
        self.first
    }

    pub fn len(&self) -> u32 {
        match &self.layout {
            BlockLayout::V3(r) => r.len() as u32,
            BlockLayout::V4 { n, .. } => *n,
            BlockLayout::V7 { ends, .. } => ends.len() as u32,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether document `doc` of the part is in this block.
    #[inline]
    pub fn holds(&self, doc: u32) -> bool {
        doc >= self.first && doc - self.first < self.len()
    }

    /// Document `doc` of the part: its context index (in the segment's `contexts`) and line.
    #[inline]
    pub fn record(&self, doc: u32) -> Result<(u16, &[u8])> {
        if !self.holds(doc) {
            return Err(EngineError::Corrupt("document not in its store block".into()));
        }
        self.record_at((doc - self.first) as usize)
    }

    /// The k-th record of the block.
    pub fn record_at(&self, k: usize) -> Result<(u16, &[u8])> {
        let d = &self.data;
        match &self.layout {
            BlockLayout::V3(r) => {
                let (ctx, s, e) = *r.get(k).ok_or_else(|| EngineError::Corrupt("store block has too few records".into()))?;
                Ok((ctx, &d[s as usize..e as usize]))
            }
            BlockLayout::V4 { n, ends, lines } => {
                if k >= *n as usize {
                    return Err(EngineError::Corrupt("store block has too few records".into()));
                }
                let ctx = u16::from_le_bytes([d[2 + 2 * k], d[3 + 2 * k]]);
                let start = if k == 0 { 0 } else { get_u32(d, ends + 4 * (k - 1))? as usize };
                let end = get_u32(d, ends + 4 * k)? as usize;
                let line = d.get(lines + start..lines + end).ok_or_else(|| EngineError::Corrupt("store value truncated".into()))?;
                Ok((ctx.wrapping_add(self.ctx_base), line))
            }
            BlockLayout::V7 { one, ends, lines } => {
                let end = *ends.get(k).ok_or_else(|| EngineError::Corrupt("store block has too few records".into()))? as usize;
                let c = if *one { 2 } else { 2 + 2 * k };
                let ctx = u16::from_le_bytes([d[c], d[c + 1]]);
                let start = if k == 0 { 0 } else { ends[k - 1] as usize };
                Ok((ctx.wrapping_add(self.ctx_base), &d[lines + start..lines + end]))
            }
        }
    }

    /// Memory held (what the cache counts).
    fn bytes(&self) -> usize {
        self.data.capacity()
            + match &self.layout {
                BlockLayout::V3(r) => r.capacity() * 12,
                BlockLayout::V4 { .. } => 0,
                BlockLayout::V7 { ends, .. } => ends.capacity() * 4,
            }
            + 64
    }
}

type Key = (u64, u32);

/// Recently used blocks, first in first out within a byte bound.
pub struct BlockCache {
    limit: AtomicUsize,
    inner: Mutex<CacheInner>,
}

#[derive(Default)]
struct CacheInner {
    map: HashMap<Key, Arc<Block>, std::hash::BuildHasherDefault<IntHasher>>,
    order: VecDeque<(Key, usize)>,
    bytes: usize,
}

/// The default bound of the block cache, in MiB (`LEAKWELL_STORE_CACHE_MB` overrides it).
pub const DEFAULT_CACHE_MB: usize = 64;

pub fn cache() -> &'static BlockCache {
    static CACHE: OnceLock<BlockCache> = OnceLock::new();
    CACHE.get_or_init(|| {
        let mb = std::env::var("LEAKWELL_STORE_CACHE_MB").ok().and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(DEFAULT_CACHE_MB);
        BlockCache { limit: AtomicUsize::new(mb << 20), inner: Mutex::new(CacheInner::default()) }
    })
}

impl BlockCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, CacheInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get(&self, key: Key) -> Option<Arc<Block>> {
        if self.limit.load(Ordering::Relaxed) == 0 {
            return None;
        }
        self.lock().map.get(&key).cloned()
    }

    fn put(&self, key: Key, block: &Arc<Block>) {
        let limit = self.limit.load(Ordering::Relaxed);
        let size = block.bytes();
        if size > limit / 4 {
            return;
        }
        let mut c = self.lock();
        if c.map.insert(key, Arc::clone(block)).is_some() {
            return;
        }
        c.order.push_back((key, size));
        c.bytes += size;
        while c.bytes > limit {
            let Some((k, s)) = c.order.pop_front() else { break };
            c.map.remove(&k);
            c.bytes -= s;
        }
    }

    /// Change the bound (bytes; 0 turns the cache off) and empty the cache.
    pub fn set_limit(&self, bytes: usize) {
        self.limit.store(bytes, Ordering::Relaxed);
        self.clear();
    }

    pub fn limit(&self) -> usize {
        self.limit.load(Ordering::Relaxed)
    }

    pub fn clear(&self) {
        let mut c = self.lock();
        c.map.clear();
        c.order.clear();
        c.bytes = 0;
    }

    /// Bytes held now.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        crate::test_dir(&format!("store-{}", name))
    }

    fn lines(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("user{}@mail{}.example:pass{}word{}", i, i % 17, i * 7919 % 1000, "x".repeat(i % 40))).collect()
    }

    #[test]
    fn blocks_hold_every_record_with_and_without_a_dictionary() {
        let dir = temp("roundtrip");
        let lines = lines(5000);
        for sample in [SAMPLE_BYTES, 16 << 10, 0] {
            let mut w = StoreWriter::create_with(&dir, BLOCK_BYTES, sample).unwrap();
            for (i, l) in lines.iter().enumerate() {
                w.add((i % 3) as u16, l).unwrap();
            }
            w.finish().unwrap();
            let r = StoreReader::open(&dir).unwrap();
            // A dictionary for the run (5000 lines of ~45 bytes: past MIN_SAMPLES), trained
            // on every line or on the first 16 KiB of them.
            assert_eq!(r.dictionaries(), if sample == 0 { 0 } else { 1 }, "sample {}", sample);
            assert!(r.blocks() > 100);
            for (i, l) in lines.iter().enumerate() {
                let b = r.load(r.block_of(i as u32)).unwrap();
                assert_eq!(b.record(i as u32).unwrap(), ((i % 3) as u16, l.as_bytes()));
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn copied_runs_keep_their_dictionaries_and_shift_contexts() {
        let (a, b, m) = (temp("copy-a"), temp("copy-b"), temp("copy-m"));
        let la = lines(3000);
        let lb: Vec<String> = lines(1000).iter().map(|l| format!("{{\"other\":\"{}\"}}", l)).collect();
        for (dir, ls) in [(&a, &la), (&b, &lb)] {
            let mut w = StoreWriter::create(dir).unwrap();
            for l in ls.iter() {
                w.add(1, l).unwrap();
            }
            w.finish().unwrap();
        }
        let (ra, rb) = (StoreReader::open(&a).unwrap(), StoreReader::open(&b).unwrap());
        let mut w = StoreWriter::create(&m).unwrap();
        w.copy_from(&ra, 0).unwrap();
        w.copy_from(&rb, 5).unwrap();
        w.copy_from(&ra, 9).unwrap();
        w.finish().unwrap();
        // Nothing decompressed: the blocks were copied.
        assert_eq!(ra.loads() + rb.loads(), 0);
        let dat = |d: &Path| std::fs::metadata(d.join("store.dat")).unwrap().len();
        assert_eq!(dat(&m), 2 * dat(&a) + dat(&b));
        let r = StoreReader::open(&m).unwrap();
        assert_eq!(r.dictionaries(), 3);
        let want: Vec<(u16, &String)> = la.iter().map(|l| (1, l)).chain(lb.iter().map(|l| (6, l))).chain(la.iter().map(|l| (10, l))).collect();
        for (d, (ctx, l)) in want.iter().enumerate() {
            let blk = r.load(r.block_of(d as u32)).unwrap();
            assert_eq!(blk.record(d as u32).unwrap(), (*ctx, l.as_bytes()), "doc {}", d);
        }
        for d in [&a, &b, &m] {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    /// Format 7 blocks (varint lengths, one context when all are equal) and format 4-6
    /// blocks (u32 ends) in one store, as a merge of old and new parts writes it; lines of
    /// one- to three-byte varint lengths and blocks of mixed contexts.
    #[test]
    fn format_4_and_7_blocks_read_alike() {
        let (old, new, m) = (temp("v4-old"), temp("v7-new"), temp("v47-merged"));
        let mut ls = lines(3000);
        for (i, n) in [(10usize, 0usize), (11, 127), (12, 128), (500, 16383), (501, 16384), (2000, 70_000)] {
            ls[i] = "y".repeat(n);
        }
        // Contexts: runs of one (ONE_CTX blocks) and alternating ones.
        let ctx = |i: usize| if (1000..1400).contains(&i) { (i % 3) as u16 } else { 2 };
        for (dir, v4) in [(&old, true), (&new, false)] {
            let mut w = StoreWriter::create(dir).unwrap();
            w.v4_blocks = v4;
            w.v7_map = Some(Vec::new());
            for (i, l) in ls.iter().enumerate() {
                w.add(ctx(i), l).unwrap();
            }
            w.finish().unwrap();
        }
        let size = |d: &Path| std::fs::metadata(d.join("store.dat")).unwrap().len();
        assert!(size(&new) < size(&old), "{} {}", size(&new), size(&old));
        let (ro, rn) = (StoreReader::open(&old).unwrap(), StoreReader::open(&new).unwrap());
        let mut w = StoreWriter::create(&m).unwrap();
        w.v7_map = Some(Vec::new());
        w.copy_from(&ro, 0).unwrap();
        w.copy_from(&rn, 4).unwrap();
        w.finish().unwrap();
        let r = StoreReader::open(&m).unwrap();
        let n = ls.len();
        for d in 0..2 * n {
            let blk = r.load(r.block_of(d as u32)).unwrap();
            let want = (ctx(d % n) + if d < n { 0 } else { 4 }, ls[d % n].as_bytes());
            assert_eq!(blk.record(d as u32).unwrap(), want, "doc {}", d);
        }
        // A block whose lengths run past its data, or whose count disagrees with the map.
        let mut b = OpenBlock::default();
        for l in ["ab", "cde"] {
            b.ctx.push(0);
            b.lines.extend_from_slice(l.as_bytes());
            b.ends.push(b.lines.len() as u32);
        }
        let mut raw = Vec::new();
        b.encode(&mut raw);
        assert_eq!(Block::v4(raw.clone(), 0, 2, 0).unwrap().record(1).unwrap(), (0, &b"cde"[..]));
        assert!(Block::v4(raw.clone(), 0, 3, 0).is_err());
        assert!(Block::v4(raw[..raw.len() - 1].to_vec(), 0, 2, 0).is_err());
        for d in [&old, &new, &m] {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    /// A store in `temp(name)` of `lines(n)`, context `ctx`.
    fn written(name: &str, n: usize, ctx: u16) -> PathBuf {
        let dir = temp(name);
        let mut w = StoreWriter::create(&dir).unwrap();
        for l in lines(n) {
            w.add(ctx, &l).unwrap();
        }
        w.finish().unwrap();
        dir
    }

    #[test]
    fn the_block_cache_takes_each_block_once_within_its_bound() {
        let dir = written("cache", 20_000, 0);
        let r = StoreReader::open(&dir).unwrap();
        let c = cache();
        let limit = c.limit();
        // Another test may use the cache meanwhile: the bound holds whatever they do.
        c.set_limit(256 << 10);
        for b in 0..r.blocks() {
            r.block(b).unwrap();
            assert!(c.bytes() <= 256 << 10);
        }
        assert_eq!(r.loads(), r.blocks() as u64);
        // The most recent block is still there: no second decompression.
        let last = r.blocks() - 1;
        r.block(last).unwrap();
        assert_eq!(r.loads(), r.blocks() as u64);
        // Off: every take decompresses.
        c.set_limit(0);
        r.block(last).unwrap();
        r.block(last).unwrap();
        assert_eq!(r.loads(), r.blocks() as u64 + 2);
        c.set_limit(limit);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Format 8 stores keep each frame's one compressed zstd block without the frame (10
    /// bytes a block less here) and a grouped block map; frames that are not one compressed
    /// block (a block over 128 KiB) stay whole. Old stores (16-byte map entries, frames)
    /// merged with new ones read the same, their frames cut to bare blocks as they are copied.
    #[test]
    fn format_8_bare_blocks_read_as_format_7_frames() {
        let (old, new, m, m7) = (temp("v8-old"), temp("v8-new"), temp("v8-merged"), temp("v8-merged7"));
        let mut ls = lines(6000);
        for (i, n) in [(10usize, 0usize), (300, 70_000), (301, 200_000), (4000, 150_000)] {
            ls[i] = format!("{}{}", i, "z".repeat(n));
        }
        let ctx = |i: usize| (i / 1000) as u16;
        for (dir, v7) in [(&old, true), (&new, false)] {
            let mut w = StoreWriter::create(dir).unwrap();
            w.v7_map = v7.then(Vec::new);
            for (i, l) in ls.iter().enumerate() {
                w.add(ctx(i), l).unwrap();
            }
            w.finish().unwrap();
        }
        let size = |d: &Path, f: &str| std::fs::metadata(d.join(f)).unwrap().len();
        let (ro, rn) = (StoreReader::open(&old).unwrap(), StoreReader::open(&new).unwrap());
        assert_eq!(ro.blocks(), rn.blocks());
        let bare = |r: &StoreReader| (0..r.blocks()).filter(|&b| r.stored(b).1).count();
        // Two blocks of more than 128 KiB: frames of several zstd blocks, kept whole.
        assert_eq!((bare(&ro), bare(&rn)), (0, rn.blocks() - 2));
        // Each bare block is its old frame's block, 9-12 bytes less (frame and block headers).
        for b in 0..rn.blocks() {
            let (o, n) = (ro.stored(b).0, rn.stored(b));
            assert_eq!(if n.1 { zstd_block::frame_block(o) } else { Some(o) }, Some(n.0), "block {}", b);
            assert!(!n.1 || (9..=12).contains(&(o.len() - n.0.len())));
        }
        assert!(size(&new, "store.map") * 3 < size(&old, "store.map"), "{} {}", size(&new, "store.map"), size(&old, "store.map"));
        assert_eq!(&std::fs::read(new.join("store.map")).unwrap()[..4], b"LWM8");
        let mut w = StoreWriter::create(&m).unwrap();
        w.copy_from(&ro, 0).unwrap();
        w.copy_from(&rn, 10).unwrap();
        w.copy_from(&ro, 20).unwrap();
        w.finish().unwrap();
        // A format 7 map cannot name a bare block.
        let mut w = StoreWriter::create(&m7).unwrap();
        w.v7_map = Some(Vec::new());
        assert!(w.copy_from(&rn, 0).is_err());
        // Merged as format 8, the old frames are cut too: bare but for the four large ones.
        let r = StoreReader::open(&m).unwrap();
        assert_eq!((r.blocks(), bare(&r), r.dictionaries()), (3 * rn.blocks(), 3 * rn.blocks() - 6, 3));
        assert_eq!(size(&m, "store.dat"), 3 * size(&new, "store.dat"));
        let loads = ro.loads() + rn.loads();
        for r in [&ro, &rn, &StoreReader::open(&m).unwrap()] {
            let n = ls.len() * r.blocks() / rn.blocks();
            for d in 0..n {
                let want = (ctx(d % ls.len()) + 10 * (d / ls.len()) as u16, ls[d % ls.len()].as_bytes());
                assert_eq!(r.load(r.block_of(d as u32)).unwrap().record(d as u32).unwrap(), want, "doc {}", d);
                assert_eq!(r.block_holding(d as u32).unwrap().record(d as u32).unwrap(), want, "doc {}", d);
            }
            // Past the last document: its last block, which does not hold it.
            assert_eq!(r.block_of(n as u32 + 5), r.blocks() - 1);
            assert!(r.block_holding(n as u32).unwrap().record(n as u32).is_err());
        }
        // Nothing was decompressed to merge.
        assert_eq!(loads, 0);
        for d in [&old, &new, &m, &m7] {
            let _ = std::fs::remove_dir_all(d);
        }
    }

    /// A block, bare or a whole frame (format 7), decodes the same in its dictionary's
    /// window (the dictionary as the start of the buffer) and, while other threads hold
    /// every window, in the thread's scratch buffer (the dictionary apart).
    #[test]
    fn blocks_decode_alike_in_the_window_and_beside_it() {
        let (v8, v7) = (written("v8-window", 8000, 3), temp("v7-window"));
        let mut w = StoreWriter::create(&v7).unwrap();
        w.v7_map = Some(Vec::new());
        for l in lines(8000) {
            w.add(3, &l).unwrap();
        }
        w.finish().unwrap();
        for dir in [&v8, &v7] {
            let r = StoreReader::open(dir).unwrap();
            let Layout::Mapped { dicts, .. } = &r.layout else { panic!("a format 4-8 store") };
            assert_eq!(dicts.len(), 1);
            for b in 0..r.blocks() {
                let in_window = r.load(b).unwrap();
                let (beside, held) = {
                    let held = dicts[0].0.hold_windows();
                    (r.load(b).unwrap(), held.len())
                };
                assert!(!in_window.data.is_empty());
                assert_eq!(in_window.data, beside.data, "block {}", b);
                // Every window was made to be held; then one was free again.
                assert_eq!((held, dicts[0].0.windows()), (4, 4));
            }
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    /// A format 8 map that disagrees with itself or with store.dat is refused when opened.
    #[test]
    fn format_8_maps_are_checked_when_opened() {
        let dir = written("v8-corrupt", 5000, 1);
        let map = std::fs::read(dir.join("store.map")).unwrap();
        let r = StoreReader::open(&dir).unwrap();
        assert!(r.blocks() > 2 * GROUP_BLOCKS);
        let groups = MAP8_HEAD + MAP8_RUN;
        let entries = groups + (r.blocks().div_ceil(GROUP_BLOCKS) + 1) * MAP8_GROUP;
        drop(r);
        let broken: Vec<(&str, Vec<u8>)> = vec![
            ("truncated", map[..map.len() - 1].to_vec()),
            ("a group's offset", { let mut m = map.clone(); m[groups + MAP8_GROUP] ^= 1; m }),
            ("a group's first document", { let mut m = map.clone(); m[groups + MAP8_GROUP + 8] ^= 1; m }),
            ("a record count", { let mut m = map.clone(); m[entries] += 1; m }),
            ("a length", { let mut m = map.clone(); m[entries + 1] ^= 1; m }),
            ("the block count", { let mut m = map.clone(); m[4] += 1; m }),
            ("the group size", { let mut m = map.clone(); m[12] += 1; m }),
            ("a dictionary", { let mut m = map.clone(); m[MAP8_HEAD + 6] = 3; m }),
        ];
        for (what, bytes) in broken {
            std::fs::write(dir.join("store.map"), &bytes).unwrap();
            assert!(matches!(StoreReader::open(&dir), Err(EngineError::Corrupt(_))), "{}", what);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Store choices on real lines: `LEAKWELL_STORE_SAMPLE=file1,file2 cargo test --release
    /// store_choices -- --ignored --nocapture` prints, per block size with and without a
    /// dictionary, bytes per record, write time per record, and the time to decompress the
    /// block of a random document (uncached).
    #[test]
    #[ignore]
    fn store_choices() {
        let files = std::env::var("LEAKWELL_STORE_SAMPLE").expect("LEAKWELL_STORE_SAMPLE");
        for file in files.split(',') {
            let text = std::fs::read_to_string(file).unwrap();
            let lines: Vec<&str> = text.lines().take(500_000).collect();
            println!("{}: {} lines, {:.1} bytes/line", file, lines.len(), lines.iter().map(|l| l.len()).sum::<usize>() as f64 / lines.len() as f64);
            let dir = temp("choices");
            for (bb, sample) in [(4096usize, 0usize), (1024, 0), (256, SAMPLE_BYTES), (512, SAMPLE_BYTES), (1024, SAMPLE_BYTES), (2048, SAMPLE_BYTES), (4096, SAMPLE_BYTES), (1024, 128 << 10), (1024, 256 << 10), (512, 256 << 10)] {
                let t = std::time::Instant::now();
                let mut w = StoreWriter::create_with(&dir, bb, sample).unwrap();
                for l in &lines {
                    w.add(0, l).unwrap();
                }
                let bytes = w.finish().unwrap();
                let write_ns = t.elapsed().as_nanos() as f64 / lines.len() as f64;
                let r = StoreReader::open(&dir).unwrap();
                let mut x = 12345u64;
                let n = 20_000;
                let t = std::time::Instant::now();
                for _ in 0..n {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let d = ((x >> 33) % lines.len() as u64) as u32;
                    let b = r.load(r.block_of(d)).unwrap();
                    assert_eq!(b.record(d).unwrap().1, lines[d as usize].as_bytes());
                }
                let fetch_ns = t.elapsed().as_nanos() as f64 / n as f64;
                println!("  block {:>5} B, dictionary sample {:>4} KiB: {:>6.1} bytes/record, {} blocks, write {:>5.0} ns/record, random fetch {:>6.0} ns", bb, sample >> 10, bytes as f64 / lines.len() as f64, r.blocks(), write_ns, fetch_ns);
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    /// Thread CPU nanoseconds to decompress one of `n` random blocks of `r` (uncached; the
    /// frames faulted in first so that only the decompression is timed): the measurement
    /// tests' "random block load".
    fn random_block_load_ns(r: &StoreReader, n: usize) -> f64 {
        let cpu = crate::cpu_clock::thread;
        let mut x = 12345u64;
        let picks: Vec<usize> = (0..n)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                ((x >> 33) % r.blocks() as u64) as usize
            })
            .collect();
        for &b in &picks {
            std::hint::black_box(r.stored(b).0[0]);
        }
        let c = cpu();
        for &b in &picks {
            std::hint::black_box(r.load(b).unwrap());
        }
        (cpu() - c).as_nanos() as f64 / n as f64
    }

    /// zstd levels on real lines: `LEAKWELL_STORE_SAMPLE=file1,file2 [LEAKWELL_LEVELS=3,9]
    /// [LEAKWELL_BLOCK=512] cargo test --release level_choices -- --ignored --nocapture`
    /// prints, per level (1 KiB blocks or LEAKWELL_BLOCK, dictionary),
    /// bytes per record, write CPU per record and the CPU to decompress a random block.
    #[test]
    #[ignore]
    fn level_choices() {
        let cpu = crate::cpu_clock::thread;
        let files = std::env::var("LEAKWELL_STORE_SAMPLE").expect("LEAKWELL_STORE_SAMPLE");
        let block: usize = std::env::var("LEAKWELL_BLOCK").ok().and_then(|v| v.parse().ok()).unwrap_or(BLOCK_BYTES);
        let levels: Vec<i32> = std::env::var("LEAKWELL_LEVELS").unwrap_or_else(|_| "3,6,9,12,19".into()).split(',').map(|l| l.parse().unwrap()).collect();
        for file in files.split(',') {
            let text = std::fs::read_to_string(file).unwrap();
            let lines: Vec<&str> = text.lines().take(200_000).collect();
            println!("{}: {} lines, {:.1} bytes/line", file, lines.len(), lines.iter().map(|l| l.len()).sum::<usize>() as f64 / lines.len() as f64);
            let dir = temp("levels");
            for &level in &levels {
                let t = cpu();
                let mut w = StoreWriter::create_level(&dir, block, SAMPLE_BYTES, level).unwrap();
                for l in &lines {
                    w.add(0, l).unwrap();
                }
                let bytes = w.finish().unwrap();
                let write_ns = (cpu() - t).as_nanos() as f64 / lines.len() as f64;
                let r = StoreReader::open(&dir).unwrap();
                let fetch_ns = random_block_load_ns(&r, 20_000);
                println!("  level {:>2}: {:>6.2} bytes/record, write {:>5.0} ns/record, random block load {:>5.0} ns (thread CPU)", level, bytes as f64 / lines.len() as f64, write_ns, fetch_ns);
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    /// Compression parameters on real lines: `LEAKWELL_STORE_SAMPLE=a.csv,b.txt
    /// LEAKWELL_PARAMS=3,3/btopt/2/3/16 cargo test --release param_choices -- --ignored
    /// --nocapture`: each choice `level[/strategy/searchLog/minMatch/targetLength]` (the
    /// dictionary loaded into the context so that the parameters apply to it; a bare level
    /// is the writer of the engine) prints bytes per record, write CPU per record and the CPU
    /// to decompress a random block (uncached, its frame already in memory).
    #[test]
    #[ignore]
    fn param_choices() {
        use zstd_safe::Strategy::*;
        let cpu = crate::cpu_clock::thread;
        let files = std::env::var("LEAKWELL_STORE_SAMPLE").expect("LEAKWELL_STORE_SAMPLE");
        let choices: Vec<String> = std::env::var("LEAKWELL_PARAMS").expect("LEAKWELL_PARAMS").split(',').map(String::from).collect();
        let lines_max: usize = std::env::var("LEAKWELL_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(200_000);
        let mut totals = vec![(0u64, 0f64, 0f64); choices.len()];
        for file in files.split(',') {
            let text = std::fs::read_to_string(file).unwrap();
            let lines: Vec<&str> = text.lines().take(lines_max).collect();
            println!("{}: {} lines, {:.1} bytes/line", file, lines.len(), lines.iter().map(|l| l.len()).sum::<usize>() as f64 / lines.len() as f64);
            let keep = std::env::var("LEAKWELL_KEEP").ok();
            let mut dir = temp("params");
            for (ci, choice) in choices.iter().enumerate() {
                if let Some(k) = &keep {
                    dir = PathBuf::from(format!("{}/{}-{}", k, choice.replace('/', "_"), file.rsplit('/').next().unwrap()));
                    std::fs::create_dir_all(&dir).unwrap();
                }
                let f: Vec<&str> = choice.split('/').collect();
                // `level@dictionary KiB@sample KiB`: another dictionary.
                let g: Vec<usize> = f[0].split('@').map(|x| x.parse().unwrap()).collect();
                let level = g[0] as i32;
                let mut params = Vec::new();
                if f.len() > 1 {
                    let strategy = match f[1] {
                        "fast" => ZSTD_fast,
                        "dfast" => ZSTD_dfast,
                        "greedy" => ZSTD_greedy,
                        "lazy" => ZSTD_lazy,
                        "lazy2" => ZSTD_lazy2,
                        "btlazy2" => ZSTD_btlazy2,
                        "btopt" => ZSTD_btopt,
                        "btultra" => ZSTD_btultra,
                        "btultra2" => ZSTD_btultra2,
                        s => panic!("strategy {}", s),
                    };
                    params.push(CParameter::Strategy(strategy));
                    params.push(CParameter::SearchLog(f[2].parse().unwrap()));
                    params.push(CParameter::MinMatch(f[3].parse().unwrap()));
                    params.push(CParameter::TargetLength(f[4].parse().unwrap()));
                }
                let c = cpu();
                let mut w = if g.len() == 3 { StoreWriter::create_tuned(&dir, BLOCK_BYTES, g[2] << 10, level, g[1] << 10).unwrap() } else if params.is_empty() { StoreWriter::create_level(&dir, BLOCK_BYTES, SAMPLE_BYTES, level).unwrap() } else { StoreWriter::create_params(&dir, level, &params).unwrap() };
                // `LEAKWELL_HEADER=v4`: the blocks of formats 4-6.
                w.v4_blocks = std::env::var("LEAKWELL_HEADER").map(|h| h == "v4").unwrap_or(false);
                for l in &lines {
                    w.add(0, l).unwrap();
                }
                let bytes = w.finish().unwrap();
                let write_ns = (cpu() - c).as_nanos() as f64 / lines.len() as f64;
                let r = StoreReader::open(&dir).unwrap();
                let fetch_ns = random_block_load_ns(&r, 20_000);
                for d in (0..lines.len() as u32).step_by(997) {
                    assert_eq!(r.load(r.block_of(d)).unwrap().record(d).unwrap().1, lines[d as usize].as_bytes());
                }
                totals[ci].0 += bytes;
                totals[ci].1 += write_ns * lines.len() as f64 / 1e6;
                totals[ci].2 += fetch_ns;
                println!("  {:<24} {:>6.2} bytes/record, write {:>5.0} ns/record, random block load {:>5.0} ns (thread CPU)", choice, bytes as f64 / lines.len() as f64, write_ns, fetch_ns);
            }
            if keep.is_none() {
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
        for (ci, choice) in choices.iter().enumerate() {
            println!("total {:<24} {:>12} bytes, write {:>7.0} ms, block loads {:>6.0} ns summed over files", choice, totals[ci].0, totals[ci].1, totals[ci].2);
        }
    }

    /// Decoding every block of the stores in `LEAKWELL_DECODE` (directories, comma
    /// separated; `param_choices` keeps its stores under `LEAKWELL_KEEP`), for instruction
    /// counts: `valgrind --tool=callgrind --toggle-collect='*store*decompress*' <test
    /// binary> decode_stores --ignored`.
    #[test]
    #[ignore]
    fn decode_stores() {
        let dirs = std::env::var("LEAKWELL_DECODE").expect("LEAKWELL_DECODE");
        for d in dirs.split(',') {
            let r = StoreReader::open(Path::new(d)).unwrap();
            let mut bytes = 0usize;
            for b in 0..r.blocks() {
                bytes += std::hint::black_box(r.load(b).unwrap()).len() as usize;
            }
            println!("{}: {} blocks, {} records", d, r.blocks(), bytes);
        }
    }

    /// Block size, dictionary sample and dictionary size on real lines:
    /// `LEAKWELL_STORE_SAMPLE=file1,file2 LEAKWELL_TUNINGS=1024:256:16,512:1024:64 cargo
    /// test --release tuning_choices -- --ignored --nocapture` (block bytes : sample KiB :
    /// dictionary KiB) prints bytes per record, write CPU per record and the CPU to
    /// decompress a random block (uncached, its frame already in memory).
    #[test]
    #[ignore]
    fn tuning_choices() {
        let cpu = crate::cpu_clock::thread;
        let files = std::env::var("LEAKWELL_STORE_SAMPLE").expect("LEAKWELL_STORE_SAMPLE");
        let tunings: Vec<Vec<usize>> = std::env::var("LEAKWELL_TUNINGS").expect("LEAKWELL_TUNINGS").split(',').map(|t| t.split(':').map(|x| x.parse().unwrap()).collect()).collect();
        let n: usize = std::env::var("LEAKWELL_LOADS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
        let lines_max: usize = std::env::var("LEAKWELL_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(300_000);
        for file in files.split(',') {
            let text = std::fs::read_to_string(file).unwrap();
            let lines: Vec<&str> = text.lines().take(lines_max).collect();
            println!("{}: {} lines, {:.1} bytes/line", file, lines.len(), lines.iter().map(|l| l.len()).sum::<usize>() as f64 / lines.len() as f64);
            let dir = temp("tunings");
            for t in &tunings {
                let c = cpu();
                let mut w = StoreWriter::create_tuned(&dir, t[0], t[1] << 10, ZSTD_LEVEL, t[2] << 10).unwrap();
                for l in &lines {
                    w.add(0, l).unwrap();
                }
                let bytes = w.finish().unwrap();
                let write_ns = (cpu() - c).as_nanos() as f64 / lines.len() as f64;
                let r = StoreReader::open(&dir).unwrap();
                let fetch_ns = random_block_load_ns(&r, n);
                println!("  block {:>4} B, sample {:>4} KiB, dictionary {:>3} KiB: {:>6.2} bytes/record, write {:>5.0} ns/record, random block load {:>5.0} ns (thread CPU)", t[0], t[1], t[2], bytes as f64 / lines.len() as f64, write_ns, fetch_ns);
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }

    /// The dictionary's fastCover segment size: `LEAKWELL_STORE_SAMPLE=a.csv,b.txt cargo test
    /// --release train_k_choices -- --ignored --nocapture` writes each file's first 500,000
    /// lines (one run, one dictionary) with the five-way search (`k` 0) and with fixed sizes,
    /// and prints the store bytes, the writer's CPU and the size the search picks.
    #[test]
    #[ignore]
    fn train_k_choices() {
        let cpu = crate::cpu_clock::thread;
        let files = std::env::var("LEAKWELL_STORE_SAMPLE").expect("LEAKWELL_STORE_SAMPLE");
        let (mut total, mut total_cpu) = (std::collections::BTreeMap::new(), std::collections::BTreeMap::new());
        for file in files.split(',') {
            let text = std::fs::read_to_string(file).unwrap();
            let lines: Vec<&str> = text.lines().skip(1).take(500_000).collect();
            let mut sample = Vec::new();
            let mut sizes = Vec::new();
            for l in &lines {
                if sample.len() >= SAMPLE_BYTES {
                    break;
                }
                sample.extend_from_slice(l.as_bytes());
                sizes.push(l.len());
            }
            let mut params = FastCoverParams { d: 8, steps: 4, compression_level: 3, ..Default::default() };
            let mut dict = vec![0u8; DICT_BYTES];
            unsafe { ZDICT_optimizeTrainFromBuffer_fastCover(dict.as_mut_ptr().cast(), dict.len(), sample.as_ptr().cast(), sizes.as_ptr(), sizes.len() as u32, &mut params) };
            let mut row = format!("{}: {} lines, search picks k {}:", file.rsplit('/').next().unwrap_or(file), lines.len(), params.k);
            let dir = temp("train-k");
            for k in [0u32, 50, 537, 1024, 1511, 1998] {
                let c = cpu();
                let mut w = StoreWriter::create(&dir).unwrap();
                w.train_k = k;
                for l in &lines {
                    w.add(0, l).unwrap();
                }
                let bytes = w.finish().unwrap();
                let ms = (cpu() - c).as_secs_f64() * 1000.0;
                *total.entry(k).or_insert(0u64) += bytes;
                *total_cpu.entry(k).or_insert(0f64) += ms;
                row += &format!(" k {} {} B {:.0} ms;", k, bytes, ms);
            }
            println!("{}", row);
            let _ = std::fs::remove_dir_all(&dir);
        }
        for (k, b) in &total {
            println!("k {:>4}: {} bytes, {:.0} ms writer CPU", k, b, total_cpu[k]);
        }
    }

    /// Cold block loads of one part: `LEAKWELL_PART=dir LEAKWELL_LOADS=20000 cargo test
    /// --release load_profile -- --ignored --nocapture` decompresses that many random
    /// blocks (uncached) and prints the time per block and the kinds of the frames'
    /// entropy tables (new Huffman and FSE tables are built on every load).
    #[test]
    #[ignore]
    fn load_profile() {
        let dir = PathBuf::from(std::env::var("LEAKWELL_PART").expect("LEAKWELL_PART"));
        let n: usize = std::env::var("LEAKWELL_LOADS").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
        let r = StoreReader::open(&dir).unwrap();
        let mut x = 7u64;
        let mut picks = Vec::with_capacity(n);
        for _ in 0..n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            picks.push(((x >> 33) % r.blocks() as u64) as usize);
        }
        // Fault the frames in first: the decompression alone is timed.
        let mut sum = 0u64;
        for &b in &picks {
            sum += r.stored(b).0.iter().map(|&c| c as u64).sum::<u64>();
        }
        std::hint::black_box(sum);
        let t = std::time::Instant::now();
        let mut bytes = 0usize;
        for &b in &picks {
            bytes += std::hint::black_box(r.load(b).unwrap()).data.len();
        }
        let el = t.elapsed();
        // Entropy modes of the frames (RFC 8878): literals type, sequence table modes.
        let mut lit = [0usize; 4];
        let mut seq = [[0usize; 4]; 3];
        let mut frame_bytes = 0usize;
        for &b in &picks {
            let (stored, bare) = r.stored(b);
            frame_bytes += stored.len();
            let Some(f) = (if bare { Some(stored) } else { zstd_block::frame_block(stored) }) else { continue };
            let mut p = 0;
            let b0 = f[p];
            let t = (b0 & 3) as usize;
            lit[t] += 1;
            let sf = (b0 >> 2) & 3;
            let c = |k: usize| f[p + k] as u32;
            let len = if t < 2 {
                let (h, rs) = match sf { 0 | 2 => (1, c(0) >> 3), 1 => (2, (c(0) >> 4) + (c(1) << 4)), _ => (3, (c(0) >> 4) + (c(1) << 4) + (c(2) << 12)) };
                h + if t == 0 { rs as usize } else { 1 }
            } else {
                match sf {
                    0 | 1 => 3 + (((c(0) | c(1) << 8 | c(2) << 16) >> 14) & 0x3FF) as usize,
                    2 => 4 + ((c(0) | c(1) << 8 | c(2) << 16 | c(3) << 24) >> 18) as usize,
                    _ => 5 + (((c(0) | c(1) << 8 | c(2) << 16 | c(3) << 24) >> 22) | c(4) << 10) as usize,
                }
            };
            p += len;
            let ns = f[p];
            p += if ns == 0 { continue } else if ns < 128 { 1 } else if ns < 255 { 2 } else { 3 };
            let m = f[p];
            seq[0][(m >> 6) as usize] += 1;
            seq[1][((m >> 4) & 3) as usize] += 1;
            seq[2][((m >> 2) & 3) as usize] += 1;
        }
        println!("{} loads of {} blocks: {:?} a block, {:.0} bytes decompressed, {:.0} compressed", n, r.blocks(), el / n as u32, bytes as f64 / n as f64, frame_bytes as f64 / n as f64);
        println!("literals raw/rle/huffman/repeat {:?}; sequences predefined/rle/fse/repeat: ll {:?} of {:?} ml {:?}", lit, seq[0], seq[1], seq[2]);
    }

    /// Format 3 against format 4 on an index's stores: `LEAKWELL_INDEX=dir cargo test
    /// --release store_formats -- --ignored --nocapture` prints, over every part, the bytes
    /// of the format-4 store as written and of the same records in format-3 blocks (32
    /// records, no dictionary, level 3, 8 bytes of index a block); the time a merge's store
    /// work takes both ways (copying the blocks; decompressing and compressing them again
    /// as format-3 merges did); and the time to decompress the block of a random document
    /// both ways (uncached).
    #[test]
    #[ignore]
    fn store_formats() {
        let index = PathBuf::from(std::env::var("LEAKWELL_INDEX").expect("LEAKWELL_INDEX"));
        let mut parts = Vec::new();
        for seg in std::fs::read_dir(&index).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with("seg-")) {
            for part in std::fs::read_dir(seg.path()).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with("part-")) {
                parts.push(part.path());
            }
        }
        parts.sort();
        let readers: Vec<StoreReader> = parts.iter().map(|p| StoreReader::open(p).unwrap()).collect();
        let size = |p: &Path, f: &str| std::fs::metadata(p.join(f)).map(|m| m.len()).unwrap_or(0);
        let v4: u64 = parts.iter().map(|p| size(p, "store.dat") + size(p, "store.map") + size(p, "store.dict")).sum();
        let docs: u64 = readers.iter().map(|r| match &r.layout { Layout::Mapped { map, .. } => map.end().1 as u64, _ => panic!("format 4 expected") }).sum();
        // Copy: what a format-4 merge does with the stores.
        let out = temp("formats");
        let t = std::time::Instant::now();
        let mut w = StoreWriter::create(&out).unwrap();
        for r in &readers {
            w.copy_from(r, 0).unwrap();
        }
        w.finish().unwrap();
        let copy = t.elapsed();
        // Recompress into format-3 blocks: what a format-3 merge did.
        let t = std::time::Instant::now();
        let mut zc = zstd::bulk::Compressor::new(ZSTD_LEVEL).unwrap();
        let mut v3 = 0u64;
        let mut v3_blocks: Vec<Vec<u8>> = Vec::new();
        let mut block = Vec::new();
        let mut n = 0;
        for (ri, r) in readers.iter().enumerate() {
            for b in 0..r.blocks() {
                let blk = r.load(b).unwrap();
                for k in 0..blk.len() as usize {
                    let (ctx, line) = blk.record_at(k).unwrap();
                    block.extend_from_slice(&ctx.to_le_bytes());
                    block.extend_from_slice(&(line.len() as u32).to_le_bytes());
                    block.extend_from_slice(line);
                    n += 1;
                    if n == V3_BLOCK_DOCS {
                        let c = zc.compress(&block).unwrap();
                        v3 += c.len() as u64 + 8;
                        if ri == 0 {
                            v3_blocks.push(c);
                        }
                        block.clear();
                        n = 0;
                    }
                }
            }
        }
        let recompress = t.elapsed();
        println!("{} parts, {} records: store format 4 {} bytes ({:.1} bytes/record), format 3 {} bytes ({:.1} bytes/record)", parts.len(), docs, v4, v4 as f64 / docs as f64, v3, v3 as f64 / docs as f64);
        println!("merge store work: copy {:?}, recompress as format 3 {:?}", copy, recompress);
        // Random documents of the first part, block decompressed uncached, both ways.
        let r = &readers[0];
        let mut x = 99u64;
        let reps = 20_000;
        let mut dctx = zstd::bulk::Decompressor::new().unwrap();
        let t = std::time::Instant::now();
        for _ in 0..reps {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let c = &v3_blocks[((x >> 33) % v3_blocks.len() as u64) as usize];
            std::hint::black_box(dctx.decompress(c, 1 << 20).unwrap());
        }
        let t3 = t.elapsed() / reps;
        let t = std::time::Instant::now();
        for _ in 0..reps {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            std::hint::black_box(r.load(((x >> 33) % r.blocks() as u64) as usize).unwrap());
        }
        let t4 = t.elapsed() / reps;
        println!("block of a random document, decompressed: format 3 {:?}, format 4 {:?}", t3, t4);
        let _ = std::fs::remove_dir_all(&out);
    }
}
