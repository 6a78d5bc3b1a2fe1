//! splitmix64 test data: the same bytes from a seed on every platform, as tools/splitmix64.h
//! gives the C++ tools.

/// `n` byte strings of `min..=max` bytes each, from `seed`.
pub fn random_strings(n: usize, min: usize, max: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e3779b97f4a7c15);
        let z = (state ^ (state >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    };
    (0..n)
        .map(|_| {
            let len = min + (next() % (max - min + 1) as u64) as usize;
            (0..len).map(|_| next() as u8).collect()
        })
        .collect()
}
