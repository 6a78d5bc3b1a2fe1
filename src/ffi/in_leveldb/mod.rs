//! Beside leveldb's own C API in one process. leveldb's `leveldb_options_set_filter_policy` takes
//! any `leveldb_filterpolicy_t` for its own C++ class and calls through its vtable, whichever
//! library made it. So where leveldb's C API is loaded, this library's
//! `leveldb_filterpolicy_create_bloom` and `_create` hand out an object of leveldb's own, made by
//! leveldb's `leveldb_filterpolicy_create` over callbacks into the policy of this library's they
//! would otherwise return (wrap.rs), and every function here finds that policy behind it
//! (registry.rs). This file is what the policy functions below leveldb's names ask of it; wrap.rs,
//! which makes leveldb's objects over this library's, is above them.
//!
//! What this relies on in leveldb, and nothing more:
//! - its public C API (leveldb/c.h): `leveldb_filterpolicy_create`, called with c.h's arguments in
//!   c.h's order, and `leveldb_filterpolicy_destroy`, both found with `dlsym` in the object that
//!   defines `leveldb_options_set_filter_policy` (loaded.rs), and called for nothing but making
//!   and destroying the objects that wrap this library's;
//! - the first word of each of its objects, which every function here reads of any policy given
//!   it: a vtable pointer, which none of our tags equals (filterpolicy.rs).
//!
//! What it never does:
//! - read anything else of leveldb's objects (their fields, their vtables): they are known by
//!   their address only;
//! - hold a lock of its own while calling leveldb, or the loader (`dlopen`, `dlsym`, `dladdr`,
//!   `dl_iterate_phdr`): the program may replace leveldb's `operator new` with code that calls
//!   this library, and a library's constructor may call it with the loader's lock held;
//! - take a lock or write memory shared between threads in a query: a query finds the policy
//!   behind leveldb's object with atomic loads (registry.rs);
//! - call leveldb through an object the registry no longer knows, or into a leveldb unloaded
//!   (`dlclose`) since its object was made: every call but a query first asks the loader whether
//!   anything was unloaded since it last asked, and forgets the objects of a leveldb that is gone;
//!   they are then foreign policies, bad input. A query, asking nothing of the loader (whose lock
//!   it would take), answers from the policy behind such an object until another call has asked:
//!   that policy stays allocated, as leveldb's destroy, which would free it, can no longer run.
//!
//! leveldb's `leveldb_filterpolicy_create` is C++ and may throw (`std::bad_alloc`): this library
//! has no C++ to catch it, and Rust does not catch foreign exceptions, so the process aborts, as
//! a C program calling leveldb's C API would end.

mod loaded;
mod registry;
pub(crate) mod wrap;

pub(crate) use registry::{bloom_at_home, policy_behind};

use std::ffi::c_void;

/// leveldb's `leveldb_filterpolicy_create`, with its type erased: wrap.rs calls it as what
/// leveldb/c.h declares ([`wrap::CreateFn`]), whose callback types this file needs nothing of.
type ErasedFn = unsafe extern "C-unwind" fn();

/// leveldb's `leveldb_filterpolicy_destroy`: C++, so declared able to unwind.
type DestroyFn = unsafe extern "C-unwind" fn(policy: *mut c_void);

/// One leveldb's C API, found in one loaded object.
#[cfg_attr(any(not(target_os = "linux"), miri), allow(dead_code))] // Never found there.
struct LeveldbCApi {
    create: ErasedFn,
    destroy: DestroyFn,
    /// Where the object holding them is loaded (its base address).
    loaded_at: usize,
}

/// What leveldb's object holds as its state: what its callbacks and its destruction need.
pub(super) struct Link {
    /// This library's policy behind it, destroyed with it: a `leveldb_bloom_filterpolicy_t`,
    /// known here by its address only.
    policy: *mut c_void,
    /// leveldb's object: known once made.
    outer: *mut c_void,
    /// The leveldb that made it.
    leveldb: &'static LeveldbCApi,
}

/// Forgets the objects of every leveldb unloaded since the last call: calls that are not queries
/// make it before they look behind an object of leveldb's (see the module's doc).
pub(crate) fn forget_unloaded() {
    loaded::forget_unloaded(|gone| registry::forget_where(|link| gone(link.leveldb)));
}

/// Destroys leveldb's object `outer` through leveldb's own `leveldb_filterpolicy_destroy`, if
/// the registry knows it (its destructor then forgets it and destroys the policy behind it); any
/// other is left alone.
///
/// # Safety
/// `outer` must not be used again if the registry knows it.
pub(crate) unsafe fn destroy(outer: *mut c_void) {
    forget_unloaded();
    if let Some(link) = registry::link_of(outer) {
        // SAFETY: a registered object's link lives until its destructor runs, below.
        let destroy = unsafe { (*link).leveldb.destroy };
        // SAFETY: leveldb's destroy of an object it made, from a leveldb still loaded; no lock is
        // held, as its destructor takes the registry's.
        unsafe { destroy(outer) }
    }
}
