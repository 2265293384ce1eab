//! The process-wide cache of decompressed blocks, bounded in bytes.

use super::*;

pub(super) type Key = (u64, u32);

/// Recently used blocks, first in first out within a byte bound.
pub struct BlockCache {
    pub(super) limit: AtomicUsize,
    pub(super) inner: Mutex<CacheInner>,
}

#[derive(Default)]
pub(super) struct CacheInner {
    pub(super) map: HashMap<Key, Arc<Block>, std::hash::BuildHasherDefault<IntHasher>>,
    pub(super) order: VecDeque<(Key, usize)>,
    pub(super) bytes: usize,
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
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, CacheInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn get(&self, key: Key) -> Option<Arc<Block>> {
        if self.limit.load(Ordering::Relaxed) == 0 {
            return None;
        }
        self.lock().map.get(&key).cloned()
    }

    /// The cached block of each of `blocks` of store `store` (None: not cached), under one
    /// lock.
    pub(super) fn get_many(&self, store: u64, blocks: impl Iterator<Item = usize>, out: &mut Vec<Option<Arc<Block>>>) {
        if self.limit.load(Ordering::Relaxed) == 0 {
            out.extend(blocks.map(|_| None));
            return;
        }
        let c = self.lock();
        out.extend(blocks.map(|b| c.map.get(&(store, b as u32)).cloned()));
    }

    /// `put` of each block, under one lock.
    pub(super) fn put_many(&self, blocks: &[(Key, Arc<Block>)]) {
        if blocks.is_empty() || self.limit.load(Ordering::Relaxed) == 0 {
            return;
        }
        let mut c = self.lock();
        for (key, block) in blocks {
            self.put_locked(&mut c, *key, block);
        }
    }

    pub(super) fn put(&self, key: Key, block: &Arc<Block>) {
        if self.limit.load(Ordering::Relaxed) == 0 {
            return;
        }
        let mut c = self.lock();
        self.put_locked(&mut c, key, block);
    }

    fn put_locked(&self, c: &mut CacheInner, key: Key, block: &Arc<Block>) {
        let limit = self.limit.load(Ordering::Relaxed);
        let size = block.bytes();
        if size > limit / 4 {
            return;
        }
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
