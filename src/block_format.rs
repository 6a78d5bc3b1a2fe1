//! leveldb's filter block format (`table/filter_block.cc`, leveldb 1.23): the filters of a
//! table's data blocks, one per 2 KB of block offsets, then the fixed32 offset of each filter,
//! the fixed32 offset of that array, and one byte, the log2 of the 2 KB. It depends on nothing;
//! the builder and reader of the Rust API read the block's layout here.

/// log2 of the block offsets each filter covers: leveldb's `kFilterBaseLg`, 2 KB.
pub(crate) const FILTER_BASE_LG: u8 = 11;

/// Bytes after the offset array: the array's own offset (fixed32) and the base lg byte.
const TRAILER_LEN: usize = 5;

/// The filter a data block at `block_offset` belongs to, as a builder numbers them.
pub(crate) fn filter_index(block_offset: u64) -> u64 {
    block_offset >> FILTER_BASE_LG
}

/// Bytes [`append_trailer`] adds after `num_filters` filters, if they fit in a `usize`.
pub(crate) fn trailer_len(num_filters: usize) -> Option<usize> {
    num_filters.checked_mul(4)?.checked_add(TRAILER_LEN)
}

/// Appends the offset array of the filters starting at `offsets`, the array's offset and the
/// base lg byte to `block`, which holds the filters. As leveldb, offsets are fixed32: its
/// `uint32_t` keeps a position's low 32 bits, and so does the array's offset here.
pub(crate) fn append_trailer(block: &mut Vec<u8>, offsets: &[u32]) {
    let array_offset = block.len() as u32;
    for offset in offsets {
        block.extend_from_slice(&offset.to_le_bytes());
    }
    block.extend_from_slice(&array_offset.to_le_bytes());
    block.push(FILTER_BASE_LG);
}

/// Where a filter block's parts are, as leveldb's `FilterBlockReader` constructor reads them
/// from any bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Where the offset array starts: the end of the filters.
    array_offset: usize,
    /// How many filters the array lists; 0 for contents too short or an array offset past
    /// their end, which leaves every key a possible match.
    num_filters: usize,
    /// How far a block offset is shifted right to give its filter's index.
    shift: u32,
}

/// What a block offset's filter answers before any key is tested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// Ask the policy: filter `index`, at `start..limit` of the contents (possibly empty).
    Filter {
        index: usize,
        start: usize,
        limit: usize,
    },
    /// The answer for every key, without the policy.
    Answer(bool),
}

#[inline]
fn fixed32(bytes: &[u8], at: usize) -> u32 {
    let word: &[u8; 4] = bytes[at..at + 4].try_into().expect("four bytes");
    u32::from_le_bytes(*word)
}

impl Layout {
    /// The layout leveldb reads from `contents`.
    #[inline]
    pub(crate) fn parse(contents: &[u8]) -> Layout {
        let unreadable = Layout {
            array_offset: 0,
            num_filters: 0,
            shift: 0,
        };
        let Some(before_trailer) = contents.len().checked_sub(TRAILER_LEN) else {
            return unreadable;
        };
        // leveldb keeps the byte sign-extended in a size_t and shifts by it, which x86-64's
        // `shr` takes modulo 64 (C++ leaves a shift past 63 undefined): the low 6 bits, here too.
        let shift = u32::from(contents[contents.len() - 1] & 63);
        let array_offset = fixed32(contents, before_trailer) as usize;
        if array_offset > before_trailer {
            return Layout {
                shift,
                ..unreadable
            };
        }
        Layout {
            array_offset,
            num_filters: (before_trailer - array_offset) / 4,
            shift,
        }
    }

    /// How many filters the offset array lists.
    #[cfg(test)]
    pub(crate) fn num_filters(&self) -> usize {
        self.num_filters
    }

    /// The index of the filter that answers for the data block at `block_offset` (which may
    /// be past the array).
    #[inline]
    pub(crate) fn filter_index(&self, block_offset: u64) -> u64 {
        block_offset >> self.shift
    }

