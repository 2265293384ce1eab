//! The record store of a segment part: the original values and raw record of every
//! document, in zstd-compressed blocks of `BLOCK_DOCS` documents.
//! `store.dat` holds the blocks, `store.idx` the u64 LE offset of each block plus the end.
//! A record inside a block: u16 LE line-context index (segment.json `contexts`), u32 LE
//! length, then the original input line (UTF-8). Fields are parsed from it on display.

use crate::bytes::Bytes;
use crate::error::{EngineError, Result};
use std::io::Write;
use std::path::Path;

pub const BLOCK_DOCS: u32 = 32;
const ZSTD_LEVEL: i32 = 3;

#[derive(Debug, Clone, Default)]
pub struct StoredRecord {
    pub ctx: u16,
    pub line: String,
}

pub struct StoreWriter {
    dat: std::io::BufWriter<std::fs::File>,
    idx: Vec<u8>,
    block: Vec<u8>,
    in_block: u32,
    pos: u64,
    dir: std::path::PathBuf,
    /// One compression context for every block (creating one per block was a large
    /// share of the ingest's time).
    zc: zstd::bulk::Compressor<'static>,
}


impl StoreWriter {
    pub fn create(dir: &Path) -> Result<StoreWriter> {
        Ok(StoreWriter {
            dat: std::io::BufWriter::new(std::fs::File::create(dir.join("store.dat"))?),
            idx: Vec::new(),
            block: Vec::new(),
            in_block: 0,
            pos: 0,
            dir: dir.to_path_buf(),
            zc: zstd::bulk::Compressor::new(ZSTD_LEVEL)?,
        })
    }

    pub fn add(&mut self, ctx: u16, line: &str) -> Result<()> {
        self.add_bytes(ctx, line.as_bytes())
    }

    /// `line` must be UTF-8 (a record copied from another store).
    pub fn add_bytes(&mut self, ctx: u16, line: &[u8]) -> Result<()> {
        self.block.extend_from_slice(&ctx.to_le_bytes());
        self.block.extend_from_slice(&(line.len() as u32).to_le_bytes());
        self.block.extend_from_slice(line);
        self.in_block += 1;
        if self.in_block == BLOCK_DOCS {
            self.flush_block()?;
        }
        Ok(())
    }

    fn flush_block(&mut self) -> Result<()> {
        if self.in_block == 0 {
            return Ok(());
        }
        let c = self.zc.compress(&self.block)?;
        self.idx.extend_from_slice(&self.pos.to_le_bytes());
        self.dat.write_all(&c)?;
        self.pos += c.len() as u64;
        self.block.clear();
        self.in_block = 0;
        Ok(())
    }

    pub fn finish(mut self) -> Result<u64> {
        self.flush_block()?;
        self.idx.extend_from_slice(&self.pos.to_le_bytes());
        self.dat.flush()?;
        std::fs::write(self.dir.join("store.idx"), &self.idx)?;
        Ok(self.pos)
    }
}

thread_local! {
    static DCTX: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> = std::cell::RefCell::new(None);
}

pub struct StoreReader {
    dat: Bytes,
    idx: Bytes,
    blocks: usize,
}

fn get_u32(b: &[u8], p: &mut usize) -> Result<u32> {
    if *p + 4 > b.len() {
        return Err(EngineError::Corrupt("store record truncated".into()));
    }
    let v = u32::from_le_bytes([b[*p], b[*p + 1], b[*p + 2], b[*p + 3]]);
    *p += 4;
    Ok(v)
}

fn get_str(b: &[u8], p: &mut usize) -> Result<String> {
    let n = get_u32(b, p)? as usize;
    if *p + n > b.len() {
        return Err(EngineError::Corrupt("store value truncated".into()));
    }
    let s = String::from_utf8_lossy(&b[*p..*p + n]).into_owned();
    *p += n;
    Ok(s)
}

impl StoreReader {
    pub fn open(dir: &Path) -> Result<StoreReader> {
        let dat = Bytes::open(&dir.join("store.dat"))?;
        let idx = Bytes::open(&dir.join("store.idx"))?;
        if idx.len() < 8 || idx.len() % 8 != 0 {
            return Err(EngineError::Corrupt("store.idx has a bad length".into()));
        }
        let blocks = idx.len() / 8 - 1;
        if idx.u64_at(blocks) as usize != dat.len() {
            return Err(EngineError::Corrupt("store.idx does not match store.dat".into()));
        }
        Ok(StoreReader { dat, idx, blocks })
    }

    pub fn block(&self, b: usize) -> Result<Vec<u8>> {
        if b >= self.blocks {
            return Err(EngineError::Corrupt("store block out of range".into()));
        }
        let s = self.idx.u64_at(b) as usize;
        let e = self.idx.u64_at(b + 1) as usize;
        let frame = &self.dat[s..e];
        // Frames carry their content size; one decompression context per thread.
        match zstd::zstd_safe::get_frame_content_size(frame) {
            Ok(Some(n)) if n <= 1 << 31 => DCTX.with(|d| {
                let mut d = d.borrow_mut();
                if d.is_none() {
                    *d = Some(zstd::bulk::Decompressor::new()?);
                }
                Ok(d.as_mut().unwrap().decompress(frame, n as usize)?)
            }),
            _ => {
                let mut dec = zstd::stream::Decoder::new(frame)?;
                let mut out = Vec::new();
                std::io::Read::read_to_end(&mut dec, &mut out)?;
                Ok(out)
            }
        }
    }

    pub fn blocks(&self) -> usize {
        self.blocks
    }

    /// Call `f(ctx, line bytes)` for every record of a decompressed block, in order.
    pub fn for_each_record(block: &[u8], mut f: impl FnMut(u16, &[u8]) -> Result<()>) -> Result<()> {
        let mut p = 0usize;
        while p < block.len() {
            if p + 6 > block.len() {
                return Err(EngineError::Corrupt("store block truncated".into()));
            }
            let ctx = u16::from_le_bytes([block[p], block[p + 1]]);
            p += 2;
            let n = get_u32(block, &mut p)? as usize;
            if p + n > block.len() {
                return Err(EngineError::Corrupt("store value truncated".into()));
            }
            f(ctx, &block[p..p + n])?;
            p += n;
        }
        Ok(())
    }

    /// Every record of a decompressed block, in order.
    pub fn records_of_block(block: &[u8]) -> Result<Vec<StoredRecord>> {
        let mut out = Vec::with_capacity(BLOCK_DOCS as usize);
        let mut p = 0usize;
        while p < block.len() {
            if p + 2 > block.len() {
                return Err(EngineError::Corrupt("store block truncated".into()));
            }
            let ctx = u16::from_le_bytes([block[p], block[p + 1]]);
            p += 2;
            out.push(StoredRecord { ctx, line: get_str(block, &mut p)? });
        }
        Ok(out)
    }

    /// Record `k` (0-based) of a decompressed block.
    pub fn record_in_block(block: &[u8], k: u32) -> Result<StoredRecord> {
        let mut p = 0usize;
        for i in 0..=k {
            if p + 2 > block.len() {
                return Err(EngineError::Corrupt("store block has too few records".into()));
            }
            let ctx = u16::from_le_bytes([block[p], block[p + 1]]);
            p += 2;
            if i == k {
                return Ok(StoredRecord { ctx, line: get_str(block, &mut p)? });
            }
            let n = get_u32(block, &mut p)? as usize;
            p += n;
        }
        unreachable!()
    }
}
