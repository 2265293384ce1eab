//! zstd decoding for the record store, frames and bare blocks. Since format 8 a store block
//! is kept as the one compressed zstd block of its frame, without the frame around it
//! (magic, frame header, block header: 10 bytes a store block); it is decoded with zstd's
//! block-level API (`ZSTD_decompressBegin_usingDDict`, `ZSTD_decompressBlock`), which
//! libzstd exports from zstd.h's static-linking-only section but zstd-safe 6 does not wrap
//! (nor does it give its contexts' pointers), hence the contexts of this module. The writer
//! still compresses frames (zstd-safe) and cuts their block out (`frame_block`): decoding
//! a frame's first block needs nothing but the dictionary, which the frame does not name.

use std::ffi::c_void;
use std::ptr::NonNull;
use zstd::zstd_safe::zstd_sys as sys;

extern "C" {
    fn ZSTD_createDDict_byReference(dict: *const c_void, dict_size: usize) -> *mut sys::ZSTD_DDict;
    fn ZSTD_decompressBegin(dctx: *mut sys::ZSTD_DCtx) -> usize;
    fn ZSTD_decompressBegin_usingDDict(dctx: *mut sys::ZSTD_DCtx, ddict: *const sys::ZSTD_DDict) -> usize;
    fn ZSTD_decompressBlock(dctx: *mut sys::ZSTD_DCtx, dst: *mut c_void, dst_capacity: usize, src: *const c_void, src_size: usize) -> usize;
}

/// The most a zstd block decompresses to (`ZSTD_BLOCKSIZE_MAX`).
pub const BLOCK_MAX: usize = 128 << 10;

const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
/// Block type of a block header (RFC 8878, 3.1.1.2): Huffman/FSE-compressed.
const COMPRESSED: u32 = 2;

/// A size, or zstd's name of the error.
fn check(code: usize) -> Result<usize, &'static str> {
    // Safety: pure functions of the code; ZSTD_getErrorName returns a static C string.
    unsafe {
        if sys::ZSTD_isError(code) == 0 {
            return Ok(code);
        }
        Err(std::ffi::CStr::from_ptr(sys::ZSTD_getErrorName(code)).to_str().unwrap_or("zstd error"))
    }
}

/// Windows a dictionary may have: one per thread that writes a page at once (the caller and
/// at most 3 helpers, `engine.rs`).
const WINDOWS: usize = 4;

/// A decompression dictionary, decoded in windows: the dictionary's bytes followed in
/// memory by room for one block. A block decoded there comes right after the dictionary,
/// so zstd takes the dictionary for the start of the same buffer and copies a match from
/// it inline, as within the block, instead of calling memmove for each. The first window
/// is made with the dictionary, the others when threads decode with it at once.
pub struct Ddict {
    windows: [std::sync::OnceLock<Option<Window>>; WINDOWS],
}

/// The dictionary then `BLOCK_MAX` bytes, allocated once, and a DDict (its entropy tables)
/// by reference over the dictionary's bytes.
struct Window {
    ddict: NonNull<sys::ZSTD_DDict>,
    mem: NonNull<u8>,
    len: usize,
    /// Held while a block is decoded into the room.
    busy: std::sync::Mutex<()>,
}

// Safety: a DDict and the dictionary's bytes are only read once created; a window's block
// room is written under its `busy` only.
unsafe impl Send for Window {}
unsafe impl Sync for Window {}

impl Window {
    fn new(dict: &[u8]) -> Option<Window> {
        let mut mem = vec![0u8; dict.len() + BLOCK_MAX].into_boxed_slice();
        mem[..dict.len()].copy_from_slice(dict);
        let mem = NonNull::new(Box::into_raw(mem).cast::<u8>())?;
        // Safety: the allocation holds the dictionary's bytes and outlives the DDict (Drop).
        let ddict = NonNull::new(unsafe { ZSTD_createDDict_byReference(mem.as_ptr().cast(), dict.len()) });
        let w = Window { ddict: ddict.unwrap_or(NonNull::dangling()), mem, len: dict.len(), busy: std::sync::Mutex::new(()) };
        // Without a DDict, Drop frees the allocation alone.
        ddict.map(|_| w)
    }

    /// The dictionary's bytes.
    fn dict(&self) -> &[u8] {
        // Safety: the first len bytes of the allocation, never written after `new`.
        unsafe { std::slice::from_raw_parts(self.mem.as_ptr(), self.len) }
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        // Safety: the DDict (if made) is freed once, before the allocation it points into.
        unsafe {
            if self.ddict != NonNull::dangling() {
                sys::ZSTD_freeDDict(self.ddict.as_ptr());
            }
            drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.mem.as_ptr(), self.len + BLOCK_MAX)));
        }
    }
}

impl Ddict {
    pub fn new(dict: &[u8]) -> Option<Ddict> {
        let d = Ddict { windows: Default::default() };
        d.windows[0].set(Some(Window::new(dict)?)).ok()?;
        Some(d)
    }

    fn first(&self) -> &Window {
        self.windows[0].get().and_then(|w| w.as_ref()).expect("made with the dictionary")
    }

    /// A free window, locked, made if need be; None when all are taken.
    fn window(&self) -> Option<(&Window, std::sync::MutexGuard<'_, ()>)> {
        for (i, cell) in self.windows.iter().enumerate() {
            let w = if i == 0 { Some(self.first()) } else { cell.get_or_init(|| Window::new(self.first().dict())).as_ref() };
            if let Some(g) = w.and_then(|w| w.busy.try_lock().ok()) {
                return w.map(|w| (w, g));
            }
        }
        None
    }
}

