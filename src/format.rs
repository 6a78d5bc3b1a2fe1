//! leveldb's bloom filter format (`util/bloom.cc`, leveldb 1.23, policy
//! `leveldb.BuiltinBloomFilter2`): a bit array followed by one byte holding k, the number of
//! probes. It depends on nothing; every layer above reads a filter's framing here.

/// The name leveldb records in a table's metaindex for filters of this format.
pub const POLICY_NAME: &str = "leveldb.BuiltinBloomFilter2";

/// Probe counts above this are reserved by leveldb for future encodings.
pub(crate) const MAX_PROBES: u8 = 30;

/// Every filter has at least this many bits: tiny key sets would otherwise see a very high
/// false-positive rate.
pub(crate) const MIN_BITS: u64 = 64;

/// What a filter's framing decides before any probe, as leveldb's `KeyMayMatch`: `Err(answer)`
/// for every key, or `Ok` with the bit array and k.
#[inline(always)]
pub(crate) fn parse(filter: &[u8]) -> Result<(&[u8], u8), bool> {
    // Under 2 bytes there is no bit array.
    let Some(array_len @ 1..) = filter.len().checked_sub(1) else {
        return Err(false);
    };
    let (array, k) = (&filter[..array_len], filter[array_len]);
    if k > MAX_PROBES {
        // Reserved for potentially new encodings of short filters: consider it a match.
        return Err(true);
    }
    Ok((array, k))
}
