//! leveldb's own C API in this process. leveldb's `leveldb_options_set_filter_policy` takes any
//! `leveldb_filterpolicy_t` for its own C++ class and calls through its vtable, whichever library
//! made it. So where leveldb's C API is loaded, this library's `leveldb_filterpolicy_create_bloom`
//! and `_create` hand out an object of leveldb's own, made by leveldb's `leveldb_filterpolicy_create`
//! over callbacks into the policy of ours, which wrapped.rs remembers behind it.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use crate::ffi::filterpolicy::{
    self, is_bloom, leveldb_bloom_create_filter_fn, leveldb_bloom_destructor_fn,
    leveldb_bloom_filterpolicy_t, leveldb_bloom_key_may_match_fn, leveldb_bloom_name_fn,
};
use crate::ffi::filterpolicy_create_filter::leveldb_bloom_filterpolicy_create_filter;
use crate::ffi::filterpolicy_key_may_match::key_may_match;
use crate::ffi::wrapped::{self, DestroyFn};
use crate::no_unwind::ffi_boundary;

/// leveldb's `leveldb_filterpolicy_create`: C++, so declared able to unwind.
type CreateFn = unsafe extern "C-unwind" fn(
    state: *mut c_void,
    destructor: leveldb_bloom_destructor_fn,
    create_filter: leveldb_bloom_create_filter_fn,
    key_may_match: leveldb_bloom_key_may_match_fn,
    name: leveldb_bloom_name_fn,
) -> *mut c_void;

/// The two functions of leveldb's C API that make and destroy its policy objects.
#[derive(Clone, Copy)]
#[cfg_attr(not(target_os = "linux"), allow(dead_code))] // never found there
struct LeveldbCApi {
    create: CreateFn,
    destroy: DestroyFn,
}

/// The policy of ours `policy` (from `leveldb_bloom_filterpolicy_create_bloom` or `_create`, or
/// NULL), as a `leveldb_filterpolicy_t`: where leveldb's C API is loaded, an object of leveldb's
/// wrapping it, which leveldb can use and every function here takes for it; elsewhere `policy`
/// itself. NULL if memory runs out, and then a custom policy's destructor does not run.
///
/// # Safety
/// `policy` must be NULL or a policy just made, handed to no one else.
pub(crate) unsafe fn for_leveldb(policy: *mut leveldb_bloom_filterpolicy_t) -> *mut c_void {
    if policy.is_null() {
        return ptr::null_mut();
    }
    let leveldb = match leveldb_c_api() {
        Ok(Some(leveldb)) => leveldb,
        Ok(None) => return policy.cast(),
        Err(_) => {
            // SAFETY: made just now and handed to no one (per the contract).
            unsafe { filterpolicy::discard(policy) };
            return ptr::null_mut();
        }
    };
    let outer = wrapped::wrap(policy.cast(), leveldb.destroy, || {
        // SAFETY: leveldb's `leveldb_filterpolicy_create`, with callbacks of the types it
        // declares; it only stores them.
        unsafe {
            (leveldb.create)(
                policy.cast(),
                Some(destroy_for_leveldb),
                Some(create_filter_for_leveldb),
                Some(key_may_match_for_leveldb),
                Some(name_for_leveldb),
            )
        }
    });
    if outer.is_null() {
        // SAFETY: made just now and handed to no one (per the contract).
        unsafe { filterpolicy::discard(policy) };
    }
    outer
}

/// The destructor of leveldb's object: destroys the policy of ours it wraps.
unsafe extern "C" fn destroy_for_leveldb(state: *mut c_void) {
    ffi_boundary!((), {
        wrapped::unwrap(state);
        // SAFETY: `state` is the policy of ours the object wrapped, destroyed with it.
        unsafe { filterpolicy::destroy(state.cast()) }
    })
}

