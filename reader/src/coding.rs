//! leveldb's integer encodings (util/coding.cc): varints and little-endian fixed32/64, read from
//! any bytes with their bounds checked.

/// The varint at `bytes[*at..]`, of at most `max_bytes` bytes (5 for a varint32, 10 for a
/// varint64), advancing `at` past it; None if it runs past `bytes` or is too long.
fn varint(bytes: &[u8], at: &mut usize, max_bytes: usize) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..max_bytes {
        let byte = *bytes.get(*at + i)?;
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte < 0x80 {
            *at += i + 1;
            return Some(value);
        }
    }
    None
}

/// A varint32, as leveldb's `GetVarint32` (a fifth byte's high bits are dropped, as there).
pub(crate) fn varint32(bytes: &[u8], at: &mut usize) -> Option<u32> {
    varint(bytes, at, 5).map(|v| v as u32)
}

/// A varint64, as leveldb's `GetVarint64`.
pub(crate) fn varint64(bytes: &[u8], at: &mut usize) -> Option<u64> {
    varint(bytes, at, 10)
}

/// A length-prefixed byte string (`GetLengthPrefixedSlice`).
pub(crate) fn length_prefixed<'a>(bytes: &'a [u8], at: &mut usize) -> Option<&'a [u8]> {
    let len = usize::try_from(varint32(bytes, at)?).ok()?;
    let slice = bytes.get(*at..at.checked_add(len)?)?;
    *at += len;
    Some(slice)
}

/// The fixed32 at `bytes[at..at + 4]`, if it is there.
pub(crate) fn fixed32(bytes: &[u8], at: usize) -> Option<u32> {
    let word = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes(word.try_into().ok()?))
}

/// The fixed64 at `bytes[at..at + 8]`, if it is there.
pub(crate) fn fixed64(bytes: &[u8], at: usize) -> Option<u64> {
    let word = bytes.get(at..at.checked_add(8)?)?;
    Some(u64::from_le_bytes(word.try_into().ok()?))
}
