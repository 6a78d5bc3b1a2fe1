//! The C ABI: our own `leveldb_bloom_*` functions, exported by every build, and leveldb's C
//! filter-policy functions (same names and signatures as `leveldb/c.h`), built with the
//! `leveldb-c-api` feature (a default): the C++ shim, which sits next to leveldb's own C API, is
//! built without it.
//!
//! Conventions, stated once here and in the header: every export runs inside `ffi_boundary!` so
//! no panic crosses into C; every pointer is checked before use; an error yields NULL, or 1 ("may
//! match") from a query, because a false negative would make leveldb miss data that exists.
//!
//! Nothing below this layer imports from it.

mod checks;
mod extensions;
#[cfg(feature = "leveldb-c-api")]
mod filterblock;
#[cfg(feature = "leveldb-c-api")]
mod filterblock_builder;
#[cfg(feature = "leveldb-c-api")]
mod filterblock_reader;
#[cfg(feature = "leveldb-c-api")]
mod filterpolicy;
#[cfg(feature = "leveldb-c-api")]
mod filterpolicy_create_filter;
#[cfg(feature = "leveldb-c-api")]
mod filterpolicy_key_may_match;
pub(crate) mod key_arrays;

pub use extensions::{
    leveldb_bloom_fill_filter, leveldb_bloom_filter_length, leveldb_bloom_isa,
    leveldb_bloom_key_may_match, leveldb_bloom_policy_name, leveldb_bloom_version,
};
#[cfg(feature = "leveldb-c-api")]
pub use filterblock_builder::{
    leveldb_filterblock_builder_add_key, leveldb_filterblock_builder_create,
    leveldb_filterblock_builder_destroy, leveldb_filterblock_builder_finish,
    leveldb_filterblock_builder_start_block, leveldb_filterblock_builder_t,
};
#[cfg(feature = "leveldb-c-api")]
pub use filterblock_reader::{
    leveldb_filterblock_key_may_match, leveldb_filterblock_key_may_match_batch,
};
#[cfg(feature = "leveldb-c-api")]
pub use filterpolicy::{
    leveldb_bloom_create_filter_fn, leveldb_bloom_destructor_fn, leveldb_bloom_key_may_match_fn,
    leveldb_bloom_name_fn, leveldb_filterpolicy_create, leveldb_filterpolicy_create_bloom,
    leveldb_filterpolicy_destroy, leveldb_filterpolicy_name, leveldb_filterpolicy_t, leveldb_free,
};
#[cfg(feature = "leveldb-c-api")]
pub use filterpolicy_create_filter::leveldb_filterpolicy_create_filter;
#[cfg(feature = "leveldb-c-api")]
pub use filterpolicy_key_may_match::{
    leveldb_filterpolicy_key_may_match, leveldb_filterpolicy_key_may_match_batch,
};
pub use key_arrays::leveldb_bloom_slice_t;
