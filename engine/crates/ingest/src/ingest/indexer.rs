//! The indexing half of the pipeline, on its own thread: batches of records from the
//! reader posted into the part writer, a full part flushed on another thread while the
//! next one is indexed.

use super::*;

/// The indexing half of the pipeline (its own thread): normalises, posts, stores.
pub(super) struct Indexer {
    pub(super) tmp: PathBuf,
    pub(super) part_docs: u32,
    pub(super) writer: Option<PartWriter>,
    pub(super) parts: u32,
    pub(super) present: [bool; FIELD_COUNT],
    /// The previous part's flush (sort, write, fsync), running on its own thread while
    /// this one indexes the next part; at most one at a time.
    pub(super) flushing: Option<std::thread::JoinHandle<Result<()>>>,
    /// CPU microseconds of the flushes so far (for the summary's `timing`).
    pub(super) flush_cpu_us: Arc<AtomicU64>,
}

/// Up to `BATCH` records, flat: every normalised value and line in one byte buffer.
/// Batches go back to the reader and are reused, so the steady state allocates nothing
/// per record on either thread.
#[derive(Default)]
pub(crate) struct Batch {
    pub(super) bytes: Vec<u8>,
    /// (field, start, end) into `bytes`
    pub(super) vals: Vec<(u8, u32, u32)>,
    /// (end of its values in `vals`, dedup key, line context, line start, line end)
    pub(super) recs: Vec<(u32, u64, u16, u32, u32)>,
}

impl Batch {
    pub(super) fn len(&self) -> usize {
        self.recs.len()
    }
    pub(super) fn clear(&mut self) {
        self.bytes.clear();
        self.vals.clear();
        self.recs.clear();
    }
    pub(super) fn push(&mut self, norm: &[Vec<String>; FIELD_COUNT], key: u64, ctx: u16, line: &str) {
        for (f, vs) in norm.iter().enumerate() {
            for v in vs {
                let s = self.bytes.len() as u32;
                self.bytes.extend_from_slice(v.as_bytes());
                self.vals.push((f as u8, s, self.bytes.len() as u32));
            }
        }
        let ls = self.bytes.len() as u32;
        self.bytes.extend_from_slice(line.as_bytes());
        self.recs.push((self.vals.len() as u32, key, ctx, ls, self.bytes.len() as u32));
    }
}
pub(super) const BATCH: usize = 1024;

impl Indexer {
    pub(super) fn add_flat(&mut self, bytes: &[u8], vals: &[(u8, u32, u32)], key: u64, ctx: u16, line: &str) -> Result<()> {
        if self.writer.is_none() {
            self.writer = Some(PartWriter::create(&self.tmp.join(format!("part-{}", self.parts)))?);
        }
        let w = self.writer.as_mut().unwrap();
        w.add_flat(bytes, vals, key, ctx, line)?;
        if w.docs() >= self.part_docs {
            self.finish_part()?;
        }
        Ok(())
    }

    pub(super) fn finish_part(&mut self) -> Result<()> {
        if let Some(w) = self.writer.take() {
            for (i, p) in w.present.iter().enumerate() {
                self.present[i] |= *p;
            }
            self.wait_flush()?;
            let cpu = Arc::clone(&self.flush_cpu_us);
            self.flushing = Some(std::thread::spawn(move || -> Result<()> {
                let r = w.finish().map(|_| ());
                cpu.fetch_add(crate::cpu_clock::thread().as_micros() as u64, Ordering::Relaxed);
                r
            }));
            self.parts += 1;
        }
        Ok(())
    }

    pub(super) fn wait_flush(&mut self) -> Result<()> {
        match self.flushing.take() {
            Some(h) => h.join().unwrap_or_else(|_| Err(EngineError::Internal("a part flush panicked".into()))),
            None => Ok(()),
        }
    }
}

impl Drop for Indexer {
    // On an error path too: never leave a flush writing into a directory being removed.
    fn drop(&mut self) {
        let _ = self.wait_flush();
    }
}