#[cfg(test)]
impl Ddict {
    /// Hold every window, as other threads decoding with them would (tests).
    pub fn hold_windows(&self) -> Vec<std::sync::MutexGuard<'_, ()>> {
        std::iter::from_fn(|| self.window().map(|(_, g)| g)).collect()
    }

    /// Windows made so far.
    pub fn windows(&self) -> usize {
        self.windows.iter().filter(|w| w.get().is_some()).count()
    }
}

/// A decompression context (one per thread: `store/`).
pub struct Dctx(NonNull<sys::ZSTD_DCtx>);

// Safety: a DCtx is used by one thread at a time (&mut self).
unsafe impl Send for Dctx {}

impl Dctx {
    pub fn new() -> Option<Dctx> {
        // Safety: no arguments.
        NonNull::new(unsafe { sys::ZSTD_createDCtx() }).map(Dctx)
    }

    /// The content of `src`, compressed with `dict`: a bare zstd block (`bare`: a frame's
    /// first block) or a whole frame giving its content size. Decoded in the dictionary's
    /// window, or in `scratch` (`BLOCK_MAX` bytes) when another thread is using the window
    /// or there is none; a frame of more than `BLOCK_MAX` bytes straight into its vector.
    pub fn decode(&mut self, src: &[u8], bare: bool, dict: Option<&Ddict>, scratch: &mut [u8]) -> Result<Vec<u8>, &'static str> {
        assert!(scratch.len() >= BLOCK_MAX);
        let (d, s, len) = (self.0.as_ptr(), src.as_ptr().cast(), src.len());
        let whole = if bare { None } else { Some(frame_content_size(src).ok_or("a frame without its content size")?) };
        if let Some(n) = whole.filter(|&n| n > BLOCK_MAX) {
            let mut out = Vec::with_capacity(n);
            // Safety: out is valid for n bytes, src for len; the contexts are live.
            let k = check(unsafe { Self::frame_into(d, out.as_mut_ptr(), n, s, len, dict.map(|w| w.first())) })?;
            // Safety: zstd wrote k <= n bytes.
            unsafe { out.set_len(k) };
            return Ok(out);
        }
        let window = dict.and_then(|w| w.window());
        // Without a free window, the first one's DDict, the block decoded beside it.
        let ddict = window.as_ref().map(|(w, _)| *w).or_else(|| dict.map(|w| w.first()));
        // Safety: the contexts are live; the block room of a window is BLOCK_MAX bytes,
        // written by this thread only (its lock held); scratch is valid for its length.
        unsafe {
            let dst = match &window {
                Some((w, _)) => w.mem.as_ptr().add(w.len),
                None => scratch.as_mut_ptr(),
            };
            let k = if bare {
                check(match ddict {
                    Some(w) => ZSTD_decompressBegin_usingDDict(d, w.ddict.as_ptr()),
                    None => ZSTD_decompressBegin(d),
                })?;
                check(ZSTD_decompressBlock(d, dst.cast(), BLOCK_MAX, s, len))?
            } else {
                check(Self::frame_into(d, dst, BLOCK_MAX, s, len, ddict))?
            };
            Ok(std::slice::from_raw_parts(dst, k).to_vec())
        }
    }

    /// zstd's code of decoding the frame at `src` into `dst`.
    unsafe fn frame_into(d: *mut sys::ZSTD_DCtx, dst: *mut u8, cap: usize, src: *const c_void, len: usize, dict: Option<&Window>) -> usize {
        match dict {
            Some(w) => sys::ZSTD_decompress_usingDDict(d, dst.cast(), cap, src, len, w.ddict.as_ptr()),
            None => sys::ZSTD_decompressDCtx(d, dst.cast(), cap, src, len),
        }
    }
}

impl Drop for Dctx {
    fn drop(&mut self) {
        // Safety: created by ZSTD_createDCtx, freed once.
        unsafe { sys::ZSTD_freeDCtx(self.0.as_ptr()) };
    }
}

/// The content size a frame's header gives, if it gives one that fits in memory.
fn frame_content_size(frame: &[u8]) -> Option<usize> {
    // Safety: the buffer is valid for its length.
    let n = unsafe { sys::ZSTD_getFrameContentSize(frame.as_ptr().cast(), frame.len()) };
    // ZSTD_CONTENTSIZE_UNKNOWN and _ERROR are the two largest u64.
    (n <= 1 << 31).then_some(n as usize)
}

/// The block of `frame` when the frame is one compressed zstd block and nothing else (no
/// checksum): what a store of format 8 keeps of it. Raw and RLE blocks (incompressible or
/// repeated content) and frames of several blocks (content over 128 KiB) are kept whole.
pub fn frame_block(frame: &[u8]) -> Option<&[u8]> {
    if frame.len() < 5 || frame[..4] != MAGIC {
        return None;
    }
    let fhd = frame[4];
    let single = fhd & 0x20 != 0;
    if fhd & 0x0C != 0 {
        // A checksum follows the blocks, or the reserved bit is set.
        return None;
    }
    let fcs = [if single { 1 } else { 0 }, 2, 4, 8][(fhd >> 6) as usize];
    let dict_id = [0, 1, 2, 4][(fhd & 3) as usize];
    let at = 5 + usize::from(!single) + dict_id + fcs;
    let h = frame.get(at..at + 3)?;
    let head = h[0] as u32 | (h[1] as u32) << 8 | (h[2] as u32) << 16;
    let (last, kind, size) = (head & 1 == 1, (head >> 1) & 3, (head >> 3) as usize);
    (last && kind == COMPRESSED && frame.len() == at + 3 + size).then(|| &frame[at + 3..])
}
