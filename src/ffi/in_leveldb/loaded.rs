//! leveldb's C API among the objects the loader has loaded (Linux, where the loader lists them),
//! and which of those found are gone. Elsewhere it is never found, and this library's policies
//! are its own objects, which leveldb cannot use; so under Miri, which cannot call the loader.
//! Called with none of our locks held; its own is held only while it calls nothing.

use super::LeveldbCApi;

/// Memory ran out.
pub(super) struct OutOfMemory;

#[cfg(any(not(target_os = "linux"), miri))]
pub(super) use elsewhere::*;
#[cfg(all(target_os = "linux", not(miri)))]
pub(super) use linux::*;

#[cfg(any(not(target_os = "linux"), miri))]
mod elsewhere {
    use super::*;

    /// leveldb's C API: never found here.
    pub(in super::super) fn leveldb_c_api() -> Result<Option<&'static LeveldbCApi>, OutOfMemory> {
        Ok(None)
    }

    /// No leveldb is ever found here, so none is ever gone.
    pub(in super::super) fn forget_unloaded(_: impl FnOnce(&dyn Fn(&LeveldbCApi) -> bool)) {}
}

#[cfg(all(target_os = "linux", not(miri)))]
mod linux {
    use std::collections::TryReserveError;
    use std::ffi::{CStr, c_int, c_void};
    use std::ptr;
    use std::sync::{Mutex, MutexGuard, PoisonError};

    use super::super::{DestroyFn, ErasedFn};
    use super::*;
    use crate::ffi::checks::into_raw;

    /// What is known of the objects the loader has loaded.
    struct Known {
        /// The loader's counts of objects loaded and unloaded when leveldb's C API was last
        /// looked for, and what was found then.
        looked: Option<((u64, u64), Option<&'static LeveldbCApi>)>,
        /// Every leveldb's C API found and not gone, each allocated once and never freed:
        /// leveldb's objects hold them.
        found: Vec<&'static LeveldbCApi>,
        /// The loader's count of objects unloaded when those were last checked.
        unloads_checked: u64,
    }

    static KNOWN: Mutex<Known> = Mutex::new(Known {
        looked: None,
        found: Vec::new(),
        unloads_checked: 0,
    });

    fn known() -> MutexGuard<'static, Known> {
        KNOWN.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// leveldb's C API, if an object loaded in this process (the program, a library, one loaded
    /// with `RTLD_LOCAL`) has it; looked for again only once the loader has loaded or unloaded
    /// something since.
    pub(in super::super) fn leveldb_c_api() -> Result<Option<&'static LeveldbCApi>, OutOfMemory> {
        let loads = loads();
        if let Some((at, found)) = known().looked
            && at == loads
        {
            return Ok(found);
        }
        let names = loaded_objects().map_err(|_| OutOfMemory)?;
        let api = names
            .split_inclusive(|&b| b == 0)
            .filter_map(|name| CStr::from_bytes_with_nul(name).ok())
            .find_map(|name| {
                // SAFETY: the name of an object loaded a moment ago.
                unsafe { leveldb_c_api_in(name) }
            });
        let mut known = known();
        let found = match api {
            None => None,
            Some(api) => match known.found.iter().find(|found| found.is(&api)) {
                Some(found) => Some(*found),
                None => {
                    known.found.try_reserve(1).map_err(|_| OutOfMemory)?;
                    // SAFETY: from `into_raw`, never freed.
                    let api = unsafe { into_raw(api).as_ref() }.ok_or(OutOfMemory)?;
                    known.found.push(api);
                    Some(api)
                }
            },
        };
        known.looked = Some((loads, found));
        Ok(found)
    }

    impl LeveldbCApi {
        /// Whether the two are the same object's C API.
        fn is(&self, other: &LeveldbCApi) -> bool {
            self.create as usize == other.create as usize && self.loaded_at == other.loaded_at
        }
    }

    /// If the loader has unloaded anything since the last call, hands `forget` a test of which
    /// leveldbs found are gone, and looks at them no more.
    pub(in super::super) fn forget_unloaded(forget: impl FnOnce(&dyn Fn(&LeveldbCApi) -> bool)) {
        let (_, unloads) = loads();
        let mut gone = Vec::new();
        {
            let known = known();
            if known.unloads_checked == unloads || gone.try_reserve(known.found.len()).is_err() {
                return;
            }
            gone.extend(known.found.iter().copied());
        }
        // Asked of the loader with no lock held.
        gone.retain(|api| !still_loaded(api));
        let is_gone = |api: &LeveldbCApi| gone.iter().any(|gone| ptr::eq(*gone, api));
        if !gone.is_empty() {
            forget(&is_gone);
        }
        let mut known = known();
        known.found.retain(|api| !is_gone(api));
        known.unloads_checked = unloads;
        // Looked for again at the next create: the one found may be gone.
        known.looked = None;
    }

    /// Whether the object that held `api` holds it still: loaded where it was, with leveldb's
    /// `leveldb_filterpolicy_destroy` at the same address (perhaps unloaded and loaded again,
    /// which leaves the same code there). Another object loaded in its place has other functions
    /// there.
    fn still_loaded(api: &LeveldbCApi) -> bool {
        let destroy = api.destroy as *const c_void;
        dladdr(destroy).is_some_and(|info| {
            info.dli_fbase.addr() == api.loaded_at
                && info.dli_saddr.cast_const() == destroy
                && !info.dli_sname.is_null()
                // SAFETY: the loader's NUL-terminated name of the symbol.
                && unsafe { CStr::from_ptr(info.dli_sname) } == c"leveldb_filterpolicy_destroy"
        })
    }

    /// What the loader says of the object and symbol `address` lies in, if one does.
    fn dladdr(address: *const c_void) -> Option<libc::Dl_info> {
        let mut info = std::mem::MaybeUninit::<libc::Dl_info>::uninit();
        // SAFETY: `info` is written when dladdr succeeds.
        if unsafe { libc::dladdr(address, info.as_mut_ptr()) } == 0 {
            return None;
        }
        // SAFETY: written, as dladdr succeeded.
        Some(unsafe { info.assume_init() })
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
            Some((address, dladdr(address)?.dli_fbase.addr()))
        };
        let api = (|| {
            let (_, home) = symbol(c"leveldb_options_set_filter_policy")?;
            let (create, create_home) = symbol(c"leveldb_filterpolicy_create")?;
            let (destroy, destroy_home) = symbol(c"leveldb_filterpolicy_destroy")?;
            (create_home == home && destroy_home == home).then(|| {
                // SAFETY: leveldb's functions, declared so in leveldb/c.h.
                unsafe {
                    LeveldbCApi {
                        create: std::mem::transmute::<*mut c_void, ErasedFn>(create),
                        destroy: std::mem::transmute::<*mut c_void, DestroyFn>(destroy),
                        loaded_at: home,
                    }
                }
            })
        })();
        // SAFETY: the handle opened above.
        unsafe { libc::dlclose(handle) };
        api
    }
}
