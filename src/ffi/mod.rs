//! The C ABI. Every build exports this library's own names, `leveldb_bloom_*`: policy objects,
//! building, single and batch queries, custom policies, filter blocks, and the calls without a
//! policy object. The `leveldb-c-api` feature (a default) adds leveldb's C API names for the same
//! functions (leveldb_names.rs), which a program that links leveldb's own C API must do without.
//!
//! Conventions, stated once here and in the header: every export runs inside `ffi_boundary!` so
//! no panic crosses into C; every pointer is checked before use, and a policy this library did
//! not make is told apart before anything else of it is read; an error yields NULL, or 1 ("may
//! match") from a query, because a false negative would make leveldb miss data that exists.
//!
//! Nothing below this layer imports from it.

mod checks;
mod extensions;
mod filterblock;
mod filterblock_builder;
mod filterblock_reader;
mod filterpolicy;
mod filterpolicy_create_filter;
mod filterpolicy_key_may_match;
#[cfg(feature = "leveldb-c-api")]
mod in_leveldb;
pub(crate) mod key_arrays;
#[cfg(feature = "leveldb-c-api")]
mod leveldb_names;

pub use extensions::{
    leveldb_bloom_fill_filter, leveldb_bloom_filter_length, leveldb_bloom_isa,
    leveldb_bloom_key_may_match, leveldb_bloom_policy_name, leveldb_bloom_version,
};
pub use filterblock_builder::{
    leveldb_bloom_filterblock_builder_add_key, leveldb_bloom_filterblock_builder_create,
    leveldb_bloom_filterblock_builder_destroy, leveldb_bloom_filterblock_builder_finish,
    leveldb_bloom_filterblock_builder_start_block, leveldb_bloom_filterblock_builder_t,
};
pub use filterblock_reader::{
    leveldb_bloom_filterblock_key_may_match, leveldb_bloom_filterblock_key_may_match_batch,
};
pub use filterpolicy::{
    leveldb_bloom_create_filter_fn, leveldb_bloom_destructor_fn, leveldb_bloom_filterpolicy_create,
    leveldb_bloom_filterpolicy_create_bloom, leveldb_bloom_filterpolicy_destroy,
    leveldb_bloom_filterpolicy_name, leveldb_bloom_filterpolicy_t, leveldb_bloom_free,
    leveldb_bloom_key_may_match_fn, leveldb_bloom_name_fn,
};
pub use filterpolicy_create_filter::leveldb_bloom_filterpolicy_create_filter;
pub use filterpolicy_key_may_match::{
    leveldb_bloom_filterpolicy_key_may_match, leveldb_bloom_filterpolicy_key_may_match_batch,
};
pub use key_arrays::leveldb_bloom_slice_t;
#[cfg(feature = "leveldb-c-api")]
pub use leveldb_names::{
    leveldb_filterblock_builder_add_key, leveldb_filterblock_builder_create,
    leveldb_filterblock_builder_destroy, leveldb_filterblock_builder_finish,
    leveldb_filterblock_builder_start_block, leveldb_filterblock_builder_t,
    leveldb_filterblock_key_may_match, leveldb_filterblock_key_may_match_batch,
    leveldb_filterpolicy_create, leveldb_filterpolicy_create_bloom,
    leveldb_filterpolicy_create_filter, leveldb_filterpolicy_destroy,
    leveldb_filterpolicy_key_may_match, leveldb_filterpolicy_key_may_match_batch,
    leveldb_filterpolicy_name, leveldb_filterpolicy_t, leveldb_free,
};