/// leveldb's `CreateFilter`, into the `std::string` it appends our filter to.
unsafe extern "C" fn create_filter_for_leveldb(
    state: *mut c_void,
    key_array: *const *const c_char,
    key_length_array: *const usize,
    num_keys: c_int,
    filter_length: *mut usize,
) -> *mut c_char {
    let policy = state.cast::<leveldb_bloom_filterpolicy_t>();
    // SAFETY: `state` is the live policy of ours the object wraps; leveldb's arrays hold
    // `num_keys` keys.
    let filter = unsafe {
        leveldb_bloom_filterpolicy_create_filter(
            policy,
            key_array,
            key_length_array,
            num_keys,
            filter_length,
        )
    };
    // The bloom policy fails only when memory runs out. leveldb would store the empty filter,
    // which matches no key, and lose the table's keys: stop, as leveldb's own code does then.
    // SAFETY: as above.
    if filter.is_null() && unsafe { is_bloom(policy) } {
        let message = b"leveldb-bloom: out of memory building a filter for leveldb\n";
        let _ = std::io::Write::write_all(&mut std::io::stderr(), message);
        std::process::abort();
    }
    filter
}

/// leveldb's `KeyMayMatch`.
unsafe extern "C" fn key_may_match_for_leveldb(
    state: *mut c_void,
    key: *const c_char,
    length: usize,
    filter: *const c_char,
    filter_length: usize,
) -> u8 {
    // SAFETY: `state` is the live policy of ours the object wraps; leveldb's key and filter are
    // its slices.
    unsafe { key_may_match(state.cast(), key, length, filter, filter_length) }
}

/// leveldb's `Name`.
unsafe extern "C" fn name_for_leveldb(state: *mut c_void) -> *const c_char {
    // SAFETY: `state` is the live policy of ours the object wraps.
    ffi_boundary!(ptr::null(), { unsafe { filterpolicy::name(state.cast()) } })
}

/// leveldb's C API is looked for where the loader lists the objects it loaded (Linux). Elsewhere
/// it is never found, and this library's policies are its own objects, which leveldb cannot use.
#[cfg(not(target_os = "linux"))]
fn leveldb_c_api() -> Result<Option<LeveldbCApi>, std::collections::TryReserveError> {
    Ok(None)
}

#[cfg(target_os = "linux")]
use loaded::leveldb_c_api;

/// The objects the loader has loaded, and leveldb's C API among them.
#[cfg(target_os = "linux")]
mod loaded {
    use std::collections::TryReserveError;
    use std::ffi::{CStr, c_int, c_void};
    use std::ptr;
    use std::sync::{Mutex, PoisonError};

    use super::{CreateFn, DestroyFn, LeveldbCApi};

    /// What the loader reported when leveldb's C API was last looked for, and what was found.
    struct Looked {
        loads: (u64, u64),
        found: Option<LeveldbCApi>,
    }

    /// leveldb's C API, if an object loaded in this process (the program, a library, one loaded
    /// with `RTLD_LOCAL`) has it; looked for again only once the loader has loaded or unloaded
    /// something since. An error if memory runs out.
    pub(super) fn leveldb_c_api() -> Result<Option<LeveldbCApi>, TryReserveError> {
        static LOOKED: Mutex<Option<Looked>> = Mutex::new(None);
        let loads = loads();
        if let Some(looked) = &*LOOKED.lock().unwrap_or_else(PoisonError::into_inner)
            && looked.loads == loads
        {
            return Ok(looked.found);
        }
        // Looked for without the lock, which a library's constructor calling here, with the
        // loader's own lock held, would wait for while this thread waited for the loader's.
        let names = loaded_objects()?;
        let found = names
            .split_inclusive(|&b| b == 0)
            .filter_map(|name| CStr::from_bytes_with_nul(name).ok())
            .find_map(|name| {
                // SAFETY: the name of an object loaded a moment ago.
                unsafe { leveldb_c_api_in(name) }
            });
        *LOOKED.lock().unwrap_or_else(PoisonError::into_inner) = Some(Looked { loads, found });
        Ok(found)
    }

