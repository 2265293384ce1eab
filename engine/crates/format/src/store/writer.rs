//! Writing a part's record store: blocks, their dictionaries and the block map.

use super::*;

/// The fastCover segment size of every dictionary. Letting `ZDICT_trainFromBuffer` try
/// several sizes on three quarters of the samples (keeping the one compressing the last
/// quarter best) trains several dictionaries for one; one pass with 537, one of its frequent
/// picks, on all the samples costs less CPU and compresses the bench's shapes no worse
/// (`train_k_choices` compares them).
pub(super) const TRAIN_K: u32 = 537;

/// `ZDICT_fastCover_params_t` of zdict.h (zstd 1.5).
#[repr(C)]
#[derive(Default, Clone, Copy)]
pub(super) struct FastCoverParams {
    pub(super) k: u32,
    pub(super) d: u32,
    pub(super) f: u32,
    pub(super) steps: u32,
    pub(super) threads: u32,
    pub(super) split_point: f64,
    pub(super) accel: u32,
    pub(super) shrink_dict: u32,
    pub(super) shrink_dict_max_regression: u32,
    pub(super) compression_level: i32,
    pub(super) notification_level: u32,
    pub(super) dict_id: u32,
}

extern "C" {
    // libzstd's dictionary builder (zdict.h), linked through zstd-sys; the crate's own
    // wrapper sits behind its `zdict_builder` feature, which the build does not enable.
    pub(super) fn ZDICT_trainFromBuffer_fastCover(dict: *mut std::ffi::c_void, dict_cap: usize, samples: *const std::ffi::c_void, sizes: *const usize, n: u32, params: FastCoverParams) -> usize;
    pub(super) fn ZDICT_optimizeTrainFromBuffer_fastCover(dict: *mut std::ffi::c_void, dict_cap: usize, samples: *const std::ffi::c_void, sizes: *const usize, n: u32, params: *mut FastCoverParams) -> usize;
    pub(super) fn ZDICT_isError(code: usize) -> u32;
}

/// A dictionary trained on `samples` (concatenated, `sizes` each), or None when zstd
/// cannot train one (too few or too uniform samples). `k`: the fastCover segment size;
/// 0 tries five as `ZDICT_trainFromBuffer` does (the measurements).
pub(super) fn train_dict(samples: &[u8], sizes: &[usize], dict_bytes: usize, k: u32, level: i32) -> Option<Vec<u8>> {
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

pub(super) fn zstd_err(code: usize) -> EngineError {
    EngineError::Io(format!("zstd: {}", zstd_safe::get_error_name(code)))
}

/// The open block of a writer.
#[derive(Default)]
pub(super) struct OpenBlock {
    pub(super) ctx: Vec<u16>,
    pub(super) ends: Vec<u32>,
    pub(super) lines: Vec<u8>,
}

impl OpenBlock {
    /// A format 7 block: u16 `n | V7_BLOCK` (`| ONE_CTX` when every record has the same
    /// context), that context or the `n` contexts (u16 each), each record's length as a
    /// LEB128 varint, then the lines.
    pub(super) fn encode(&self, out: &mut Vec<u8>) {
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
    pub(super) fn encode_v4(&self, out: &mut Vec<u8>) {
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
    pub(super) dat: std::io::BufWriter<std::fs::File>,
    pub(super) map: MapWriter,
    pub(super) dicts: Vec<Vec<u8>>,
    pub(super) pos: u64,
    pub(super) docs: u32,
    pub(super) dir: PathBuf,
    /// One compression context for every block (creating one per block was a large
    /// share of the ingest's time).
    pub(super) cctx: CCtx<'static>,
    /// The dictionary of the current run (index in `dicts`), once trained.
    pub(super) cdict: Option<(u16, CDict<'static>)>,
    /// Before a run's dictionary: its first lines, kept as training samples.
    pub(super) training: bool,
    pub(super) sample: OpenBlock,
    pub(super) block: OpenBlock,
    pub(super) raw: Vec<u8>,
    pub(super) out: Vec<u8>,
    pub(super) block_bytes: usize,
    /// Lines sampled to train a run's dictionary; 0 for no dictionary.
    pub(super) sample_bytes: usize,
    pub(super) level: i32,
    pub(super) dict_bytes: usize,
    /// The dictionaries' fastCover segment size (`TRAIN_K`; 0 tries five).
    pub(super) train_k: u32,
    /// Compression parameters set on the context beside the level: the run's dictionary
    /// is then loaded into the context (`load_dictionary`, once a run) so that they apply
    /// to it too (a referenced `CDict` brings the parameters of its level). `param_choices`.
    pub(super) local: Option<u16>,
    pub(super) tuned: bool,
    /// Write format 4 blocks (tests of old stores).
    #[cfg(test)]
    pub(super) v4_blocks: bool,
    /// Write the block map of formats 4-7 (16 bytes a block) and whole frames: tests of
    /// old stores, measurements of the frames' bytes.
    #[cfg(test)]
    pub(super) v7_map: Option<Vec<u8>>,
}

/// The format 8 block map being written: the runs of blocks sharing a context base and a
/// dictionary, each group's start, each block's entry.
#[derive(Default)]
pub(super) struct MapWriter {
    pub(super) blocks: u32,
    pub(super) runs: Vec<u8>,
    pub(super) last_run: Option<(u16, u16)>,
    pub(super) groups: Vec<u8>,
    pub(super) entries: Vec<u8>,
}

impl MapWriter {
    /// The next block (`l.b` is not read).
    pub(super) fn push(&mut self, l: &Loc) -> Result<()> {
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

    pub(super) fn group(&mut self, offset: u64, first: u32) {
        self.groups.extend_from_slice(&offset.to_le_bytes());
        self.groups.extend_from_slice(&first.to_le_bytes());
        self.groups.extend_from_slice(&(self.entries.len() as u32).to_le_bytes());
    }

    /// The map's bytes, its last group entry the end of store.dat and the document count.
    pub(super) fn finish(mut self, end: u64, docs: u32) -> Vec<u8> {
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

    /// A writer with another block size, or without dictionaries (the measurements that
    /// compare block sizes and dictionaries).
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

    pub(super) fn push(&mut self, ctx: u16, line: &[u8]) -> Result<()> {
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
    pub(super) fn train(&mut self) -> Result<()> {
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
    pub fn seal(&mut self) -> Result<()> {
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

    pub(super) fn flush_block(&mut self) -> Result<()> {
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
    pub(super) fn put_stored(&mut self, stored: &[u8], bare: bool, docs: u32, ctx_base: u16, dict: u16) -> Result<()> {
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
    /// are copied (with their dictionaries), not decompressed: frames of one compressed zstd
    /// block (formats 4-7) as that block, other frames and bare blocks as they are.
    pub fn copy_from(&mut self, src: &StoreReader, ctx_base: u16) -> Result<()> {
        self.seal()?;
        let (map, dicts) = (&src.map, &src.dicts);
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