    /// leveldb's `FilterBlockReader::KeyMayMatch` up to the policy's call, for the data block at
    /// `block_offset`. `contents` must be what `self` was parsed from.
    #[inline]
    pub(crate) fn lookup(&self, contents: &[u8], block_offset: u64) -> Lookup {
        let index = self.filter_index(block_offset);
        if index >= self.num_filters as u64 {
            // Past the array, or no array at all: errors are treated as potential matches.
            return Lookup::Answer(true);
        }
        let index = index as usize;
        // The last filter's limit is the array offset itself, the word after the array.
        let at = self.array_offset + index * 4;
        let (start, limit) = (fixed32(contents, at), fixed32(contents, at + 4));
        if start <= limit && limit as usize <= self.array_offset {
            Lookup::Filter {
                index,
                start: start as usize,
                limit: limit as usize,
            }
        } else {
            // An empty range matches no key; any other bad range, every key.
            Lookup::Answer(start != limit)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(filters: &[&[u8]], base_lg: u8) -> Vec<u8> {
        let mut block = Vec::new();
        let mut offsets = Vec::new();
        for filter in filters {
            offsets.push(block.len() as u32);
            block.extend_from_slice(filter);
        }
        append_trailer(&mut block, &offsets);
        *block.last_mut().unwrap() = base_lg;
        block
    }

    #[test]
    fn trailer_is_offsets_array_offset_and_base_lg() {
        let mut out = b"abc".to_vec();
        append_trailer(&mut out, &[0, 1, 3]);
        assert_eq!(
            out,
            b"abc\x00\0\0\0\x01\0\0\0\x03\0\0\0\x03\0\0\0\x0b".as_slice()
        );
        assert_eq!(trailer_len(3), Some(17));
        assert_eq!(trailer_len(usize::MAX / 2), None);
    }

    #[test]
    fn short_or_unframed_contents_match_everything() {
        for contents in [&b""[..], b"\x0b", b"\0\0\0\x0b", b"\x01\0\0\0\x0b"] {
            let layout = Layout::parse(contents);
            assert_eq!(layout.num_filters(), 0);
            assert_eq!(layout.lookup(contents, 0), Lookup::Answer(true));
        }
    }

    #[test]
    fn lookups_follow_leveldbs_rules() {
        let contents = block(&[b"ab", b"", b"cde"], 11);
        let layout = Layout::parse(&contents);
        assert_eq!(layout.num_filters(), 3);
        let filter = |index, start, limit| Lookup::Filter {
            index,
            start,
            limit,
        };
        assert_eq!(layout.lookup(&contents, 0), filter(0, 0, 2));
        assert_eq!(layout.lookup(&contents, 2047), filter(0, 0, 2));
        assert_eq!(layout.lookup(&contents, 2048), filter(1, 2, 2));
        assert_eq!(layout.lookup(&contents, 3 * 2048 - 1), filter(2, 2, 5));
        assert_eq!(layout.lookup(&contents, 3 * 2048), Lookup::Answer(true));
        assert_eq!(layout.lookup(&contents, u64::MAX), Lookup::Answer(true));
    }

    /// `data_len` filter bytes, then the fixed32 `words` (offsets, then the array offset), then
    /// base lg 11.
    fn by_hand(data_len: usize, words: &[u32]) -> Vec<u8> {
        let mut contents = vec![0xaa; data_len];
        for word in words {
            contents.extend_from_slice(&word.to_le_bytes());
        }
        contents.push(11);
        contents
    }

    #[test]
    fn bad_ranges_answer_without_the_policy() {
        let lookup = |contents: &[u8]| Layout::parse(contents).lookup(contents, 0);
        // One entry: its limit is the array offset, 8.
        assert_eq!(
            lookup(&by_hand(8, &[2, 8])),
            Lookup::Filter {
                index: 0,
                start: 2,
                limit: 8
            }
        );
        // start > limit: a match.
        assert_eq!(lookup(&by_hand(8, &[9, 8])), Lookup::Answer(true));
        // limit past the array offset, start != limit: a match.
        assert_eq!(lookup(&by_hand(8, &[5, 9, 8])), Lookup::Answer(true));
        // limit past the array offset, start == limit: no match.
        assert_eq!(lookup(&by_hand(8, &[9, 9, 8])), Lookup::Answer(false));
    }

    #[test]
    fn the_shift_takes_the_base_lg_byte_modulo_64() {
        let filters: [&[u8]; 2] = [b"ab", b"cd"];
        for (byte, shift) in [
            (0u8, 0u32),
            (11, 11),
            (63, 63),
            (64, 0),
            (75, 11),
            (0xff, 63),
        ] {
            let contents = block(&filters, byte);
            let layout = Layout::parse(&contents);
            let second = 1u64 << shift;
            assert!(matches!(
                layout.lookup(&contents, second),
                Lookup::Filter { index: 1, .. }
            ));
            if shift > 0 {
                assert!(matches!(
                    layout.lookup(&contents, second - 1),
                    Lookup::Filter { index: 0, .. }
                ));
            }
        }
    }
}
