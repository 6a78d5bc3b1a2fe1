//! The policies of this library behind objects of leveldb's own C API (in_leveldb.rs), by the
//! address of the object that wraps each: how every function that takes a policy finds ours
//! behind one, and how destroying one reaches leveldb's `leveldb_filterpolicy_destroy`.

use std::ffi::c_void;
use std::ptr;
use std::sync::{PoisonError, RwLock};

/// leveldb's `leveldb_filterpolicy_destroy`: C++, so declared able to unwind.
pub(crate) type DestroyFn = unsafe extern "C-unwind" fn(policy: *mut c_void);

#[derive(Clone, Copy)]
struct Wrapped {
    /// leveldb's object.
    outer: *mut c_void,
    /// Ours, the object's state.
    inner: *mut c_void,
    /// What destroys `outer`.
    destroy: DestroyFn,
}

// SAFETY: the pointers are only compared and handed back; the objects they point to may be
// used from any thread (policies are immutable, and leveldb's objects are only destroyed).
unsafe impl Send for Wrapped {}
// SAFETY: as for Send: nothing is reached through the pointers here.
unsafe impl Sync for Wrapped {}

/// Sorted by `outer`'s address. Read by every call with an object of leveldb's, written when one
/// is made or destroyed.
static WRAPPED: RwLock<Vec<Wrapped>> = RwLock::new(Vec::new());

/// Where `outer` is in `wrapped`, or where it would go.
fn position(wrapped: &[Wrapped], outer: *const c_void) -> Result<usize, usize> {
    wrapped.binary_search_by_key(&outer.addr(), |w| w.outer.addr())
}

/// The policy of ours that leveldb's object `outer` wraps, if it wraps one.
pub(crate) fn inner(outer: *const c_void) -> Option<*mut c_void> {
    let wrapped = WRAPPED.read().unwrap_or_else(PoisonError::into_inner);
    position(&wrapped, outer).ok().map(|i| wrapped[i].inner)
}

/// The object `make` returns, remembered as wrapping `inner`; NULL, without calling `make`, if
/// memory runs out, or if `make` returns NULL.
pub(crate) fn wrap(
    inner: *mut c_void,
    destroy: DestroyFn,
    make: impl FnOnce() -> *mut c_void,
) -> *mut c_void {
    let mut wrapped = WRAPPED.write().unwrap_or_else(PoisonError::into_inner);
    // Room first, so that an object made is never one that cannot be remembered.
    if wrapped.try_reserve(1).is_err() {
        return ptr::null_mut();
    }
    let outer = make();
    if !outer.is_null() {
        let entry = Wrapped {
            outer,
            inner,
            destroy,
        };
        match position(&wrapped, outer) {
            // An address is reused only once its object is gone, and with it its entry.
            Ok(i) => wrapped[i] = entry,
            Err(i) => wrapped.insert(i, entry),
        }
    }
    outer
}

/// Forgets the object that wraps `inner`: it is being destroyed.
pub(crate) fn unwrap(inner: *mut c_void) {
    let mut wrapped = WRAPPED.write().unwrap_or_else(PoisonError::into_inner);
    wrapped.retain(|w| w.inner != inner);
}

/// Destroys leveldb's object `outer` through leveldb's own `leveldb_filterpolicy_destroy`, if it
/// wraps a policy of ours (whose destructor then runs [`unwrap`]); any other is left alone.
///
/// # Safety
/// `outer` must not be used again if it wraps one of ours.
pub(crate) unsafe fn destroy(outer: *mut c_void) {
    let destroy = {
        let wrapped = WRAPPED.read().unwrap_or_else(PoisonError::into_inner);
        position(&wrapped, outer).ok().map(|i| wrapped[i].destroy)
    };
    if let Some(destroy) = destroy {
        // SAFETY: leveldb's destroy of the object it made; the lock is released, as the
        // destructor it calls takes it.
        unsafe { destroy(outer) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C-unwind" fn destroy_box(outer: *mut c_void) {
        let inner = inner(outer).expect("destroyed while wrapped");
        unwrap(inner);
        // SAFETY: every stand-in object is a Box<u64> the test made, destroyed once, here.
        drop(unsafe { Box::from_raw(outer.cast::<u64>()) });
    }

    // Runs under `cargo miri test`: the registry's own paths, with a stand-in for leveldb's object.
    #[test]
    fn objects_are_found_until_destroyed() {
        let inners = [1u8, 2, 3].map(|b| Box::into_raw(Box::new(b)).cast::<c_void>());
        let outers = inners.map(|inner| {
            wrap(inner, destroy_box, || {
                Box::into_raw(Box::new(7u64)).cast::<c_void>()
            })
        });
        for (outer, inner) in outers.iter().zip(inners) {
            assert_eq!(super::inner(*outer), Some(inner));
        }
        assert!(wrap(inners[0], destroy_box, ptr::null_mut).is_null());
        let other = 9u64;
        assert_eq!(super::inner(ptr::from_ref(&other).cast()), None);
        // SAFETY: `other` wraps nothing, so destroy leaves it alone.
        unsafe { destroy(ptr::from_ref(&other).cast_mut().cast()) };
        for (outer, inner) in outers.into_iter().zip(inners) {
            // SAFETY: `outer` wraps `inner` and is not used again but as an address.
            unsafe { destroy(outer) };
            assert_eq!(super::inner(outer), None);
            // SAFETY: `inner` is the Box<u8> made above, no longer wrapped, freed once.
            drop(unsafe { Box::from_raw(inner.cast::<u8>()) });
        }
    }
}
