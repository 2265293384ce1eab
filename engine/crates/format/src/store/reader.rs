//! Reading a part's record store: its layout, decompression and background mapping.

use super::*;

pub struct StoreReader {
    /// Shared with the thread that maps it in (`map_in_background`).
    pub(super) dat: Arc<Bytes>,
    /// `store.map` and `store.dict` (each dictionary with its bytes, which a merge copies).
    pub(super) map: BlockMap,
    pub(super) dicts: Vec<(Ddict, Vec<u8>)>,
    /// Names this store in the block cache (unique in the process).
    pub(super) id: u64,
    /// Blocks of this store decompressed so far.
    pub(super) loads: AtomicU64,
}

/// A thread's decompression context, and the buffer a bare zstd block is decoded into
/// (its size is not stored: at most `zstd_block::BLOCK_MAX`).
pub(super) struct Decoder {
    pub(super) dctx: Dctx,
    pub(super) scratch: Vec<u8>,
}

thread_local! {
    static DECODER: std::cell::RefCell<Option<Decoder>> = const { std::cell::RefCell::new(None) };
}

/// The content of a store block's bytes: a bare zstd block or a zstd frame, compressed
/// with `dict`.
pub(super) fn decompress(stored: &[u8], bare: bool, dict: Option<&Ddict>) -> Result<Vec<u8>> {
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

pub(super) static NEXT_STORE: AtomicU64 = AtomicU64::new(1);
/// Blocks decompressed since the process started (tests and the benchmark read it).
pub(super) static DECOMPRESSED: AtomicU64 = AtomicU64::new(0);

pub fn blocks_decompressed() -> u64 {
    DECOMPRESSED.load(Ordering::Relaxed)
}

/// Stores queued for or being mapped in by the background thread.
pub(super) static MAPPING: AtomicUsize = AtomicUsize::new(0);

/// Maps the resident pages of a newly opened `store.dat` in, on one background thread for
/// the process (`Bytes::map_resident`), so that a large page's first reads of scattered
/// blocks do not each take a page fault, a large part of a cold page's thread CPU (`cold_page`
/// with `LEAKWELL_COLD_MODE=touch` measures it). `LEAKWELL_STORE_PREMAP=0` turns it off.
pub(super) fn map_in_background(dat: &Arc<Bytes>) {
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

pub(super) fn get_u32(b: &[u8], p: usize) -> Result<u32> {
    b.get(p..p + 4).map(|x| u32::from_le_bytes([x[0], x[1], x[2], x[3]])).ok_or_else(|| EngineError::Corrupt("store record truncated".into()))
}

impl StoreReader {
    pub fn open(dir: &Path) -> Result<StoreReader> {
        let dat = Arc::new(Bytes::open(&dir.join("store.dat"))?);
        map_in_background(&dat);
        let id = NEXT_STORE.fetch_add(1, Ordering::Relaxed);
        let corrupt = |what: &str| EngineError::Corrupt(format!("{}: {}", dir.display(), what));
        let map_path = dir.join("store.map");
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
        Ok(StoreReader { dat, map, dicts, id, loads: AtomicU64::new(0) })
    }

    /// Blocks of this store decompressed since it was opened.
    pub fn loads(&self) -> u64 {
        self.loads.load(Ordering::Relaxed)
    }

    pub fn blocks(&self) -> usize {
        self.map.blocks()
    }

    /// Dictionaries of the store.
    pub fn dictionaries(&self) -> usize {
        self.dicts.len()
    }

    /// The block holding document `doc`.
    pub fn block_of(&self, doc: u32) -> usize {
        if self.map.blocks() > 0 {
            self.map.locate(doc).b
        } else {
            0
        }
    }

    /// The bytes of block `b` in store.dat, and whether they are a bare zstd block (else a
    /// zstd frame): measurements.
    #[doc(hidden)]
    pub fn stored(&self, b: usize) -> (&[u8], bool) {
        let l = self.map.get(b);
        (&self.dat[l.offset as usize..l.end as usize], l.bare)
    }

    /// Block `b`, from the cache or decompressed (then cached).
    pub fn block(&self, b: usize) -> Result<Arc<Block>> {
        self.cached(b, || self.load(b))
    }

    /// The block holding document `doc`, from the cache or decompressed (then cached): one
    /// walk of the block map where `block(block_of(doc))` takes two.
    pub fn block_holding(&self, doc: u32) -> Result<Arc<Block>> {
        if self.map.blocks() == 0 {
            return self.block(0);
        }
        let l = self.map.locate(doc);
        self.cached(l.b, || self.decode(&l))
    }

    /// The blocks holding `docs`, at most `max` of them: a block is taken once for each run
    /// of `docs` it holds (once in all when `docs` ascend), and the block cache is locked once
    /// to look them all up and once to add those decompressed, not once a block (for a page
    /// of hits scattered over the store, a lock and a lookup for nearly every entry, taken
    /// by the threads writing the page in turn). Returns how many of `docs` the blocks hold,
    /// in `out` (cleared first) in the order of `docs`: the first block holds `docs[0]`, and
    /// a doc not held by the block of the one before is held by the next block.
    pub fn blocks_holding(&self, docs: &[u32], max: usize, out: &mut Vec<Arc<Block>>) -> Result<usize> {
        out.clear();
        let c = cache();
        // (block, its location in the block map); `held`: the doc range [first, end) of the last
        let mut want: Vec<(usize, Option<Loc>)> = Vec::new();
        let mut held = (0u32, 0u32);
        let mut n = 0;
        for &d in docs {
            if d.wrapping_sub(held.0) < held.1.wrapping_sub(held.0) {
                n += 1;
                continue;
            }
            if want.len() == max.max(1) {
                break;
            }
            if self.map.blocks() > 0 {
                let l = self.map.locate(d);
                held = (l.first, l.first.saturating_add(l.docs));
                want.push((l.b, Some(l)));
            } else {
                held = (0, 0);
                want.push((0, None));
            }
            n += 1;
        }
        let mut found = Vec::with_capacity(want.len());
        c.get_many(self.id, want.iter().map(|w| w.0), &mut found);
        let mut fresh = Vec::new();
        for ((b, l), hit) in want.iter().zip(found) {
            let block = match hit {
                Some(x) => x,
                None => {
                    let block = Arc::new(match l {
                        Some(l) => self.decode(l)?,
                        None => self.load(*b)?,
                    });
                    fresh.push(((self.id, *b as u32), Arc::clone(&block)));
                    block
                }
            };
            out.push(block);
        }
        c.put_many(&fresh);
        Ok(n)
    }

    pub(super) fn cached(&self, b: usize, load: impl FnOnce() -> Result<Block>) -> Result<Arc<Block>> {
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
        self.decode(&self.map.get(b))
    }

    pub(super) fn decode(&self, l: &Loc) -> Result<Block> {
        self.count_load();
        let dict = if l.dict == NO_DICT { None } else { Some(&self.dicts[l.dict as usize].0) };
        Block::v4(decompress(&self.dat[l.offset as usize..l.end as usize], l.bare, dict)?, l.first, l.docs, l.ctx_base)
    }

    pub(super) fn count_load(&self) {
        DECOMPRESSED.fetch_add(1, Ordering::Relaxed);
        self.loads.fetch_add(1, Ordering::Relaxed);
    }
}
