//! A call's keys, read a chunk at a time, with the keys of large calls prefetched ahead.

use crate::kernels::{CHUNK, prefetch_line};

/// Calls with at least this many keys (by their iterator's size hint; an unknown number counts as
/// many) prefetch them ([`for_each_chunk`]): so many keys stream from memory, and the hardware
/// prefetcher alone leaves the hash waiting on their loads. Fewer keys are taken to be in cache,
/// as a table block's are, where prefetching them only costs time (see docs/PERFORMANCE.md,
/// Prefetching keys).
const PREFETCH_KEYS_MIN: usize = 1024;

/// How many chunks ahead of the hash keys are prefetched (see docs/PERFORMANCE.md, Prefetching
/// keys).
const KEYS_AHEAD: usize = 2;

/// An empty key whose address is in mapped memory, for the vector paths to load from instead of
/// an empty slice's dangling pointer: they load every lane of a group with a masked load, which
/// from an address in no mapped page takes a slow microcode assist even with every byte masked
/// off (see docs/PERFORMANCE.md, Empty keys and masked loads). They read at most 64 bytes from a
/// key's address, none of them from an empty key.
pub(crate) const NO_KEY: &[u8] = UNREAD.split_at(0).0;

/// [`NO_KEY`]'s bytes: a static, so that NO_KEY has one address.
static UNREAD: [u8; 64] = [0; 64];

/// Reads a byte at [`NO_KEY`], so that its page is mapped before masked loads from it: a load
/// with every byte masked off neither maps a page nor marks it used, and a read-only page of the
/// library that nothing else reads may be unmapped (never mapped, or reclaimed), which made
/// every such load take the assist (docs/PERFORMANCE.md, Empty keys and masked loads).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn map_no_key() {
    // SAFETY: UNREAD is a static, valid for reads.
    unsafe { std::ptr::read_volatile(UNREAD.as_ptr()) };
}

/// A call's keys, read a chunk at a time: from an iterator, or from a C caller's arrays
/// (`KeyArrays`, src/ffi/key_arrays.rs).
pub(crate) trait Keys<'k> {
    /// How many keys are left at most, if known.
    fn max_len(&self) -> Option<usize>;

    /// Writes the next keys, up to CHUNK of them, to the front of `chunk` and returns how many
    /// (fewer than CHUNK only once all are read). With `prefetch`, also starts loading each key's
    /// first cache line.
    fn read(&mut self, chunk: &mut [&'k [u8]; CHUNK], prefetch: bool) -> usize;
}

impl<'k, I: Iterator<Item = &'k [u8]>> Keys<'k> for I {
    fn max_len(&self) -> Option<usize> {
        self.size_hint().1
    }

    #[inline(always)]
    fn read(&mut self, chunk: &mut [&'k [u8]; CHUNK], prefetch: bool) -> usize {
        let mut n = 0;
        while n < CHUNK {
            let Some(key) = self.next() else { break };
            // An empty key's address may be in no mapped page, and it has nothing to load.
            if prefetch && !key.is_empty() {
                prefetch_line(key.as_ptr());
            }
            chunk[n] = key;
            n += 1;
        }
        n
    }
}

/// Hands `keys` to `f` a chunk at a time, with how many of the chunk's keys are new (the rest
/// are stale, left from an earlier chunk). Of [`PREFETCH_KEYS_MIN`] keys or more, each key's
/// first cache line is prefetched [`KEYS_AHEAD`] chunks before `f` gets it.
#[inline(always)]
pub(crate) fn for_each_chunk<'k>(
    mut keys: impl Keys<'k>,
    mut f: impl FnMut(&[&'k [u8]; CHUNK], usize),
) {
    let prefetch_keys = keys.max_len().is_none_or(|n| n >= PREFETCH_KEYS_MIN);
    let mut read = |chunk: &mut [&'k [u8]; CHUNK]| keys.read(chunk, prefetch_keys);
    // Copied from a constant: one memcpy, where a fresh array would take a store per lane.
    // Unused lanes hold NO_KEY, not a dangling pointer.
    const EMPTY: [&[u8]; CHUNK] = [NO_KEY; CHUNK];
    if !prefetch_keys {
        let mut chunk = EMPTY;
        loop {
            let n = read(&mut chunk);
            if n == 0 {
                return;
            }
            f(&chunk, n);
            if n < CHUNK {
                return;
            }
        }
    }
    // Chunk number c is read into slot c % RING, KEYS_AHEAD chunks before it is handed on. Only
    // for many keys: the ring's set-up and bookkeeping slow down a block filter's calls.
    const RING: usize = KEYS_AHEAD + 1;
    let mut ring = [EMPTY; RING];
    let mut new_keys = [0; RING];
    let (mut chunks_read, mut all_read) = (0, false);
    for c in 0.. {
        while !all_read && chunks_read <= c + KEYS_AHEAD {
            let n = read(&mut ring[chunks_read % RING]);
            new_keys[chunks_read % RING] = n;
            all_read = n < CHUNK;
            chunks_read += 1;
        }
        if c == chunks_read || new_keys[c % RING] == 0 {
            return;
        }
        f(&ring[c % RING], new_keys[c % RING]);
    }
}