    /// How many objects the loader has loaded and unloaded so far.
    fn loads() -> (u64, u64) {
        unsafe extern "C" fn first(
            info: *mut libc::dl_phdr_info,
            _: usize,
            out: *mut c_void,
        ) -> c_int {
            // SAFETY: the loader's report, and our `(u64, u64)`.
            unsafe {
                let info = &*info;
                *out.cast::<(u64, u64)>() = (info.dlpi_adds, info.dlpi_subs);
            }
            1
        }
        let mut loads = (0, 0);
        // SAFETY: `first` writes only `loads`, and stops at the first object.
        unsafe { libc::dl_iterate_phdr(Some(first), ptr::from_mut(&mut loads).cast()) };
        loads
    }

    /// The name of each object loaded, NUL-terminated one after the other, the program's empty:
    /// copied, as the loader's lock is held while they are listed, and must not be when looking
    /// into them. An error if memory runs out.
    fn loaded_objects() -> Result<Vec<u8>, TryReserveError> {
        unsafe extern "C" fn collect(
            info: *mut libc::dl_phdr_info,
            _: usize,
            out: *mut c_void,
        ) -> c_int {
            // SAFETY: the loader's report, and our names.
            let (info, names) =
                unsafe { (&*info, &mut *out.cast::<Result<Vec<u8>, TryReserveError>>()) };
            let name = if info.dlpi_name.is_null() {
                c""
            } else {
                // SAFETY: the loader's NUL-terminated name of the object.
                unsafe { CStr::from_ptr(info.dlpi_name) }
            };
            let name = name.to_bytes_with_nul();
            let Ok(list) = names else { return 1 };
            match list.try_reserve(name.len()) {
                Ok(()) => {
                    list.extend_from_slice(name);
                    0
                }
                Err(error) => {
                    *names = Err(error);
                    1
                }
            }
        }
        let mut names = Ok(Vec::new());
        // SAFETY: `collect` only writes `names`.
        unsafe { libc::dl_iterate_phdr(Some(collect), ptr::from_mut(&mut names).cast()) };
        names
    }

    /// leveldb's C API in the object named `name` (the program for ""): its
    /// `leveldb_options_set_filter_policy`, which this library does not define, with the
    /// `leveldb_filterpolicy_create` and `_destroy` of the same object, never this library's.
    ///
    /// # Safety
    /// `name` must name an object loaded now (or none).
    unsafe fn leveldb_c_api_in(name: &CStr) -> Option<LeveldbCApi> {
        let path = if name.is_empty() {
            ptr::null()
        } else {
            name.as_ptr()
        };
        // SAFETY: only an object already loaded is opened, and closed below.
        let handle = unsafe { libc::dlopen(path, libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
        if handle.is_null() {
            return None;
        }
        let symbol = |name: &CStr| {
            // SAFETY: a live handle and a NUL-terminated name.
            let address = unsafe { libc::dlsym(handle, name.as_ptr()) };
            let mut info = std::mem::MaybeUninit::<libc::Dl_info>::uninit();
            // SAFETY: `info` is written when dladdr succeeds.
            let found =
                !address.is_null() && unsafe { libc::dladdr(address, info.as_mut_ptr()) } != 0;
            // SAFETY: written, as dladdr succeeded.
            found.then(|| (address, unsafe { info.assume_init() }.dli_fbase))
        };
        let api = (|| {
            let (_, home) = symbol(c"leveldb_options_set_filter_policy")?;
            let (create, create_home) = symbol(c"leveldb_filterpolicy_create")?;
            let (destroy, destroy_home) = symbol(c"leveldb_filterpolicy_destroy")?;
            (create_home == home && destroy_home == home).then(|| {
                // SAFETY: leveldb's functions, declared so in leveldb/c.h.
                unsafe {
                    LeveldbCApi {
                        create: std::mem::transmute::<*mut c_void, CreateFn>(create),
                        destroy: std::mem::transmute::<*mut c_void, DestroyFn>(destroy),
                    }
                }
            })
        })();
        // SAFETY: the handle opened above.
        unsafe { libc::dlclose(handle) };
        api
    }
}
